package tally

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

// Fields are v's fields as pointers, in field order (the history's
// columns bind and scan them).
func (v *Values) Fields() []any {
	return []any{&v.Seconds, &v.Pods,
		&v.GPUProvisionedHours, &v.GPUAllocatedHours, &v.GPUActiveHours, &v.GPUIdleHours,
		&v.GPUUnmeasuredHours, &v.GPUUnallocatedHours,
		&v.GPUActiveUSD, &v.GPUIdleUSD, &v.GPUUnmeasuredUSD, &v.GPUUnallocatedUSD,
		&v.CPUUSD, &v.MemoryUSD, &v.CPUMemoryUnallocatedUSD, &v.TotalUSD,
		&v.UnpricedGPUHours, &v.OOMKills}
}

// Add adds o to v (Pods takes the larger).
func (v *Values) Add(o Values) {
	a, b := v.Fields(), o.Fields()
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
