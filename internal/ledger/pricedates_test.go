package ledger

import (
	"strings"
	"testing"
)

// Every money action names the sources and dates of the prices it is
// counted at: the consolidation of the worked example at its nodes'
// catalog prices.
func TestActionsNamePriceDates(t *testing.T) {
	t.Parallel()
	l := build(t, fixture(t), upToConsolidation())
	if len(l.Actions) == 0 {
		t.Fatal("no actions")
	}
	for _, a := range l.Actions {
		if a.SavingUSDMonth > 0 && !strings.Contains(a.ConfidenceReason, "counted at the nodes' prices (catalog as of 2026-01-21)") {
			t.Errorf("%s: confidence %q names no price date", a.Key, a.ConfidenceReason)
		}
	}
}
