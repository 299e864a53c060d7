package ledger

import (
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
	p := fixture(t)
	p.Partial = []string{"no DCGM series in the window (looked for DCGM_FI_PROF_GR_ENGINE_ACTIVE): every GPU is unmeasured"}
	got := build(t, p, upToConsolidation())
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
