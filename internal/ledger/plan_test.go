package ledger

import (
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestPlanOrderPhasesAndPayback: in the fixture, phase 1 holds the two
// removals (best saving per hour first) and the CPU right-sizing bundle
// (four 1 h resizes, then the 2 h re-pack they enable); phase 2 the MIG
// shapes and their re-pack. Payback = bundle hours × $100 ÷ daily saving.
func TestPlanOrderPhasesAndPayback(t *testing.T) {
	t.Parallel()
	l := build(t, fixture(t), upToConsolidation())
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
		{"rightsize:resize", 1, 2.5, -1},                                        // 0.5 h + 4 × 0.5 h
		{"consolidate:repack:rightsize", 1, 4.5, 9.4},                           // (2.5 h + 2 h) × $100 ÷ $48.00/d
		{"shape:mig", 2, 2.5, -1},                                               // 0.5 h + 2 × 1 h
		{"consolidate:repack:shape", 2, 6.5, 6.8},                               // (2.5 h + 4 h) × $100 ÷ $96.00/d
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("plan (-want +got):\n%s", diff)
	}
	wantPhases := []Phase{
		// The groundwork (groundwork_test.go): no audit passed, so the
		// taint and admission steps are listed unaudited, with no effort;
		// VPA Off objects for the 4 right-sized workloads: 2 h + 4 × 0.1 h.
		{Phase: 1, Days: "0-30", Name: "quick wins", Actions: []string{"A1", "A2", "A3", "A4"}, SavingUSDMonth: 10220, EffortHours: 8.25,
			Foundations: []string{"F1", "F2", "F3"}, FoundationEffortHours: 2.4},
		{Phase: 2, Days: "31-60", Name: "configuration changes", Actions: []string{"A5", "A6"}, SavingUSDMonth: 2920, EffortHours: 6.5, Foundations: []string{}},
		{Phase: 3, Days: "61-90", Name: "capacity changes", Actions: []string{}, SavingUSDMonth: 0, Foundations: []string{}},
	}
	if diff := cmp.Diff(wantPhases, l.Phases); diff != "" {
		t.Errorf("phases (-want +got):\n%s", diff)
	}
	if l.Payback.EffortHours != 14.75 || l.Payback.OneTimeUSD != 1475 || l.Payback.Days == nil || *l.Payback.Days != 3.4 {
		t.Errorf("payback %+v, want 14.75 h, $1,475, 3.4 days", l.Payback)
	}
	wantFirst := []string{"A1", "A2", "A4"}
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
	l := build(t, fixture(t), upToConsolidation())
	cons, rs := l.Consolidation(), l.RightSizing()
	if cons.SavingUSDMonth != 8760 || rs.SavingUSDMonth != 4380 || cons.LedgerSavingUSDMonth != 13140 {
		t.Errorf("consolidation %v, right-sizing %v of %v; want 8760 and 4380 of 13140", cons.SavingUSDMonth, rs.SavingUSDMonth, cons.LedgerSavingUSDMonth)
	}
	if diff := cmp.Diff([]string{"A1", "A2"}, cons.Actions); diff != "" {
		t.Errorf("consolidation actions (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"A3", "A4", "A5", "A6"}, rs.Actions); diff != "" {
		t.Errorf("right-sizing actions (-want +got):\n%s", diff)
	}
}

// TestPaybackDaysAsDocumented: payback divides the monthly saving by the
// days docs/savings.md names, the 730-hour month ÷ 24.
func TestPaybackDaysAsDocumented(t *testing.T) {
	doc, err := os.ReadFile("../../docs/savings.md")
	if err != nil {
		t.Fatal(err)
	}
	want := fmt.Sprintf("monthly ÷ %.4f", daysPerMonth)
	if !strings.Contains(string(doc), want) {
		t.Errorf("docs/savings.md does not say %q, the divisor payback uses", want)
	}
}
