package ledger

import (
	"fmt"
	"slices"
	"strings"

	"github.com/gpuwise/gpuwise/internal/packing"
	"github.com/gpuwise/gpuwise/internal/rightsize"
)

// consolidateLever packs the workloads onto the fewest and cheapest nodes
// (package packing) and removes the rest. It is where the earlier levers'
// changes become money:
//
//  1. Consolidation alone: the pods as they are now. One action per pool
//     that loses nodes, and one prerequisite action for the MIG re-cuts and
//     moves among kept nodes that make room.
//  2. For each earlier lever that changed workloads, in order: the
//     cheapest plan over every subset of the changing levers so far that
//     includes it. When it is cheaper than the plan before, one "repack"
//     action carries the difference and requires the changes that plan
//     applied; otherwise those changes are not counted, with the reason.
//
// Taking the cheapest over subsets makes the final plan the same whatever
// order the changing levers came in (the packer is a heuristic: more
// right-sizing can pack worse), so the ledger's total does not depend on
// that order; only the split between the repack actions does.
type consolidateLever struct{}

func (consolidateLever) Name() string { return LeverConsolidate }

func (consolidateLever) Propose(m *Model, env *Env) (Proposal, error) {
	c := &consolidation{m: m, env: env, groups: changeGroups(m.Changes), plans: map[int]*packing.Plan{}}
	p0, err := c.solve(0)
	if err != nil {
		return Proposal{}, err
	}
	prop := Proposal{Unrealised: map[string]string{}}
	prop.Changes = c.removals(p0)
	best, bestCost := 0, m.costOf(keptOf(p0))
	for k := range c.groups {
		mask, cost := best, bestCost
		for s := 1 << k; s < 1<<(k+1); s++ {
			pl, err := c.solve(s)
			if err != nil {
				return Proposal{}, err
			}
			if cst := m.costOf(keptOf(pl)); cst < cost {
				mask, cost = s, cst
			}
		}
		if mask == best {
			continue
		}
		prop.Changes = append(prop.Changes, c.repack(k, best, mask))
		best, bestCost = mask, cost
	}
	c.unrealised(best, prop.Unrealised)
	final := c.plans[best]
	prop.Finish = func(m *Model) { m.Plan = final }
	prop.Notes = append(prop.Notes, final.Notes...)
	return prop, nil
}

// group is one lever's workload changes.
type group struct {
	lever   string
	changes []WorkloadChange
}

// changeGroups splits the model's workload changes by lever, in order.
func changeGroups(changes []WorkloadChange) []group {
	var out []group
	for _, ch := range changes {
		if len(out) == 0 || out[len(out)-1].lever != ch.Lever {
			out = append(out, group{lever: ch.Lever})
		}
		out[len(out)-1].changes = append(out[len(out)-1].changes, ch)
	}
	return out
}

// consolidation holds the plans of one consolidation lever run, by the
// bit mask of the change groups they apply.
type consolidation struct {
	m      *Model
	env    *Env
	groups []group
	plans  map[int]*packing.Plan
	end    map[string]bool // see running
}

// solve packs the snapshot with the changes of the groups in mask.
func (c *consolidation) solve(mask int) (*packing.Plan, error) {
	if pl, ok := c.plans[mask]; ok {
		return pl, nil
	}
	o := packing.SnapshotOptions{Prices: c.env.Prices, Shapes: packing.CurrentShapes}
	if mask != 0 {
		o.Shapes, o.Recs = packing.RecommendedShapes, c.recs(mask)
	}
	prob, err := packing.FromSnapshot(c.env.Snapshot, o)
	if err != nil {
		return nil, fmt.Errorf("consolidating: %w", err)
	}
	pl, err := packing.Solve(prob)
	if err != nil {
		return nil, fmt.Errorf("consolidating: %w", err)
	}
	c.plans[mask] = pl
	return pl, nil
}

// recs gathers the right-sizing results of the groups in mask.
func (c *consolidation) recs(mask int) *rightsize.Result {
	r := &rightsize.Result{}
	for k, g := range c.groups {
		if mask&(1<<k) == 0 {
			continue
		}
		for _, ch := range g.changes {
			r.Containers = append(r.Containers, ch.Containers...)
			if ch.GPU != nil {
				r.GPU = append(r.GPU, *ch.GPU)
			}
		}
	}
	return r
}

// keptOf is the set of nodes a plan keeps.
func keptOf(pl *packing.Plan) map[string]bool {
	out := make(map[string]bool, len(pl.Nodes))
	for _, n := range pl.Nodes {
		if n.Keep {
			out[n.Name] = true
		}
	}
	return out
}

// keptGPUs counts the GPUs a plan keeps per model.
func keptGPUs(pl *packing.Plan) map[string]int {
	out := map[string]int{}
	for _, n := range pl.Nodes {
		if n.Keep {
			out[n.Model] += len(n.GPUs)
		}
	}
	for _, n := range pl.Problem().Nodes {
		if _, ok := out[n.Model]; !ok {
			out[n.Model] = 0
		}
	}
	return out
}

// names lists the keys of a set, sorted.
func names(set map[string]bool) []string {
	out := make([]string, 0, len(set))
	for k := range set {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

// nodeTargets turns node names into targets.
func nodeTargets(ns []string) []Target {
	out := make([]Target, len(ns))
	for i, n := range ns {
		out[i] = Target{Kind: "node", Name: n}
	}
	return out
}

// leverList names the levers of a mask: "rightsize+shape".
func (c *consolidation) leverList(mask int) string {
	var out []string
	for k, g := range c.groups {
		if mask&(1<<k) != 0 {
			out = append(out, g.lever)
		}
	}
	return strings.Join(out, "+")
}
