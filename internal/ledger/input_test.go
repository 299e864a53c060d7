package ledger

import (
	"bytes"
	"encoding/json"
	"math/rand/v2"
	"testing"

	"github.com/gpuwise/gpuwise/internal/cost"
)

// TestGivenReportGivesTheSameLedger: a caller's default cost report of the
// allocation it passes (the report command's) makes the same ledger as the
// one the ledger would build itself.
func TestGivenReportGivesTheSameLedger(t *testing.T) {
	t.Parallel()
	for seed := range uint64(8) {
		s := genCluster(t, rand.New(rand.NewPCG(seed, 23)))
		a, err := cost.Allocate(s, testPrices(), cost.DefaultOptions())
		if err != nil {
			t.Fatal(err)
		}
		rep, err := cost.NewReport(a, cost.DefaultReportOptions())
		if err != nil {
			t.Fatal(err)
		}
		var got [2][]byte
		for i, in := range []Input{{Snapshot: s, Prices: testPrices(), Allocation: a}, {Snapshot: s, Prices: testPrices(), Allocation: a, Report: rep}} {
			l, err := Build(in, DefaultOptions())
			if err != nil {
				t.Fatal(err)
			}
			if got[i], err = json.Marshal(l); err != nil {
				t.Fatal(err)
			}
		}
		if !bytes.Equal(got[0], got[1]) {
			t.Errorf("seed %d: the ledger with the caller's report differs from its own:\n%s\n%s", seed, got[0], got[1])
		}
	}
}
