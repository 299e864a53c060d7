package packing

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/gpuwise/gpuwise/internal/pricing"
)

// plan turns the final slots into a Plan value.
func (s *solver) plan(slots []slot) *Plan {
	pl := &Plan{problem: s.p, Notes: slices.Clone(s.p.Notes)}
	kept := make([]bool, len(s.nodes))
	why := make([]string, len(s.nodes))
	for i := range s.nodes {
		if s.nodes[i].Keep {
			kept[i], why[i] = true, "kept: "+or(s.nodes[i].KeepReason, "marked keep")
		}
	}
	idx := make(map[string]int, len(s.nodes))
	for i := range s.nodes {
		idx[s.nodes[i].Name] = i
	}
	for wi := range s.works {
		k := &s.works[wi]
		sl := slots[wi]
		if sl.node < 0 {
			u := Unplaced{Workload: k.w.ID, Group: k.w.Group, Node: k.w.Node, Demand: k.d, Reason: s.explain(int32(wi))}
			if ni, ok := idx[k.w.Node]; ok && !kept[ni] {
				kept[ni], why[ni] = true, "kept: hosts "+k.w.ID+", which fits nowhere else"
			}
			pl.Unplaced = append(pl.Unplaced, u)
			continue
		}
		kept[sl.node] = true
		p := Placement{Workload: k.w.ID, Group: k.w.Group, Node: s.nodes[sl.node].Name, Demand: k.d, KeptShape: sl.cur}
		for _, g := range sl.gpus {
			p.GPUs = append(p.GPUs, int(g))
		}
		if k.asIs {
			p.CurrentShape = true
			p.Note = fmt.Sprintf("keeps its current shape %s: the planned %s fits on no kept node, and the current shape lets a node go", k.d, k.w.Demand)
			if why := s.revertWhy[int32(wi)]; why != "" {
				p.Note = fmt.Sprintf("keeps its current shape %s instead of the planned %s: %s", k.d, k.w.Demand, why)
			}
		} else if sl.cur {
			p.Note = or(s.fallbackWhy[int32(wi)], k.w.PinReason)
			if p.Note == "" {
				p.Note = "pinned to its node"
			} else if _, fb := s.fallbackWhy[int32(wi)]; fb {
				p.Note = "keeps its current shape and node: the planned shape " + k.w.Demand.String() + " fits nowhere (" + p.Note + ")"
			}
		} else if k.w.Note != "" {
			p.Note = k.w.Note
		}
		pl.Placements = append(pl.Placements, p)
	}
	pl.Nodes = s.nodePlans(slots, kept, why)
	reps := make(map[string]int, len(pl.Nodes))
	recut := map[[2]string]bool{}
	for _, n := range pl.Nodes {
		reps[n.Name] = n.TimeSlicingReplicas
		for _, g := range n.GPUs {
			if g.Recut {
				pl.Recuts = append(pl.Recuts, Recut{Node: n.Name, GPU: g.Index, From: s.p.Nodes[s.nodeIdx[n.Name]].CurrentMIG[g.Index], To: g.Layout})
				recut[[2]string{n.Name, fmt.Sprint(g.Index)}] = true
			}
		}
	}
	for i := range pl.Placements {
		pc := &pl.Placements[i]
		if r := reps[pc.Node]; pc.Demand.Kind == TimeSlice && r > 0 && r < pc.Demand.Replicas {
			pc.GrantedReplicas = r
		}
		w := &s.p.Workloads[idxOf(s, pc.Workload)]
		restart := pc.Demand.Kind == MIG && (!slices.Equal(pc.GPUs, w.CurrentGPUs) || recut[[2]string{pc.Node, fmt.Sprint(pc.GPUs[0])}])
		if m, ok := moveOf(w, *pc, reps[pc.Node], restart); ok {
			pl.Moves = append(pl.Moves, m)
		}
	}
	pl.Pools = poolPlans(pl.Nodes, s.p.Nodes)
	pl.Before, pl.After = s.totals(slots, kept, reps)
	pl.SavingsUSDPerMonth = dollars(pl.Before.usd-pl.After.usd, pl.Before.priced > 0)
	pl.Shapes = s.decisions(pl, slots, reps)
	pl.Notes = append(pl.Notes, s.notes(pl)...)
	return pl
}

