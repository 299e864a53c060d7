package history

import (
	"time"

	"github.com/gpuwise/gpuwise/internal/cost"
)

// Kinds of aggregate: what a row's key names.
const (
	Workload  = "workload"  // namespace/Kind/name of the top-level owner
	Namespace = "namespace" // a namespace, or __unallocated__
	Node      = "node"      // a node name
	GPUModel  = "gpu_model" // a normalized GPU model, e.g. H100-80GB
)

// Kinds lists every kind, in the order a cycle records them.
var Kinds = []string{Workload, Namespace, Node, GPUModel}

// Values are one key's sums over a period. Every field but Pods adds up
// over time; Pods is the most pods seen in one cycle. Dollars are the
// cost engine's for priced nodes; UnpricedGPUHours are the hours whose
// dollars are missing (never counted as $0).
type Values struct {
	Seconds                 float64 `json:"seconds"`
	Pods                    int64   `json:"pods"`
	GPUProvisionedHours     float64 `json:"gpu_provisioned_hours"`
	GPUAllocatedHours       float64 `json:"gpu_allocated_hours"`
	GPUActiveHours          float64 `json:"gpu_active_hours"`
	GPUIdleHours            float64 `json:"gpu_idle_hours"`
	GPUUnmeasuredHours      float64 `json:"gpu_unmeasured_hours"`
	GPUUnallocatedHours     float64 `json:"gpu_unallocated_hours"`
	GPUActiveUSD            float64 `json:"gpu_active_usd"`
	GPUIdleUSD              float64 `json:"gpu_idle_usd"`
	GPUUnmeasuredUSD        float64 `json:"gpu_unmeasured_usd"`
	GPUUnallocatedUSD       float64 `json:"gpu_unallocated_usd"`
	CPUUSD                  float64 `json:"cpu_usd"`
	MemoryUSD               float64 `json:"memory_usd"`
	CPUMemoryUnallocatedUSD float64 `json:"cpu_memory_unallocated_usd"`
	TotalUSD                float64 `json:"total_usd"`
	UnpricedGPUHours        float64 `json:"unpriced_gpu_hours"`
	OOMKills                int64   `json:"oom_kills"`
}

// columns are Values' columns, in field order.
var columns = []string{
	"seconds", "pods",
	"gpu_provisioned_hours", "gpu_allocated_hours", "gpu_active_hours", "gpu_idle_hours",
	"gpu_unmeasured_hours", "gpu_unallocated_hours",
	"gpu_active_usd", "gpu_idle_usd", "gpu_unmeasured_usd", "gpu_unallocated_usd",
	"cpu_usd", "memory_usd", "cpu_memory_unallocated_usd", "total_usd",
	"unpriced_gpu_hours", "oom_kills",
}

// fields are v's fields as scan/bind targets, in column order.
func (v *Values) fields() []any {
	return []any{&v.Seconds, &v.Pods,
		&v.GPUProvisionedHours, &v.GPUAllocatedHours, &v.GPUActiveHours, &v.GPUIdleHours,
		&v.GPUUnmeasuredHours, &v.GPUUnallocatedHours,
		&v.GPUActiveUSD, &v.GPUIdleUSD, &v.GPUUnmeasuredUSD, &v.GPUUnallocatedUSD,
		&v.CPUUSD, &v.MemoryUSD, &v.CPUMemoryUnallocatedUSD, &v.TotalUSD,
		&v.UnpricedGPUHours, &v.OOMKills}
}

// Add adds o to v (Pods takes the larger).
func (v *Values) Add(o Values) {
	a, b := v.fields(), o.fields()
	for i := range a {
		switch p := a[i].(type) {
		case *float64:
			*p += *b[i].(*float64)
		case *int64:
			if i == 1 {
				*p = max(*p, *b[i].(*int64))
			} else {
				*p += *b[i].(*int64)
			}
		}
	}
}

// Utilization is active over measured allocated GPU-hours, nil when none
// was measured (no data is not 0%).
func (v Values) Utilization() *float64 {
	measured := v.GPUAllocatedHours - v.GPUUnmeasuredHours
	if measured <= 1e-12 {
		return nil
	}
	u := v.GPUActiveHours / measured
	return &u
}

// Priced reports whether the row's dollars stand for anything: false when
// every GPU-hour it has is on unpriced nodes (its dollars are absent).
func (v Values) Priced() bool {
	hours := v.GPUAllocatedHours + v.GPUUnallocatedHours
	return hours == 0 || v.UnpricedGPUHours < hours-1e-9
}

// FromRow takes a report row's sums as one cycle's values.
func FromRow(r cost.Row, seconds float64, oomKills int) Values {
	h, c := r.GPUHours, r.GPUCost
	return Values{Seconds: seconds, Pods: int64(r.Pods),
		GPUProvisionedHours: h.Provisioned, GPUAllocatedHours: h.Allocated, GPUActiveHours: h.Active,
		GPUIdleHours: h.Idle, GPUUnmeasuredHours: h.Unmeasured, GPUUnallocatedHours: h.Unallocated,
		GPUActiveUSD: c.Active, GPUIdleUSD: c.AllocatedIdle, GPUUnmeasuredUSD: c.Unmeasured, GPUUnallocatedUSD: c.Unallocated,
		CPUUSD: r.CPUCost, MemoryUSD: r.MemoryCost, CPUMemoryUnallocatedUSD: r.CPUMemoryUnallocated, TotalUSD: r.TotalCost,
		UnpricedGPUHours: r.UnpricedGPUHours, OOMKills: int64(oomKills)}
}

// Entry is one key's values for one cycle.
type Entry struct {
	Kind   string
	Key    string
	Values Values
}

// Cycle is what one service cycle adds to the history: its window (inside
// one hour) and an entry per kind and key.
type Cycle struct {
	Cluster string
	Start   time.Time
	End     time.Time
	// Partial, when set, says what the cycle could not read.
	Partial string
	Entries []Entry
	// Fleet is the GPUs by model and sharing mode at End; nil when the
	// cycle did not read it (the buckets keep the fleet they had).
	Fleet []FleetGPUs
}

// Entries turns one cycle's report (grouped by kind) into entries, with
// each key's OOM kills from oomKills (nil: none counted).
func Entries(kind string, r *cost.Report, seconds float64, oomKills map[string]int) []Entry {
	out := make([]Entry, 0, len(r.Rows))
	for _, row := range r.Rows {
		out = append(out, Entry{Kind: kind, Key: row.Key, Values: FromRow(row, seconds, oomKills[row.Key])})
	}
	return out
}
