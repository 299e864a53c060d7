package ledger

import (
	"math"
	"strings"
	"testing"
	"time"

	"github.com/gpuwise/gpuwise/internal/capacity"
	"github.com/gpuwise/gpuwise/internal/pricing"
)

// A 24×7 baseline: the diurnal service's four H100 nodes ($4/h) run all
// month without autoscaling: use is $16/h every hour. The commitment is
// capped at 65% of it, $10.40/h, fully used, billed at 70%: saves 30% of
// $10.40 × 730 h = $2,277.60 a month.
func TestCommitSteadyBaseline(t *testing.T) {
	t.Parallel()
	l := build(t, diurnalService(t), options(LeverCommit))
	if want := CentsOf(0.30 * 10.40 * HoursPerMonth); l.Saving() != want || len(l.Actions) != 1 || l.Actions[0].Phase != 3 {
		t.Errorf("commit saves %s in %d action(s) (phase %d), want %s in one capacity change", l.Saving(), len(l.Actions), l.Actions[0].Phase, want)
	}
}

// After autoscaling, the nodes run nested hours: one all month, two half
// of it and one a quarter (the diurnal service's need). The commitment's
// saving is computed on that curve and telescopes on top of autoscaling.
func TestCommitOnTopOfAutoscale(t *testing.T) {
	t.Parallel()
	s := diurnalService(t)
	scaled := build(t, s, options(LeverAutoscale))
	both := build(t, s, options(LeverAutoscale, LeverCommit))
	var commit Cents
	for _, lr := range both.Levers {
		if lr.Name == LeverCommit {
			commit = lr.Saving()
		}
	}
	if commit <= 0 || both.Saving() != scaled.Saving()+commit {
		t.Errorf("autoscale %s, autoscale+commit %s with commit %s: want a positive commitment on top", scaled.Saving(), both.Saving(), commit)
	}
	alone := build(t, s, options(LeverCommit))
	if commit >= alone.Saving() {
		t.Errorf("commit after autoscaling saves %s, alone %s: want less (less steady use left)", commit, alone.Saving())
	}
}

func TestBestCommit(t *testing.T) {
	t.Parallel()
	// Use $10/h half the month and $2/h the other half: mean $6, cap $3.90.
	// At L ≤ 2 every committed dollar is used; between 2 and 3.90 half of
	// it, which does not pay at 30% off (0.5 < 0.7): L = 2.
	c := capacity.BestCommit([]capacity.Use{{Share: 0.5, USDPerHour: 10}, {Share: 0.5, USDPerHour: 2}}, 0.30, 0.65)
	if c.LevelUSDPerHour != 2 || c.SavingUSDPerHour < 0.6-1e-9 || c.SavingUSDPerHour > 0.6+1e-9 {
		t.Errorf("level %g saving %g, want 2 and 0.6", c.LevelUSDPerHour, c.SavingUSDPerHour)
	}
	// At 60% off, half-used dollars pay: the cap binds.
	if c := capacity.BestCommit([]capacity.Use{{Share: 0.5, USDPerHour: 10}, {Share: 0.5, USDPerHour: 2}}, 0.60, 0.65); math.Abs(c.LevelUSDPerHour-3.9) > 1e-9 {
		t.Errorf("level %g at 60%% off, want the cap %g", c.LevelUSDPerHour, 0.65*6)
	}
}

// A year's commitment is never sized on less than three days: the live
// tier's one-hour window has no commit action, only the reason.
func TestCommitNeedsHistory(t *testing.T) {
	t.Parallel()
	s := diurnalService(t).View()
	s.Window.End = s.Window.Start.Add(48 * time.Hour)
	s.Hourly = nil
	for i := range s.Pods {
		s.Pods[i].GPUs[0].Activity = nil
	}
	l := build(t, prepareTest(t, s), options(LeverCommit))
	if l.Saving() != 0 || len(l.NotCounted) != 1 || !strings.Contains(l.NotCounted[0].Reason, "the window has 48 h") {
		t.Errorf("saving %s, not counted %+v; want none and the history reason", l.Saving(), l.NotCounted)
	}
}

// billed is the test catalog with a bill's word on commitments: the
// discount its savings plan realised and the part of each node's cost it
// already covers (the app's prices with --bill).
type billed struct {
	*pricing.Catalog
	discount float64
	covered  map[string]float64
}

func (b billed) CommitmentDiscount() (float64, string, bool) {
	return b.discount, "bill t.csv, sp1: $60.00 amortized for $100.00 list, charges up to 2026-11-07", b.discount > 0
}

func (b billed) CommittedShare(node string) float64 { return b.covered[node] }

// With a bill, the commitment prices from the discount its commitments
// realised (40%, not the policy's 30%) and leaves out what they already
// cover: h1's rate is half committed, so the curve is $2 + 3 × $4 =
// $14/h all month; the cap is 65% of it, $9.10/h, fully used: 40% of
// $9.10 × 730 h = $2,657.20 a month.
func TestCommitFromBill(t *testing.T) {
	t.Parallel()
	prices := billed{Catalog: testPrices(), discount: 0.40, covered: map[string]float64{"h1": 0.5}}
	l, err := Build(Input{Snapshot: diurnalService(t), Prices: prices}, options(LeverCommit))
	if err != nil {
		t.Fatal(err)
	}
	if want := CentsOf(0.40 * 9.10 * HoursPerMonth); l.Saving() != want || len(l.Actions) != 1 {
		t.Fatalf("commit from the bill saves %s in %d action(s), want %s", l.Saving(), len(l.Actions), want)
	}
	a := l.Actions[0]
	for _, want := range []string{"40% off", "$9.10/h"} {
		if !strings.Contains(a.Title, want) {
			t.Errorf("title %q lacks %q", a.Title, want)
		}
	}
	for _, want := range []string{"catalog as of ", "the 40.0% the bill's commitments realised (bill t.csv, sp1: $60.00 amortized for $100.00 list, charges up to 2026-11-07)",
		"$2.00/h of the nodes' use the bill's commitments already cover is left out"} {
		if !strings.Contains(a.ConfidenceReason, want) {
			t.Errorf("confidence %q lacks %q", a.ConfidenceReason, want)
		}
	}
	// Without the bill's word the policy's 30% applies to all $16/h.
	plain := build(t, diurnalService(t), options(LeverCommit))
	if want := CentsOf(0.30 * 10.40 * HoursPerMonth); plain.Saving() != want || !strings.Contains(plain.Actions[0].ConfidenceReason, "the policy's 30%") {
		t.Errorf("without a bill: %s (%q), want %s at the policy's 30%%", plain.Saving(), plain.Actions[0].ConfidenceReason, want)
	}
}
