package cost

import (
	"math"
	"strings"
	"testing"

	"github.com/gpuwise/gpuwise/internal/cluster"
	"github.com/gpuwise/gpuwise/internal/pricing"
	"github.com/gpuwise/gpuwise/internal/sim"
)

func TestParseLowUtil(t *testing.T) {
	t.Parallel()
	for s, want := range map[string]LowUtilOptions{"": {}, "30%:6h": {0.3, 6}, "25%": {0.25, 6}, "50%:90m": {0.5, 1.5}} {
		if got, err := ParseLowUtil(s); err != nil || math.Abs(got.Threshold-want.Threshold) > 1e-12 || got.MinHours != want.MinHours {
			t.Errorf("%q: %+v %v, want %+v", s, got, err, want)
		}
	}
	for _, bad := range []string{"30", "30%:6", "0%:6h", "130%", "30%:-1h", "x%"} {
		if _, err := ParseLowUtil(bad); err == nil || !strings.Contains(err.Error(), "low-util") {
			t.Errorf("%q: error %v, want one naming low-util", bad, err)
		}
	}
}

// TestLowUtilIsTheCostEngines (issue 26.5): at the idle threshold and
// any length, the list's dollars are the report's allocated-idle plus
// unallocated GPU dollars to the cent (one number, one source); at
// 30 %:6h every unit listed has at least 6 hours below 30 %, and a
// longer least time lists no more units.
func TestLowUtilIsTheCostEngines(t *testing.T) {
	t.Parallel()
	snap, err := sim.Generate(sim.DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	p, err := cluster.Prepare(snap)
	if err != nil {
		t.Fatal(err)
	}
	a, err := Allocate(p, pricing.Embedded(), DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	list := func(o LowUtilOptions) *Report {
		ro := DefaultReportOptions()
		ro.LowUtil = o
		r, err := NewReport(a, ro)
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	all := list(LowUtilOptions{Threshold: a.Options.IdleThreshold, MinHours: 1e-9})
	ix := a.Snapshot.Index()
	var below, unheld float64
	for _, u := range all.LowUtilization.Units {
		f := 0.0
		if ref, ok := ix.Units[u.Unit]; ok {
			f = ref.Unit.Fraction
		} else if u.Kind == "uncarved" {
			f = uncarved(a.Snapshot, u.Node)
		}
		below, unheld = below+f*u.HoursBelow, unheld+f*u.HoursUnheld
	}
	if h := all.Totals.GPUHours; math.Abs(below-h.Idle) > 1e-6 || math.Abs(unheld-h.Unallocated) > 1e-6 {
		t.Errorf("at the idle threshold the units' hours below it %.6f and unheld %.6f; the report's idle %.6f and unallocated %.6f GPU-hours",
			below, unheld, h.Idle, h.Unallocated)
	}
	six := list(LowUtilOptions{Threshold: 0.3, MinHours: 6}).LowUtilization
	if len(six.Units) == 0 {
		t.Fatal("no unit under 30% for 6 h in the demo week")
	}
	for _, u := range six.Units {
		_, priced := a.Prices[u.Node]
		if u.HoursBelow+u.HoursUnheld < 6 || u.Node == "" || u.Model == "" || (u.USD != nil) != priced {
			t.Errorf("%+v: want ≥ 6 h below 30%%, its node, model, and $ exactly when its node is priced", u)
		}
		if u.Utilization != nil && u.HoursUnheld == 0 && *u.Utilization > 0.3 && u.HoursBelow >= 168 {
			t.Errorf("%s: mean utilization %.2f over 30%%, yet every hour below it", u.Unit, *u.Utilization)
		}
	}
	if long := list(LowUtilOptions{Threshold: 0.3, MinHours: 100}).LowUtilization; len(long.Units) > len(six.Units) || len(long.Units) == 0 {
		t.Errorf("100 h lists %d units, 6 h %d", len(long.Units), len(six.Units))
	}
}

// uncarved is the share of one GPU of node that its units leave uncovered
// (the demo's uncarved GPUs each leave one share).
func uncarved(s *cluster.Prepared, node string) float64 {
	for _, n := range s.Nodes() {
		if n.Name != node {
			continue
		}
		for _, g := range n.GPUs {
			rest := 1.0
			for _, u := range g.Units {
				rest -= u.Fraction
			}
			if rest > 1e-9 {
				return rest
			}
		}
	}
	return 0
}
