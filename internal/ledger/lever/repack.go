package lever

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"github.com/gpuwise/gpuwise/internal/packing"
)

// repack is the action that packs with the changes of mask instead of
// prev (-1: nothing removed yet): the money the k-th changing lever's
// changes (with any earlier ones the cheaper plan now uses) realise. It
// removes the nodes of d from what is left after the nodes gone already,
// and requires every change the plan of mask applies.
func (c *consolidation) repack(prev, mask int, d, gone map[string]bool) Change {
	pl := c.plans[mask]
	var old *packing.Plan
	if prev >= 0 {
		old = c.plans[prev]
	}
	after := union(gone, d)
	removed := names(d)
	was, left := c.left(gone), c.left(after)
	requires, applied := c.requires(mask)
	moves := newMoves(pl, old)
	recutNodes := map[string]bool{}
	for _, r := range pl.Recuts {
		recutNodes[r.Node] = true
	}
	levers := c.leverList(mask &^ max(prev, 0))
	a := Action{Key: keyRepack + levers, Kind: KindRepack, Target: "GPU nodes: " + ListText(removed),
		Targets: nodeTargets(removed),
		Title:   fmt.Sprintf("Re-pack with the %s changes: %d → %d GPU nodes", strings.ReplaceAll(levers, "+", " and "), was, left),
		EffortHours: effortAction + float64(len(removed))*effortRemoveNode + float64(moves)*effortMove +
			float64(len(recutNodes))*effortNodeConfig,
		Why: fmt.Sprintf("with %d right-sized change(s) applied, gpuwise plan needs %d node(s) instead of %d; remove %s",
			applied, left, was, ListText(removed)),
		Evidence: []Evidence{
			{Name: "nodes_before", Value: float64(was), Unit: "nodes"}, {Name: "nodes_after", Value: float64(left), Unit: "nodes"},
			{Name: "changes_applied", Value: float64(applied), Unit: "workloads"}, {Name: "pods_moved", Value: float64(moves), Unit: "pods"},
			{Name: "gpu_recuts", Value: float64(len(pl.Recuts)), Unit: "GPUs"},
		},
		Artefacts: []Artefact{{Command: planRightsize, Files: planFiles(pl, true)}},
	}
	var ev []Evidence
	a.Confidence, a.ConfidenceReason, ev = c.env.peaks.confidence(c.stateGPUs(after), c.models(removed), c.reshapes(mask))
	a.Evidence = append(a.Evidence, ev...)
	a.Risk, a.RiskReason = removalRisk(moves, a.Confidence)
	if mask != 1<<len(c.groups)-1 {
		a.Why += fmt.Sprintf("; note: `gpuwise generate plan` writes the plan with every right-sized change, this one applies the %s changes only", c.leverList(mask))
	}
	return Change{Action: a, Requires: requires, Apply: func(m *Model) {
		for _, n := range removed {
			if mn := m.Node(n); mn != nil {
				mn.Kept = false
			}
		}
	}}
}

// left counts the modelled nodes not in gone.
func (c *consolidation) left(gone map[string]bool) int {
	n := 0
	for i := range c.m.Nodes {
		if c.m.Nodes[i].Kept && !gone[c.m.Nodes[i].Name] {
			n++
		}
	}
	return n
}

// requires are the grouped actions whose workload changes the plan of mask
// applies, and how many workloads that is.
func (c *consolidation) requires(mask int) ([]string, int) {
	var out []string
	applied := 0
	for g := range c.groups {
		if mask&(1<<g) == 0 {
			continue
		}
		for _, ch := range c.groups[g].changes {
			if c.applied(ch, mask) {
				applied++
				if !slices.Contains(out, ch.Group) {
					out = append(out, ch.Group)
				}
			}
		}
	}
	return out, applied
}

// reshapes are the planned shapes of the workloads whose GPU change a
// plan applies, for the demand check.
func (c *consolidation) reshapes(mask int) map[string]reshape {
	out := map[string]reshape{}
	for g := range c.groups {
		if mask&(1<<g) == 0 {
			continue
		}
		for _, ch := range c.groups[g].changes {
			if r := ch.GPU; r != nil && r.CurrentFraction > 0 && c.applied(ch, mask) {
				out[ch.Workload] = reshape{model: cmp.Or(r.TargetModel, r.CurrentModel), factor: r.Fraction / r.CurrentFraction}
			}
		}
	}
	return out
}

// newMoves counts the moves of pl that old does not make.
func newMoves(pl, old *packing.Plan) int {
	seen := map[packing.Move]bool{}
	if old != nil {
		for _, mv := range old.Moves {
			seen[mv] = true
		}
	}
	n := 0
	for _, mv := range pl.Moves {
		if !seen[mv] {
			n++
		}
	}
	return n
}

// models are the GPU models of the named nodes.
func (c *consolidation) models(nodes []string) []string {
	set := map[string]bool{}
	for _, n := range nodes {
		if mn := c.m.Node(n); mn != nil {
			set[mn.GPUModel] = true
		}
	}
	return names(set)
}

// applied reports whether a plan uses a workload change: a GPU shape the
// plan applied to at least one pod, or requests of a workload running on
// a planned node at the window's end.
func (c *consolidation) applied(ch WorkloadChange, mask int) bool {
	if ch.GPU != nil {
		return c.indexOf(mask).applied[ch.Workload]
	}
	return c.running()[ch.Workload]
}

// running is the set of workloads with a pod running at the window's end
// on a GPU node the planner plans (DaemonSets included: their requests
// take capacity on every node).
func (c *consolidation) running() map[string]bool {
	if c.end != nil {
		return c.end
	}
	c.end = map[string]bool{}
	s := c.env.Snapshot
	planned := map[string]bool{}
	for i := range c.m.Nodes {
		planned[c.m.Nodes[i].Name] = true
	}
	for i := range s.Pods() {
		p := &s.Pods()[i]
		if p.End.IsZero() && (p.Phase == "" || p.Phase == "Running") && planned[p.Node] {
			c.end[p.WorkloadKey()] = true
		}
	}
	return c.end
}

// unrealised says, for every change the final plan does not use, why:
// the planner did not apply it (pinned, reverted, nothing running), or it
// applied it and no node went away. A group left out of the final plan is
// judged on the plan with it added (computed during the search: every
// non-empty subset is, at the step of its last group).
func (c *consolidation) unrealised(best int, out map[string]string) {
	for k, g := range c.groups {
		with := best | 1<<k
		noNode := fmt.Sprintf("the planner applies it, but it frees no node: with the %s changes the plan costs %s/month, without them %s",
			g.lever, c.indexOf(with).cost, c.indexOf(best).cost)
		for _, ch := range g.changes {
			switch {
			case !c.applied(ch, with):
				out[ch.Action] = c.whyNot(ch, with)
			case with != best:
				out[ch.Action] = noNode
			}
		}
	}
}

// whyNot explains a change the plan does not use.
func (c *consolidation) whyNot(ch WorkloadChange, mask int) string {
	if !c.running()[ch.Workload] {
		return "no pod of it runs on a GPU node at the window's end: the plan has nothing to change"
	}
	if why := c.indexOf(mask).why[ch.Workload]; why != "" {
		return why
	}
	return "the plan does not change it"
}

func decisionVerb(d string) string {
	switch d {
	case packing.ShapeNoEffect:
		return "applies it without effect"
	case packing.ShapeUnplaced:
		return "cannot place it"
	}
	return "reverts it"
}
