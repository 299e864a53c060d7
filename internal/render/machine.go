package render

import (
	"encoding/csv"
	"io"
	"strconv"
	"strings"

	"github.com/gpuwise/gpuwise/internal/billing"
	"github.com/gpuwise/gpuwise/internal/cost"
	"github.com/gpuwise/gpuwise/internal/idlecause"
	"github.com/gpuwise/gpuwise/internal/kueue"
)

// writeJSON writes the report as cost's json tags define it, keys in struct
// order. This is the stable format documented in docs/report-format.md.
// reportValue is what the report's JSON and YAML encode: the report's
// fields, then "savings" when the savings ledger was built,
// "idle_causes" when there are any, "reconciliation" with a bill and
// "kueue" when the snapshot has Kueue queues.
func reportValue(r *cost.Report, o Options) any {
	if o.Savings == nil && o.IdleCauses == nil && o.Reconciliation == nil && o.Kueue == nil {
		return r
	}
	return struct {
		*cost.Report
		Savings        *Savings                `json:"savings,omitempty"`
		IdleCauses     *idlecause.Result       `json:"idle_causes,omitempty"`
		Reconciliation *billing.Reconciliation `json:"reconciliation,omitempty"`
		Kueue          *kueue.Result           `json:"kueue,omitempty"`
	}{r, o.Savings, o.IdleCauses, o.Reconciliation, o.Kueue}
}

// csvHeader names the CSV columns; their order is part of the stable format.
var csvHeader = []string{
	"key", "pods",
	"gpu_hours_provisioned", "gpu_hours_allocated", "gpu_hours_active",
	"gpu_hours_idle", "gpu_hours_unmeasured", "gpu_hours_unallocated",
	"gpu_utilization",
	"gpu_cost_active_usd", "gpu_cost_allocated_idle_usd",
	"gpu_cost_unmeasured_usd", "gpu_cost_unallocated_usd",
	"cpu_cost_usd", "memory_cost_usd", "cpu_memory_unallocated_usd",
	"total_cost_usd", "monthly_cost_usd",
	"unpriced", "unpriced_gpu_hours", "partial", "mechanisms",
}

// writeCSV writes one header row and one row per report row, numbers at
// full precision so that sums made from the file match the report. An
// unpriced row's dollar cells are empty, not 0, and its unpriced column
// says true. The partial column is true on every row of a partial
// report (what it lacks: the stderr message, exit 6, and -o json); the
// last, mechanisms, is the row's allocation mechanisms joined with "+".
func writeCSV(w io.Writer, r *cost.Report) error {
	cw := csv.NewWriter(w)
	if err := cw.Write(csvHeader); err != nil {
		return err
	}
	partial := strconv.FormatBool(len(r.Partial) > 0)
	for _, row := range r.Rows {
		if err := cw.Write(append(csvRecord(row), partial, strings.Join(row.Mechanisms, "+"))); err != nil {
			return err
		}
	}
	cw.Flush()
	return cw.Error()
}

func csvRecord(row cost.Row) []string {
	h, c := row.GPUHours, row.GPUCost
	rec := []string{row.Key, strconv.Itoa(row.Pods)}
	rec = appendFloats(rec, h.Provisioned, h.Allocated, h.Active, h.Idle, h.Unmeasured, h.Unallocated)
	util := ""
	if row.GPUUtilization != nil {
		util = exact(*row.GPUUtilization)
	}
	rec = append(rec, util)
	dollars := appendFloats(nil, c.Active, c.AllocatedIdle, c.Unmeasured, c.Unallocated,
		row.CPUCost, row.MemoryCost, row.CPUMemoryUnallocated, row.TotalCost, row.MonthlyCost)
	if row.Unpriced {
		clear(dollars) // empty cells: the dollars do not exist
	}
	rec = append(rec, dollars...)
	return append(rec, strconv.FormatBool(row.Unpriced), exact(row.UnpricedGPUHours))
}

func appendFloats(rec []string, vs ...float64) []string {
	for _, v := range vs {
		rec = append(rec, exact(v))
	}
	return rec
}

// exact is the shortest decimal that parses back to v.
func exact(v float64) string { return strconv.FormatFloat(v, 'f', -1, 64) }
