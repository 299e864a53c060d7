package ledger

import (
	"math"
	"strings"
	"testing"
	"time"

	"github.com/gpuwise/gpuwise/internal/capacity"
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
	s := diurnalService(t)
	s.Window.End = s.Window.Start.Add(48 * time.Hour)
	s.Hourly = nil
	for i := range s.Pods {
		s.Pods[i].GPUs[0].Activity = nil
	}
	l := build(t, prepareTest(t, s.Snapshot), options(LeverCommit))
	if l.Saving() != 0 || len(l.NotCounted) != 1 || !strings.Contains(l.NotCounted[0].Reason, "the window has 48 h") {
		t.Errorf("saving %s, not counted %+v; want none and the history reason", l.Saving(), l.NotCounted)
	}
}
