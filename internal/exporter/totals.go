package exporter

import (
	"maps"
	"sort"
	"strings"

	"github.com/gpuwise/gpuwise/internal/cost"
	"github.com/gpuwise/gpuwise/internal/tally"
)

// OtherWorkload is the workload label of the workloads past the cap,
// summed per namespace.
const OtherWorkload = "__other__"

// Totals are the counters' values: history values per exported workload
// and per GPU model. A Totals is immutable once published in a Frame: the
// service adds a cycle to a Clone.
type Totals struct {
	max       int
	named     map[string]bool         // workload keys exported under their own name
	workloads map[string]tally.Values // export key (namespace/Kind/name or namespace/__other__) → sums
	models    map[string]tally.Values // GPU model → sums (the unallocated parts)
}

// NewTotals returns empty totals exporting at most maxWorkloads workloads
// under their own name (0: no limit).
func NewTotals(maxWorkloads int) *Totals {
	return &Totals{max: maxWorkloads, named: map[string]bool{}, workloads: map[string]tally.Values{}, models: map[string]tally.Values{}}
}

// Clone returns a copy the caller may add to.
func (t *Totals) Clone() *Totals {
	return &Totals{max: t.max, named: maps.Clone(t.named), workloads: maps.Clone(t.workloads), models: maps.Clone(t.models)}
}

// AddWorkloads adds values per workload key (namespace/Kind/name); the
// unallocated row is not a workload and is skipped. Keys new to the totals
// take a name of their own, dearest first, while the cap allows.
func (t *Totals) AddWorkloads(vs map[string]tally.Values) {
	keys := make([]string, 0, len(vs))
	for k := range vs {
		if k != cost.UnallocatedKey {
			keys = append(keys, k)
		}
	}
	sort.Slice(keys, func(i, j int) bool {
		a, b := vs[keys[i]].TotalUSD, vs[keys[j]].TotalUSD
		if a != b {
			return a > b
		}
		return keys[i] < keys[j]
	})
	for _, k := range keys {
		ek := t.exportKey(k)
		v := t.workloads[ek]
		v.Add(vs[k])
		t.workloads[ek] = v
	}
}

func (t *Totals) exportKey(k string) string {
	if t.named[k] {
		return k
	}
	if t.max <= 0 || len(t.named) < t.max {
		t.named[k] = true
		return k
	}
	ns, _, _ := strings.Cut(k, "/")
	return ns + "/" + OtherWorkload
}

// ModelValues are one cycle's values per GPU model from the report by
// gpu-model, for AddModels: the unallocated CPU and memory dollars are
// those of capacity no pod held (cost.Costs.UnheldCPUMemory) plus the
// shares of it put on pods, so that the cost counters (workload
// components and unallocated gpu and cpu_memory) sum to the report's
// total.
func ModelValues(r *cost.Report, seconds float64) map[string]tally.Values {
	out := make(map[string]tally.Values, len(r.Rows))
	for _, row := range r.Rows {
		v := cost.RowValues(row, seconds, 0)
		v.CPUMemoryUnallocatedUSD = row.CPUMemoryUnallocated + row.UnheldCPUMemory
		out[row.Key] = v
	}
	return out
}

// AddModels adds values per GPU model.
func (t *Totals) AddModels(vs map[string]tally.Values) {
	for k, add := range vs {
		v := t.models[k]
		v.Add(add)
		t.models[k] = v
	}
}

// Workloads is the number of workload series (named and __other__).
func (t *Totals) Workloads() int { return len(t.workloads) }

// splitWorkload turns an export key into its namespace and workload label.
func splitWorkload(k string) (ns, workload string) {
	ns, workload, _ = strings.Cut(k, "/")
	return ns, workload
}
