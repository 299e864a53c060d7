package ledger

import (
	"github.com/gpuwise/gpuwise/internal/ledger/lever"

	"strings"
	"testing"
)

// TestPartialReadCapsConfidence (issue 31 H1): a ledger of a partial read
// (a series family missing: with no DCGM series every GPU is unmeasured)
// has the same actions and savings as the complete one, none of them (nor
// their items) high confidence, and each one lowered says why, naming
// what is missing.
func TestPartialReadCapsConfidence(t *testing.T) {
	t.Parallel()
	full := build(t, fixture(t), upToConsolidation())
	high := 0
	for _, a := range full.Actions {
		if a.Confidence == High {
			high++
		}
	}
	if high == 0 {
		t.Fatal("the complete read has no high-confidence action: the test checks nothing")
	}
	v := fixture(t).View()
	v.Partial = []string{"no DCGM series in the window (looked for DCGM_FI_PROF_GR_ENGINE_ACTIVE): every GPU is unmeasured"}
	got := build(t, prepareTest(t, v), upToConsolidation())
	if len(got.Partial) != 1 || got.SavingUSDMonth != full.SavingUSDMonth || len(got.Actions) != len(full.Actions) {
		t.Fatalf("partial ledger: partial %q, $%.2f in %d actions; want the partial note, $%.2f in %d", got.Partial, got.SavingUSDMonth, len(got.Actions), full.SavingUSDMonth, len(full.Actions))
	}
	for i, a := range got.Actions {
		f := full.Actions[i]
		if a.Key != f.Key || a.SavingUSDMonth != f.SavingUSDMonth {
			t.Errorf("action %d: %s $%.2f; the complete read's %s $%.2f", i, a.Key, a.SavingUSDMonth, f.Key, f.SavingUSDMonth)
		}
		if a.Confidence == High {
			t.Errorf("%s is high confidence on a partial read", a.Key)
		}
		if f.Confidence == High && (a.Confidence != Medium || !strings.Contains(a.ConfidenceReason, "the read is partial (no DCGM series in the window)")) {
			t.Errorf("%s: %s, %q; want medium naming the partial read", a.Key, a.Confidence, a.ConfidenceReason)
		}
		for _, it := range a.Items {
			if it.Confidence == High {
				t.Errorf("%s item %s is high confidence on a partial read", a.Key, it.Target)
			}
		}
	}
}

// TestCommitWithheldOnPartialRead (issue 31): a one-year commitment is
// not advised on a partial read: the complete read commits, the partial
// one gives no commit action and says in the not-counted list why, naming
// what is missing and what unblocks it; every other action stays.
func TestCommitWithheldOnPartialRead(t *testing.T) {
	t.Parallel()
	full := build(t, diurnalService(t), options(LeverCommit))
	if len(full.Actions) != 1 || full.Actions[0].Kind != lever.KindCommit {
		t.Fatalf("complete read: %d action(s); want the commitment (the test checks nothing otherwise)", len(full.Actions))
	}
	v := diurnalService(t).View()
	v.Partial = []string{"no DCGM series in the window (looked for DCGM_FI_PROF_GR_ENGINE_ACTIVE): every GPU is unmeasured", "no kube_pod_owner series in the window: owners unknown"}
	got := build(t, prepareTest(t, v), options(LeverCommit))
	if len(got.Actions) != 0 || got.Saving() != 0 {
		t.Fatalf("partial read: %d action(s), %s; want no commitment", len(got.Actions), got.Saving())
	}
	var why string
	for _, nc := range got.NotCounted {
		if nc.Lever == LeverCommit {
			why = nc.Reason
		}
	}
	for _, w := range []string{"withheld", "partial read (no DCGM series in the window and 1 more gap(s)", "advised once the read is complete"} {
		if !strings.Contains(why, w) {
			t.Errorf("not-counted reason %q; want it to say %q", why, w)
		}
	}
}
