// Command checkreport reads a gpuwise JSON report on stdin and fails unless
// it reconciles and carries the documented fields: the smoke check that
// `make test` runs on the README's commands.
package main

import (
	"encoding/json"
	"fmt"
	"math"
	"os"

	"github.com/gpuwise/gpuwise/internal/cost"
	"github.com/gpuwise/gpuwise/internal/render"
)

func main() {
	// The report's fields, then the optional savings summary that gpuwise
	// demo and report add (docs/report-format.md).
	var in struct {
		cost.Report
		Savings *render.Savings `json:"savings"`
	}
	dec := json.NewDecoder(os.Stdin)
	dec.DisallowUnknownFields()
	if err := dec.Decode(&in); err != nil {
		fail("decoding report: %v", err)
	}
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
	if len(r.Rows) == 0 || r.Totals.GPUs == 0 || r.Totals.GPUHours.Provisioned <= 0 {
		fail("report has no GPUs or rows: %+v", r.Totals)
	}
	fmt.Printf("checkreport: %s: %d GPUs, $%.2f reconciles, utilization %s\n",
		r.Source, r.Totals.GPUs, r.Totals.NodeCost, pct(r.Totals.GPUUtilization))
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
