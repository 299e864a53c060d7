package ledger

import (
	"slices"
	"testing"

	"github.com/gpuwise/gpuwise/internal/ledger/lever"
)

// The days 0–30 groundwork on the worked example, by hand: the audit's
// figures as given, effort from the effort table, the actions each one
// unlocks; none of it enters the saving, and the ledger reconciles.
func TestGroundworkIsCountedApartFromTheSaving(t *testing.T) {
	t.Parallel()
	usd, risk := 100.5, 5000.0
	g := &Groundwork{UntaintedNodes: []string{"node/a1", "node/a2"}, NonGPUWorkloads: []string{"Deployment web/shop"}, NonGPUUSDMonth: &usd,
		AdmissionFindings: 3, AdmissionRules: []string{"GW003"}, AdmissionUSDMonth: &risk}
	without := build(t, fixture(t), upToConsolidation())
	l, err := Build(Input{Snapshot: fixture(t), Prices: testPrices(), Groundwork: g}, upToConsolidation())
	if err != nil {
		t.Fatal(err)
	}
	if l.Saving() != without.Saving() || l.SavingUSDMonth != 13140 || l.Reconcile() != nil {
		t.Fatalf("saving %s (without the groundwork %s), want $13,140.00 both; reconcile: %v", l.Saving(), without.Saving(), l.Reconcile())
	}
	byKind := map[string]Foundation{}
	for _, f := range l.Foundations {
		byKind[f.Kind] = f
	}
	var removals, resizes []string
	for _, a := range l.Actions {
		switch {
		case a.Kind == lever.KindRemoveNodes || a.Kind == lever.KindRepack:
			removals = append(removals, a.ID)
		case a.Lever == LeverRightsize || a.Lever == LeverShape:
			resizes = append(resizes, a.ID)
		}
	}
	taint := byKind["taint"]
	// 0.5 h + 2 nodes × 0.25 h + 1 workload × 0.25 h.
	if taint.ID != "F1" || taint.EffortHours != 1.25 || taint.USDMonth == nil || *taint.USDMonth != 100.5 || taint.Targets != 3 ||
		!slices.Equal(taint.Unlocks, removals) || taint.Done {
		t.Errorf("taint %+v, want F1, 1.25 h, $100.50, 3 targets, unlocks %v", taint, removals)
	}
	adm := byKind["admission-warn"]
	if adm.EffortHours != 4 || adm.USDMonth == nil || *adm.USDMonth != 5000 || adm.Targets != 3 || !slices.Equal(adm.Unlocks, resizes) {
		t.Errorf("admission %+v, want 4 h, $5,000 at stake, 3 findings, unlocks %v", adm, resizes)
	}
	vpa := byKind["vpa-off"]
	if vpa.Targets != 4 || vpa.EffortHours != 2.4 || vpa.USDMonth != nil {
		t.Errorf("vpa %+v, want 4 objects, 2 h + 4 × 0.1 h, no dollars", vpa)
	}
	if d := byKind["dcgm"]; !d.Done || d.GPUHours == nil || *d.GPUHours != 0 {
		t.Errorf("dcgm %+v, want done: every GPU is measured", d)
	}
	ph := l.Phases[0]
	if !slices.Equal(ph.Foundations, []string{"F1", "F2", "F3"}) || ph.FoundationEffortHours != 7.65 || ph.EffortHours != 8.25 || l.Payback.EffortHours != 14.75 {
		t.Errorf("phase 1 %+v, payback %+v: want F1–F3 at 7.65 h apart from the actions' 8.25 h and the payback's 14.75 h", ph, l.Payback)
	}
}

// A GPU held a week with no DCGM series: 168 unmeasured GPU-hours on one
// node, 2 h + 0.25 h.
func TestGroundworkDCGMCountsUnmeasuredGPUHours(t *testing.T) {
	t.Parallel()
	s := fixture(t)
	for i := range s.Pods() {
		if s.Pods()[i].Name == "h-1" {
			s.Pods()[i].GPUs[0].Activity = nil
		}
	}
	l := build(t, s, upToConsolidation())
	var d Foundation
	for _, f := range l.Foundations {
		if f.Kind == "dcgm" {
			d = f
		}
	}
	if d.Done || d.Targets != 1 || d.GPUHours == nil || *d.GPUHours != 168 || d.EffortHours != 2.25 || !slices.Contains(l.Phases[0].Foundations, d.ID) {
		t.Errorf("dcgm %+v, want 1 node, 168 GPU-hours, 2.25 h, in phase 1", d)
	}
}
