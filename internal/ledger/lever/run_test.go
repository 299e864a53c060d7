package lever

import (
	"bytes"
	"encoding/json"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/gpuwise/gpuwise/internal/capacity"
	"github.com/gpuwise/gpuwise/internal/ledger/ledgertest"
	"github.com/gpuwise/gpuwise/internal/rightsize"
)

// TestPackingAheadGivesTheSameLedger: the current shapes packed beside
// right-sizing make the actions the consolidation lever makes packing them
// itself.
func TestPackingAheadGivesTheSameLedger(t *testing.T) {
	t.Parallel()
	lvs, _ := Levers(nil)
	for seed := range uint64(8) {
		s := ledgertest.Cluster(t, rand.New(rand.NewPCG(seed, 29)))
		in := Setup{Snapshot: s, Prices: ledgertest.Prices(), Policy: rightsize.DefaultPolicy(), Autoscale: capacity.DefaultAutoscalePolicy(),
			Commit: capacity.DefaultCommitPolicy(), Reclaim: capacity.DefaultReclaimPolicy(), Region: capacity.DefaultRegionPolicy()}
		var err error
		if in.Capacity, err = CapacityFromSnapshot(s, in.Autoscale, in.Reclaim); err != nil {
			t.Fatal(err)
		}
		var got [2][]byte
		for i, ahead := range []bool{false, true} {
			env, m, err := prepare(in, lvs, ahead)
			if err != nil {
				t.Fatal(err)
			}
			if (env.packed != nil) != ahead {
				t.Fatalf("packed ahead: %v, want %v", env.packed != nil, ahead)
			}
			l, err := Run(lvs, m, env)
			if err != nil {
				t.Fatal(err)
			}
			if got[i], err = json.Marshal(l); err != nil {
				t.Fatal(err)
			}
		}
		if !bytes.Equal(got[0], got[1]) {
			t.Errorf("seed %d: the actions with the plan packed ahead differ:\n%s\n%s", seed, got[0], got[1])
		}
	}
	if packs([]Lever{rightsizeLever{}}) || !packs(lvs) {
		t.Error("packs: only a lever list with consolidation packs ahead")
	}
}

// TestReconcileRefusesLeversOffByACent: Reconcile refuses an action whose
// saving is not its model's drop, a negative action, and actions or lever
// totals that do not add up to before − after.
func TestReconcileRefusesLeversOffByACent(t *testing.T) {
	t.Parallel()
	good := func() ([]Action, []LeverResult) {
		return []Action{{ID: "A1", Key: "k1", ModelBeforeUSDMonth: 100, ModelAfterUSDMonth: 90, saving: 1000},
				{ID: "A2", Key: "k2", ModelBeforeUSDMonth: 90, ModelAfterUSDMonth: 90}},
			[]LeverResult{{Name: "x", saving: 1000}}
	}
	if as, lrs := good(); Reconcile(as, lrs, 10000, 9000) != nil {
		t.Fatalf("a reconciling ledger is refused: %v", Reconcile(as, lrs, 10000, 9000))
	}
	for name, tamper := range map[string]func(as []Action, lrs []LeverResult){
		"an action a cent richer": func(as []Action, _ []LeverResult) { as[0].saving++ },
		"a negative action":       func(as []Action, _ []LeverResult) { as[1].saving = -1 },
		"a lever total off":       func(_ []Action, lrs []LeverResult) { lrs[0].saving++ },
		"a model a cent richer":   func(as []Action, _ []LeverResult) { as[0].ModelBeforeUSDMonth += 0.01 },
	} {
		as, lrs := good()
		tamper(as, lrs)
		if err := Reconcile(as, lrs, 10000, 9000); err == nil || !strings.Contains(err.Error(), "does not reconcile") {
			t.Errorf("%s: Reconcile = %v, want a refusal", name, err)
		}
	}
	if as, lrs := good(); Reconcile(as, lrs, 10000, 9001) == nil {
		t.Error("after a cent higher: Reconcile accepts it")
	}
}
