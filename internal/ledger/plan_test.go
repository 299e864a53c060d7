package ledger

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestPlanOrderPhasesAndPayback: in the fixture, phase 1 holds the two
// removals (best saving per hour first) and the CPU right-sizing bundle
// (four 1 h resizes, then the 2 h re-pack they enable); phase 2 the MIG
// shapes and their re-pack. Payback = bundle hours × $100 ÷ daily saving.
func TestPlanOrderPhasesAndPayback(t *testing.T) {
	t.Parallel()
	l := build(t, fixture(t), DefaultOptions())
	type row struct {
		Key     string
		Phase   int
		Bundle  float64
		Payback float64
	}
	var got []row
	for _, a := range l.Actions {
		r := row{a.Key, a.Phase, a.BundleEffortHours, -1}
		if a.PaybackDays != nil {
			r.Payback = *a.PaybackDays
		}
		got = append(got, r)
	}
	want := []row{
		{"consolidate:remove-nodes:test.a100x4/on-demand/A100-80GB", 1, 2, 0.8}, // $200 ÷ ($7,300 ÷ 30.417 d)
		{"consolidate:remove-nodes:test.l4x2/on-demand/L4", 1, 1.75, 3.6},       // $175 ÷ $48.00/d
		{"rightsize:resize:batch/Deployment/l-0", 1, 1, -1},
		{"rightsize:resize:batch/Deployment/l-1", 1, 1, -1},
		{"rightsize:resize:batch/Deployment/l-2", 1, 1, -1},
		{"rightsize:resize:batch/Deployment/l-3", 1, 1, -1},
		{"consolidate:repack:rightsize", 1, 6, 12.5}, // (4 × 1 h + 2 h) × $100 ÷ $48.00/d
		{"shape:mig:inference/Deployment/h-0", 2, 1.5, -1},
		{"shape:mig:inference/Deployment/h-1", 2, 1.5, -1},
		{"consolidate:repack:rightsize+shape", 2, 7, 7.3}, // (2 × 1.5 h + 4 h) × $100 ÷ $96.00/d
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("plan (-want +got):\n%s", diff)
	}
	wantPhases := []Phase{
		{Phase: 1, Days: "0-30", Name: "quick wins", Actions: []string{"A1", "A2", "A3", "A4", "A5", "A6", "A7"}, SavingUSDMonth: 10220, EffortHours: 9.75},
		{Phase: 2, Days: "31-60", Name: "configuration changes", Actions: []string{"A8", "A9", "A10"}, SavingUSDMonth: 2920, EffortHours: 7},
		{Phase: 3, Days: "61-90", Name: "capacity changes", Actions: []string{}, SavingUSDMonth: 0},
	}
	if diff := cmp.Diff(wantPhases, l.Phases); diff != "" {
		t.Errorf("phases (-want +got):\n%s", diff)
	}
	if l.Payback.EffortHours != 16.75 || l.Payback.OneTimeUSD != 1675 || l.Payback.Days == nil || *l.Payback.Days != 3.9 {
		t.Errorf("payback %+v, want 16.75 h, $1,675, 3.9 days", l.Payback)
	}
	wantFirst := []string{"A1", "A2", "A7"}
	for i, f := range l.Summary.First {
		if f.ID != wantFirst[i] {
			t.Errorf("summary action %d is %s, want %s", i, f.ID, wantFirst[i])
		}
	}
}

func TestEngineerRateScalesPayback(t *testing.T) {
	t.Parallel()
	o := DefaultOptions()
	o.EngineerUSDPerHour = 0
	l := build(t, fixture(t), o)
	if l.Payback.OneTimeUSD != 0 || l.Payback.Days == nil || *l.Payback.Days != 0 {
		t.Errorf("free engineering: payback %+v, want $0 and 0 days", l.Payback)
	}
}

// TestParts: consolidation alone and right-sizing realised by packing
// split the fixture's ledger, each with its actions and prerequisites.
func TestParts(t *testing.T) {
	t.Parallel()
	l := build(t, fixture(t), DefaultOptions())
	cons, rs := l.Consolidation(), l.RightSizing()
	if cons.SavingUSDMonth != 8760 || rs.SavingUSDMonth != 4380 || cons.LedgerSavingUSDMonth != 13140 {
		t.Errorf("consolidation %v, right-sizing %v of %v; want 8760 and 4380 of 13140", cons.SavingUSDMonth, rs.SavingUSDMonth, cons.LedgerSavingUSDMonth)
	}
	if diff := cmp.Diff([]string{"A1", "A2"}, cons.Actions); diff != "" {
		t.Errorf("consolidation actions (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"A3", "A4", "A5", "A6", "A7", "A8", "A9", "A10"}, rs.Actions); diff != "" {
		t.Errorf("right-sizing actions (-want +got):\n%s", diff)
	}
}