func or(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

func idxOf(s *solver, id string) int {
	if s.ids == nil {
		s.ids = make(map[string]int, len(s.p.Workloads))
		for i := range s.p.Workloads {
			s.ids[s.p.Workloads[i].ID] = i
		}
	}
	return s.ids[id]
}

// moveOf compares where and how a pod runs now with the plan. A
// time-sliced pod gets 1/R of a GPU on a node time-sliced R ways, whatever
// smaller share it asked for; the planner's class is no pod change.
//
// restart marks a MIG pod that keeps its node and shape but whose
// instance is re-created (another GPU, or its GPU re-cut).
func moveOf(w *Workload, p Placement, nodeReps int, restart bool) (Move, bool) {
	if w.Node == "" {
		return Move{}, false
	}
	cur := w.current()
	a, b := cur, p.Demand
	if b.Kind == TimeSlice && nodeReps > 0 {
		b.Replicas = nodeReps
		p.Demand.Replicas = nodeReps
	}
	a.Class, b.Class = "", ""
	moved, reshaped := w.Node != p.Node, a != b
	m := Move{Workload: w.ID, Group: w.Group, From: w.Node, To: p.Node, FromShape: cur.String(), ToShape: p.Demand.String()}
	switch {
	case moved && reshaped:
		m.Kind = "move+reshape"
	case moved:
		m.Kind = "move"
	case reshaped:
		m.Kind = "reshape"
	case restart:
		m.Kind = "restart"
	default:
		return Move{}, false
	}
	return m, true
}

// nodePlans describes every node, kept ones with their GPUs.
func (s *solver) nodePlans(slots []slot, kept []bool, why []string) []NodePlan {
	out := make([]NodePlan, len(s.nodes))
	for i := range s.nodes {
		n := s.nodes[i].Node
		out[i] = NodePlan{Name: n.Name, Pool: n.Pool, Model: n.Model, Keep: kept[i], USDPerHour: dollars(n.USDPerHour, n.Priced), Priced: n.Priced,
			CPUMilli: n.CPUMilli, MemoryBytes: n.MemoryBytes}
		if kept[i] {
			out[i].GPUs = make([]GPUPlan, n.GPUs)
			for g := range out[i].GPUs {
				out[i].GPUs[g] = GPUPlan{Index: g, Mode: ModeFree}
			}
		}
	}
	for wi, sl := range slots {
		if sl.node < 0 {
			continue
		}
		k := &s.works[wi]
		np := &out[sl.node]
		np.Workloads++
		np.CPUMilliUsed += k.cpu
		np.MemoryBytesUsed += k.mem
		for _, g := range sl.gpus {
			addToGPU(&np.GPUs[g], k)
		}
		if k.d.Kind == TimeSlice && (np.TimeSlicingReplicas == 0 || k.d.Replicas < np.TimeSlicingReplicas) {
			np.TimeSlicingReplicas = k.d.Replicas
		}
	}
	for i := range out {
		cur := s.nodes[i].CurrentMIG
		for g := range out[i].GPUs {
			gp := &out[i].GPUs[g]
			if gp.Mode == ModeTimeSlice {
				gp.Replicas = out[i].TimeSlicingReplicas
			}
			if l := planLayout(cur[g], gp.Layout); l != nil && (gp.Mode == ModeMIG || gp.Mode == ModeFree) && s.nodes[i].m.Valid(l) == nil {
				// A GPU whose pods fit its current cut keeps it, and an
				// emptied GPU keeps its cut: re-cutting would mean a drain
				// for nothing.
				gp.Mode, gp.Layout = ModeMIG, l
			}
			gp.Recut = !maps.Equal(cur[g], gp.Layout)
		}
	}
	current := map[string]int{}
	for i := range s.p.Workloads {
		current[s.p.Workloads[i].Node]++
	}
	for i := range out {
		np := &out[i]
		switch {
		case why[i] != "":
			np.Reason = why[i]
		case np.Keep:
			np.Reason = fmt.Sprintf("hosts %d workload(s)", np.Workloads)
		case current[np.Name] > 0:
			np.Reason = fmt.Sprintf("removed: its %d workload(s) fit on the kept nodes", current[np.Name])
		default:
			np.Reason = "removed: empty"
		}
	}
	return out
}

func addToGPU(g *GPUPlan, k *work) {
	g.Workloads = append(g.Workloads, k.w.ID)
	switch k.d.Kind {
	case Whole:
		g.Mode = ModeWhole
	case MIG:
		g.Mode = ModeMIG
		if g.Layout == nil {
			g.Layout = map[string]int{}
		}
		g.Layout[k.prof]++
	case TimeSlice:
		g.Mode, g.Replicas = ModeTimeSlice, k.d.Replicas
		if k.d.Class != "" { // unclassified holders go with the named class
			g.Class = k.d.Class
		}
	case Shared:
		g.Mode = ModeShared
		g.UsedMilli += k.d.Milli
	}
}

func poolPlans(nodes []NodePlan, in []Node) []PoolPlan {
	idx := map[string]int{}
	var out []PoolPlan
	var before, after []float64
	for i, np := range nodes {
		j, ok := idx[np.Pool]
		if !ok {
			j = len(out)
			idx[np.Pool] = j
			out = append(out, PoolPlan{Pool: np.Pool, Model: np.Model})
			before, after = append(before, 0), append(after, 0)
		}
		p := &out[j]
		p.Nodes++
		p.GPUs += in[i].GPUs
		var month float64
		if np.Priced {
			p.Priced = true
			month = in[i].USDPerHour * pricing.HoursPerMonth
		} else {
			p.Unpriced++
		}
		before[j] += month
		if np.Keep {
			p.Kept++
			p.GPUsKept += in[i].GPUs
			after[j] += month
		} else {
			p.Removed++
		}
	}
	for j := range out {
		out[j].USDPerMonthBefore = dollars(before[j], out[j].Priced)
		out[j].USDPerMonthAfter = dollars(after[j], out[j].Priced)
	}
	slices.SortFunc(out, func(a, b PoolPlan) int { return strings.Compare(a.Pool, b.Pool) })
	return out
}

// totals computes before (every node, every workload's current shape)
// and after (kept nodes, placed workloads' planned shapes). A time-sliced
// pod counts the share it gets on its planned node, 1/reps of a GPU for a
// node time-sliced reps ways, not the smaller share it asked for.
func (s *solver) totals(slots []slot, kept []bool, reps map[string]int) (before, after Totals) {
	idx := make(map[string]int, len(s.nodes))
	for i := range s.nodes {
		n := s.nodes[i].Node
		idx[n.Name] = i
		before.addNode(n)
		if kept[i] {
			after.addNode(n)
		}
	}
	for wi := range s.works {
		k := &s.works[wi]
		w := k.w
		if ni, ok := idx[w.Node]; ok {
			before.addWork(w, w.current().Fraction(s.nodes[ni].m.Model))
		}
		if sl := slots[wi]; sl.node >= 0 {
			n := s.nodes[sl.node]
			after.addWork(w, granted(k.d, reps[n.Name]).Fraction(n.m.Model))
		}
	}
	before.finish()
	after.finish()
	return before, after
}

// granted is the demand as the node grants it: a time-slice replica on a
// node time-sliced reps ways is 1/reps of a GPU, whatever it asked for.
func granted(d Demand, reps int) Demand {
	if d.Kind == TimeSlice && reps > 0 {
		d.Replicas = reps
	}
	return d
}

func (t *Totals) addNode(n *Node) {
	t.Nodes++
	t.GPUs += n.GPUs
	if n.Priced {
		t.usd += n.USDPerHour * pricing.HoursPerMonth
		t.priced++
	} else {
		t.UnpricedNodes++
	}
}

func (t *Totals) addWork(w *Workload, frac float64) {
	t.Workloads++
	t.AllocatedGPUs += frac
	if w.Measured {
		t.ActiveGPUs += w.ActiveGPUs
		if w.Demand.Kind != NoGPU {
			t.measured++
		}
	} else if w.Demand.Kind != NoGPU {
		t.UnmeasuredWorkloads++
	}
}

func (t *Totals) finish() {
	t.USDPerMonth = dollars(t.usd, t.priced > 0 || t.UnpricedNodes == 0)
	if t.GPUs > 0 {
		t.Allocation = t.AllocatedGPUs / float64(t.GPUs)
		if t.measured > 0 {
			u := t.ActiveGPUs / float64(t.GPUs)
			t.Utilization = &u
		}
	}
}

func (s *solver) notes(pl *Plan) []string {
	var out []string
	if n := pl.Before.UnpricedNodes; n > 0 {
		out = append(out, fmt.Sprintf("%d node(s) are unpriced: they are kept first (their cost is sunk or unknown) and their dollars are in no total", n))
	}
	if n := pl.Before.UnmeasuredWorkloads; n > 0 {
		out = append(out, fmt.Sprintf("%d GPU workload(s) have no activity data: utilization counts measured work only", n))
	}
	if len(pl.Unplaced) > 0 {
		out = append(out, fmt.Sprintf("%d workload(s) fit nowhere; see unplaced", len(pl.Unplaced)))
	}
	var migNodes int
	for _, n := range pl.Nodes {
		for _, g := range n.GPUs {
			if g.Mode == ModeMIG {
				migNodes++
				break
			}
		}
	}
	if migNodes > 0 {
		out = append(out, fmt.Sprintf("%d node(s) get MIG layouts: mig-parted clears every MIG instance on a GPU whose layout changes, so drain each node before relabelling it", migNodes))
	}
	return out
}
