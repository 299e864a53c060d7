package ledger

import (
	"math/rand/v2"
	"testing"

	"github.com/gpuwise/gpuwise/internal/ledger/lever"
)

// TestGeneratedClustersReconcile checks the ledger's invariants on random
// clusters: Build's own Reconcile passes; the actions add up to before −
// after, none negative; and the total does not depend on the order of the
// levers that commute (right-sizing and shapes: consolidation takes the
// cheapest plan over every subset of their changes).
func TestGeneratedClustersReconcile(t *testing.T) {
	t.Parallel()
	kinds := map[string]int{}
	for seed := range uint64(40) {
		rng := rand.New(rand.NewPCG(seed, 7))
		s := genCluster(t, rng)
		in := Input{Snapshot: s, Prices: testPrices()}
		l, err := Build(in, DefaultOptions())
		if err != nil {
			t.Fatalf("seed %d: %v", seed, err)
		}
		var sum Cents
		for _, a := range l.Actions {
			if a.Saving() < 0 {
				t.Errorf("seed %d: %s saves %s", seed, a.Key, a.Saving())
			}
			sum += a.Saving()
			if a.Saving() > 0 {
				kinds[a.Kind]++
			}
		}
		if sum != l.Before()-l.After() || l.After() > l.Before() {
			t.Errorf("seed %d: actions save %s, before %s after %s", seed, sum, l.Before(), l.After())
		}
		lvs, err := lever.InOrder(LeverShape, LeverRightsize, LeverConsolidate, LeverAutoscale, LeverReclaim, LeverSpot, LeverCommit, LeverQuantize)
		if err != nil {
			t.Fatal(err)
		}
		swapped, err := buildWith(in, DefaultOptions(), lvs)
		if err != nil {
			t.Fatalf("seed %d: swapped: %v", seed, err)
		}
		if swapped.Saving() != l.Saving() {
			t.Errorf("seed %d: shape before rightsize saves %s, rightsize before shape %s", seed, swapped.Saving(), l.Saving())
		}
	}
	// The generator must exercise both kinds of money action, or the
	// checks above prove little.
	if kinds[lever.KindRemoveNodes] < 10 || kinds[lever.KindRepack] < 3 {
		t.Errorf("money actions by kind %v: want at least 10 removals and 3 repacks over 40 clusters", kinds)
	}
	t.Logf("money actions by kind: %v", kinds)
}
