// Command checkreport reads a gpuwise JSON report on stdin and fails unless
// it reconciles and carries the documented fields: the smoke check that
// `make test` runs on the README's commands.
package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"

	"github.com/gpuwise/gpuwise/internal/cost"
	"github.com/gpuwise/gpuwise/internal/idlecause"
	"github.com/gpuwise/gpuwise/internal/render"
)

func main() {
	// The report's fields, then the optional savings summary and idle
	// causes that gpuwise demo and report add (docs/report-format.md).
	var in struct {
		cost.Report
		Savings    *render.Savings   `json:"savings"`
		IdleCauses *idlecause.Result `json:"idle_causes"`
	}
	data, err := io.ReadAll(os.Stdin)
	if err != nil {
		fail("reading report: %v", err)
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&in); err != nil {
		fail("decoding report: %v", err)
	}
	checkUnpriced(data)
	r := in.Report
	if s := in.Savings; s != nil {
		saving := math.Round(s.SavingUSDMonth * 100)
		if math.IsNaN(saving) || saving < 0 || saving != math.Round(s.BeforeUSDMonth*100)-math.Round(s.AfterUSDMonth*100) || len(s.First) > 3 || len(s.First) > s.Actions {
			fail("savings summary is inconsistent: %+v", *s)
		}
	}
	if err := r.Reconcile(); err != nil {
		fail("%v", err)
	}
	if why := in.IdleCauses; why != nil {
		checkIdleCauses(why, &r)
	}
	if len(r.Rows) == 0 || r.Totals.GPUs == 0 || r.Totals.GPUHours.Provisioned <= 0 {
		fail("report has no GPUs or rows: %+v", r.Totals)
	}
	fmt.Printf("checkreport: %s: %d GPUs, $%.2f reconciles, utilization %s\n",
		r.Source, r.Totals.GPUs, r.Totals.NodeCost, pct(r.Totals.GPUUtilization))
}

// checkIdleCauses: the causes split exactly the report's idle GPU-hours
// and allocated-but-idle dollars.
func checkIdleCauses(why *idlecause.Result, r *cost.Report) {
	var hours, usd float64
	for _, s := range why.Totals {
		hours += s.GPUHours
		if s.USD != nil {
			usd += *s.USD
		}
	}
	if math.Abs(hours-r.Totals.GPUHours.Idle) > 1e-6*math.Max(1, hours) || math.Abs(usd-r.Totals.GPUCost.AllocatedIdle) > 0.005 {
		fail("idle causes split %.4f GPU-h and $%.2f; the report has %.4f idle GPU-h and $%.2f allocated-idle",
			hours, usd, r.Totals.GPUHours.Idle, r.Totals.GPUCost.AllocatedIdle)
	}
}

// checkUnpriced holds the JSON to docs/report-format.md on unpriced data:
// every row says whether it is unpriced, and an unpriced row's dollars are
// null, never a number (which a reader would take for $0).
func checkUnpriced(data []byte) {
	var raw struct {
		Rows []map[string]any `json:"rows"`
	}
	if err := json.Unmarshal(data, &raw); err != nil {
		fail("decoding rows: %v", err)
	}
	for _, row := range raw.Rows {
		unpriced, ok := row["unpriced"].(bool)
		if _, hours := row["unpriced_gpu_hours"].(float64); !ok || !hours {
			fail("row %v lacks unpriced or unpriced_gpu_hours", row["key"])
		}
		if unpriced && (row["total_cost_usd"] != nil || row["monthly_cost_usd"] != nil) {
			fail("unpriced row %v carries dollars %v; they must be null", row["key"], row["total_cost_usd"])
		}
	}
}

func pct(v *float64) string {
	if v == nil {
		return "n/a"
	}
	return fmt.Sprintf("%.1f%%", *v*100)
}

func fail(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "checkreport: "+format+"\n", args...)
	os.Exit(1)
}
