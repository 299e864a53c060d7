package history

import (
	"time"

	"github.com/gpuwise/gpuwise/internal/cost"
	"github.com/gpuwise/gpuwise/internal/tally"
)

// Kinds of aggregate: what a row's key names (tally's, named here too).
const (
	Workload  = tally.Workload
	Namespace = tally.Namespace
	Node      = tally.Node
	GPUModel  = tally.GPUModel
)

// Kinds lists every kind, in the order a cycle records them.
var Kinds = tally.Kinds

// Values are one key's sums over a period (tally.Values: the store keeps
// them, the service's counters export them).
type Values = tally.Values

// columns are Values' columns, in field order.
var columns = []string{
	"seconds", "pods",
	"gpu_provisioned_hours", "gpu_allocated_hours", "gpu_active_hours", "gpu_idle_hours",
	"gpu_unmeasured_hours", "gpu_unallocated_hours",
	"gpu_active_usd", "gpu_idle_usd", "gpu_unmeasured_usd", "gpu_unallocated_usd",
	"cpu_usd", "memory_usd", "cpu_memory_unallocated_usd", "total_usd",
	"unpriced_gpu_hours", "oom_kills",
}

// FromRow takes a report row's sums as one cycle's values
// (cost.RowValues).
func FromRow(r cost.Row, seconds float64, oomKills int) Values {
	return cost.RowValues(r, seconds, oomKills)
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
	// Units are the GPU units' time in the cycle (cost.UnitUsage), added
	// into their hour for the low-utilization list; nil: none recorded.
	Units []cost.UnitHours
	// Inference are the inference servers' request and token counts in
	// the cycle, per serving workload and model name, added into their
	// hour for the unit-cost trend; nil: no counters read.
	Inference []Inference
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
