package ledger

import (
	"encoding/json"
	"math/rand/v2"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/gpuwise/gpuwise/internal/cluster"
	"github.com/gpuwise/gpuwise/internal/ledger/lever"
)

// The consolidation lever packs the subsets of the changing levers
// concurrently: the ledger must be the one the sequential search gives,
// whichever packing finishes first (run under -race, this also checks
// that the packings share nothing they write).
func TestConcurrentPackingIsSequential(t *testing.T) {
	t.Parallel()
	clusters := map[string]*cluster.Prepared{"fixture": fixture(t)}
	for seed := range uint64(12) {
		clusters["generated "+string(rune('a'+seed))] = genCluster(t, rand.New(rand.NewPCG(seed, 7)))
	}
	repacks := 0
	for name, s := range clusters {
		seq, par := DefaultOptions(), DefaultOptions()
		seq.Workers, par.Workers = 1, 4
		want := ledgerJSON(t, build(t, s, seq))
		for range 2 {
			l := build(t, s, par)
			if d := cmp.Diff(want, ledgerJSON(t, l)); d != "" {
				t.Errorf("%s: concurrent packing changed the ledger (-sequential +concurrent):\n%s", name, d)
			}
			for _, a := range l.Actions {
				if a.Kind == lever.KindRepack {
					repacks++
				}
			}
		}
	}
	// The subsets must matter somewhere, or the comparison proves little.
	if repacks == 0 {
		t.Error("no ledger repacks: the subsets' plans never differ")
	}
}

func ledgerJSON(t *testing.T, l *Ledger) string {
	t.Helper()
	b, err := json.MarshalIndent(l, "", " ")
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
