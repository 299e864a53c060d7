package lever

import (
	"fmt"
	"slices"

	"github.com/gpuwise/gpuwise/internal/packing"
)

// Keys of consolidation actions.
const (
	keyPrepare    = LeverConsolidate + ":" + KindPrepareNodes
	keyRemove     = LeverConsolidate + ":" + KindRemoveNodes + ":"
	keyRepack     = LeverConsolidate + ":" + KindRepack + ":"
	planCurrent   = "gpuwise generate plan --shapes current -d out/"
	planRightsize = "gpuwise generate plan -d out/"
	removeScript  = "plan/remove-nodes.sh"
	migConfig     = "mig-parted/configmap.yaml"
	tsConfig      = "time-slicing/configmap.yaml"
)

// removals turns consolidation alone into actions: one per pool that loses
// nodes, each requiring the preparation of the kept nodes (re-cuts, moves
// among them) when it moves pods. It removes the nodes of d only (the
// plan's removals that the final state removes too); the pods of the
// plan's other removed nodes stay where they are. With prepare false (the
// plan's re-cuts do not fit the final state) d holds empty nodes only and
// nothing on the kept nodes changes.
func (c *consolidation) removals(pl *packing.Plan, d map[string]bool, prepare bool) []Change {
	byPool := map[string][]string{}
	for _, n := range pl.Nodes {
		if d[n.Name] {
			byPool[n.Pool] = append(byPool[n.Pool], n.Name)
		}
	}
	keep := keptOf(pl)
	pools := map[string]string{}
	for _, n := range pl.Nodes {
		pools[n.Name] = n.Pool
	}
	moves := map[string]int{}
	among := 0
	for _, mv := range pl.Moves {
		switch {
		case d[mv.From]:
			moves[pools[mv.From]]++
		case keep[mv.From]:
			among++
		}
	}
	var out []Change
	prep := prepare && (among > 0 || len(pl.Recuts) > 0)
	if prep {
		out = append(out, c.prepare(pl, among))
	}
	kept := c.stateGPUs(d)
	for _, pp := range pl.Pools {
		if len(byPool[pp.Pool]) == 0 {
			continue
		}
		ch := c.removePool(pp, byPool[pp.Pool], moves[pp.Pool], kept)
		if prep && moves[pp.Pool] > 0 {
			ch.Requires = []string{keyPrepare}
		}
		out = append(out, ch)
	}
	return out
}

// removePool is the action that drains and deletes a pool's removed
// nodes.
func (c *consolidation) removePool(pp packing.PoolPlan, nodes []string, moves int, kept map[string]int) Change {
	var usdPerHour float64
	gpus := 0
	for _, n := range nodes {
		if mn := c.m.Node(n); mn != nil {
			gpus += mn.GPUs
			if mn.Priced {
				usdPerHour += mn.USDPerHour
			}
		}
	}
	a := Action{Key: keyRemove + pp.Pool, Kind: KindRemoveNodes, Target: pp.Pool,
		Targets:     append([]Target{{Kind: "pool", Name: pp.Pool}}, nodeTargets(nodes)...),
		Title:       fmt.Sprintf("Remove %d of %d %s node(s) in pool %s", len(nodes), pp.Nodes, pp.Model, pp.Pool),
		EffortHours: effortAction + float64(len(nodes))*effortRemoveNode + float64(moves)*effortMove,
		Why:         removeWhy(nodes, moves),
		Evidence: []Evidence{
			{Name: "nodes_removed", Value: float64(len(nodes)), Unit: "nodes"}, {Name: "gpus_removed", Value: float64(gpus), Unit: "GPUs"},
			{Name: "pods_moved", Value: float64(moves), Unit: "pods"}, {Name: "node_price", Value: round2(usdPerHour), Unit: "USD/hour"},
		},
		Artefacts: []Artefact{{Command: planCurrent, Files: []string{removeScript}}},
	}
	var ev []Evidence
	a.Confidence, a.ConfidenceReason, ev = c.env.peaks.confidence(kept, []string{pp.Model}, nil)
	a.Evidence = append(a.Evidence, ev...)
	a.Risk, a.RiskReason = removalRisk(moves, a.Confidence)
	return Change{Action: a, Apply: func(m *Model) {
		for _, n := range nodes {
			if mn := m.Node(n); mn != nil {
				mn.Kept = false
			}
		}
	}}
}

func removeWhy(nodes []string, moves int) string {
	if moves == 0 {
		return fmt.Sprintf("%s hold(s) no workload pod at the window's end (DaemonSets aside); drain and delete", ListText(nodes))
	}
	return fmt.Sprintf("gpuwise plan packs the %d pod(s) on %s onto the kept nodes as they are (GPU model, taints, selectors, CPU and memory, MIG rules all hold); drain and delete the nodes",
		moves, ListText(nodes))
}

// removalRisk: draining evicts pods; removing capacity the window's peak
// needed risks pending pods.
func removalRisk(moves int, conf Level) (Level, string) {
	switch {
	case conf == Low:
		return High, "the window's peak GPU demand exceeded what the plan keeps: pods may wait for capacity unless an autoscaler adds nodes back"
	case moves == 0:
		return Low, "the nodes hold no workload pods (DaemonSets aside)"
	}
	return Medium, fmt.Sprintf("draining evicts %d pod(s); they restart on the kept nodes", moves)
}

// prepare is the prerequisite of the removals: MIG re-cuts and moves among
// kept nodes that make room. It saves nothing on its own.
func (c *consolidation) prepare(pl *packing.Plan, moves int) Change {
	nodes := map[string]bool{}
	for _, r := range pl.Recuts {
		nodes[r.Node] = true
	}
	a := Action{Key: keyPrepare, Kind: KindPrepareNodes, Target: fmt.Sprintf("%d kept node(s)", len(nodes)),
		Targets:     nodeTargets(names(nodes)),
		Title:       fmt.Sprintf("Make room on kept nodes: %d MIG GPU re-cut(s) on %d node(s), %d pod move(s) among kept nodes", len(pl.Recuts), len(nodes), moves),
		EffortHours: effortAction + float64(len(nodes))*effortNodeConfig + float64(moves)*effortMove,
		Why:         "the consolidation plan re-cuts these MIG GPUs (mig-parted clears a GPU's instances: drain first) and moves pods between kept nodes so that the removed nodes' pods fit",
		Evidence: []Evidence{{Name: "gpu_recuts", Value: float64(len(pl.Recuts)), Unit: "GPUs"}, {Name: "recut_nodes", Value: float64(len(nodes)), Unit: "nodes"},
			{Name: "pods_moved", Value: float64(moves), Unit: "pods"}},
		Confidence: High, ConfidenceReason: "inventory and requests at the window's end; no usage data needed",
		Risk: Medium, RiskReason: "re-cut GPUs are drained: their pods restart",
		Artefacts: []Artefact{{Command: planCurrent, Files: planFiles(pl, false)}},
	}
	return Change{Action: a, Apply: func(*Model) {}}
}

// planFiles are the generate plan files an action uses.
func planFiles(pl *packing.Plan, remove bool) []string {
	var out []string
	if len(pl.Recuts) > 0 {
		out = append(out, migConfig, "mig-parted/apply.sh")
	}
	if slices.ContainsFunc(pl.Nodes, func(n packing.NodePlan) bool { return n.Keep && n.TimeSlicingReplicas > 0 }) {
		out = append(out, tsConfig, "time-slicing/apply.sh")
	}
	if remove {
		out = append(out, removeScript)
	}
	return out
}
