package ledger

import (
	"testing"

	"github.com/gpuwise/gpuwise/internal/cluster"
	"github.com/gpuwise/gpuwise/internal/ledger/ledgertest"
)

// The fixtures are ledgertest's (shared with the levers' and the
// metrics' tests), under the names these tests have always used.
const (
	weekHours = ledgertest.WeekHours
	a100x4    = ledgertest.A100x4
	h100x1    = ledgertest.H100x1
	l4x2      = ledgertest.L4x2
)

var (
	testPrices  = ledgertest.Prices
	testEntries = ledgertest.Entries
	node        = ledgertest.Node
	pod         = ledgertest.Pod
	gauge       = ledgertest.Gauge
	fixture     = ledgertest.Fixture
	prepareTest = ledgertest.Prepare
	genCluster  = ledgertest.Cluster
)

func build(t *testing.T, s *cluster.Prepared, o Options) *Ledger {
	t.Helper()
	l, err := Build(Input{Snapshot: s, Prices: testPrices()}, o)
	if err != nil {
		t.Fatal(err)
	}
	return l
}

func options(levers ...string) Options {
	o := DefaultOptions()
	o.Levers = levers
	return o
}

// upToConsolidation are the levers the worked example (docs/savings.md)
// walks through; the capacity levers after consolidation have fixtures of
// their own (autoscale_test.go, spot_test.go, commit_test.go).
func upToConsolidation() Options {
	return options(LeverRightsize, LeverShape, LeverConsolidate)
}
