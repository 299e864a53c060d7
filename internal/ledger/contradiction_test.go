package ledger_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/gpuwise/gpuwise/internal/cluster"
	"github.com/gpuwise/gpuwise/internal/ledger"
	"github.com/gpuwise/gpuwise/internal/pricing"
	"github.com/gpuwise/gpuwise/internal/sim"
)

// TestNoActionContradictsAnother is the ledger's consistency property on
// the simulated cluster over seeds and scales (1, 5, 20 and 104 cells, the
// largest with one seed: it is the expensive one): no action removes,
// scales or reshapes what another action keeps or changes, and every
// action's targets exist after the actions before it. Concretely, in the
// order the ledger lists them:
//
//   - every node target is a GPU node alive at the window's end (the
//     modelled cluster) and not removed by an earlier action;
//   - a node is removed (remove-nodes, repack) by at most one action, and
//     no other action names a removed node at all — not autoscaling,
//     spot, region, nor the re-cuts that prepare kept nodes — whatever
//     order they are listed in;
//   - no action keeps "instead" a node another removes;
//   - a workload is reshaped (MIG, time-slicing, a cheaper model) by at
//     most one action, and no workload is both autoscaled and reclaimed;
//   - the nodes after the ledger are the nodes before minus the removed.
func TestNoActionContradictsAnother(t *testing.T) {
	t.Parallel()
	catalog := pricing.Embedded()
	cases := []struct{ scale, seeds int }{{1, 6}, {5, 3}, {20, 2}, {104, 1}}
	checked := 0
	for _, c := range cases {
		for seed := range c.seeds {
			cfg := sim.DefaultConfig()
			cfg.Seed, cfg.Scale = uint64(seed+1), c.scale
			cfg.Window, cfg.Step = 7*24*time.Hour, 5*time.Minute
			if c.scale >= 20 {
				cfg.Step = 15 * time.Minute // the property is about the plan, not the sampling
			}
			s, err := sim.Generate(cfg)
			if err != nil {
				t.Fatal(err)
			}
			p, err := cluster.Prepare(s)
			if err != nil {
				t.Fatal(err)
			}
			l, err := ledger.Build(ledger.Input{Snapshot: p, Prices: catalog}, ledger.DefaultOptions())
			if err != nil {
				t.Fatalf("scale %d seed %d: %v", c.scale, cfg.Seed, err)
			}
			removed := checkContradictions(t, fmt.Sprintf("scale %d seed %d", c.scale, cfg.Seed), p, l)
			if l.NodesAfter != l.NodesBefore-removed {
				t.Errorf("scale %d seed %d: %d nodes before, %d removed by actions, but %d after", c.scale, cfg.Seed, l.NodesBefore, removed, l.NodesAfter)
			}
			checked += len(l.Actions)
			t.Logf("scale %d seed %d: %d actions, %d nodes removed, $%.2f/month saved", c.scale, cfg.Seed, len(l.Actions), removed, l.SavingUSDMonth)
		}
	}
	if checked < 100 {
		t.Errorf("only %d actions checked: the property proves little", checked)
	}
}

// checkContradictions applies the property to one ledger and returns how
// many nodes its actions remove.
func checkContradictions(t *testing.T, name string, p *cluster.Prepared, l *ledger.Ledger) int {
	t.Helper()
	alive := map[string]bool{}
	for i := range p.Nodes() {
		if n := &p.Nodes()[i]; n.Deleted.IsZero() || n.Deleted.After(p.Window().End) {
			alive[n.Name] = true
		}
	}
	removedBy := map[string]string{}
	for _, a := range l.Actions {
		if a.Kind != "remove-nodes" && a.Kind != "repack" {
			continue
		}
		for _, tg := range a.Targets {
			if tg.Kind != "node" {
				continue
			}
			if by, ok := removedBy[tg.Name]; ok {
				t.Errorf("%s: %s removes node %s that %s removes already", name, a.ID, tg.Name, by)
			}
			removedBy[tg.Name] = a.ID
		}
		if strings.Contains(a.Why, "; keep ") && strings.Contains(a.Why, "instead") {
			t.Errorf("%s: %s keeps nodes instead of others: %s", name, a.ID, a.Why)
		}
	}
	reshaped, autoscaled, reclaimed := map[string]string{}, map[string]string{}, map[string]string{}
	for _, a := range l.Actions {
		for _, tg := range a.Targets {
			switch tg.Kind {
			case "node":
				if !alive[tg.Name] {
					t.Errorf("%s: %s (%s) names node %s, not a node of the cluster at the window's end", name, a.ID, a.Kind, tg.Name)
				}
				if by, ok := removedBy[tg.Name]; ok && by != a.ID {
					t.Errorf("%s: %s (%s) names node %s that %s removes", name, a.ID, a.Kind, tg.Name, by)
				}
			case "workload":
				switch a.Kind {
				case "mig", "time-slice", "cheaper-model":
					if by, ok := reshaped[tg.Name]; ok {
						t.Errorf("%s: %s reshapes %s that %s reshapes already", name, a.ID, tg.Name, by)
					}
					reshaped[tg.Name] = a.ID
				case "autoscale-workloads":
					autoscaled[tg.Name] = a.ID
				case "reclaim":
					reclaimed[tg.Name] = a.ID
				}
			}
		}
	}
	for w, by := range reclaimed {
		if as, ok := autoscaled[w]; ok {
			t.Errorf("%s: %s reclaims %s that %s autoscales", name, by, w, as)
		}
	}
	return len(removedBy)
}
