package packing

import (
	"errors"
	"fmt"
	"slices"
	"strings"
)

// ErrProblem is the error of an invalid problem (the input, not the
// planner): Solve's errors wrap it with every problem listed.
var ErrProblem = errors.New("packing problem")

// Solve packs the problem's workloads onto the fewest and cheapest nodes
// and returns the plan. It errors only on invalid input (every problem
// listed) or when the plan fails its own Check, which would be a bug.
//
// Right-sized shapes are chosen per workload: the planned shapes are
// packed first; time-slice shapes that leave a node time-sliced without
// filling it are reverted and the problem re-packed; every current shape
// is packed too; the cheapest plan wins, the one keeping more right-sizing
// on a tie. A plan therefore never costs more than consolidation alone.
func Solve(p *Problem) (*Plan, error) { return SolveReporting(p, nil) }

// SolveReporting is Solve telling progress how many of its packings are
// done ("planning", done, of 1, or of 3 with right-sized shapes).
func SolveReporting(p *Problem, progress Progress) (*Plan, error) {
	if err := p.Validate(); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrProblem, err)
	}
	steps := int64(1)
	if reshapes(p) {
		steps = 3
	}
	progress.report(0, steps)
	best, err := solve(p, nil)
	progress.report(1, steps)
	if err != nil || !reshapes(p) {
		return best, err
	}
	defer progress.report(3, steps)
	planned := best
	if revert := timeSliceReverts(planned); len(revert) > 0 {
		alt, err := solve(p, revert)
		if err != nil {
			return nil, err
		}
		if cheaper(alt, best) {
			alt.Notes = append(alt.Notes, fmt.Sprintf("with every right-sized shape the plan needs %d nodes at %s/month; keeping the current shape of %d time-slice recommendation(s) that would leave a node time-sliced but not full needs %d at %s/month (see shapes)",
				planned.After.Nodes, usdOrNA(planned.After), len(revert), alt.After.Nodes, usdOrNA(alt.After)))
			best = alt
		}
	}
	progress.report(2, steps)
	// A planned shape can pack worse than the current one in ways the rule
	// above does not foresee; the plan must never cost more for
	// right-sizing than consolidation alone.
	all := map[string]string{}
	for i := range p.Workloads {
		if w := &p.Workloads[i]; reshaped(w) {
			all[w.ID] = wholesaleWhy
		}
	}
	cur, err := solve(p, all)
	if err != nil {
		return nil, err
	}
	if cheaper(cur, best) {
		cur.Notes = append(cur.Notes, fmt.Sprintf("the right-sized shapes packed onto %d nodes at %s/month; the current shapes pack onto %d nodes at %s/month, so this plan keeps every pod's current shape",
			best.After.Nodes, usdOrNA(best.After), cur.After.Nodes, usdOrNA(cur.After)))
		return cur, nil
	}
	return best, nil
}

const wholesaleWhy = "the current shapes pack onto fewer or cheaper nodes than the right-sized ones (see notes)"

// cheaper reports whether plan a costs less than b, or as much on fewer
// nodes.
func cheaper(a, b *Plan) bool {
	x, y := a.After.USD(), b.After.USD()
	return x < y-0.005 || (x <= y+0.005 && a.After.Nodes < b.After.Nodes)
}

func usdOrNA(t Totals) string {
	if t.USDPerMonth == nil {
		return "n/a (unpriced)"
	}
	return usd(*t.USDPerMonth)
}

// reshapes reports whether any workload's planned shape differs from its
// current one.
func reshapes(p *Problem) bool {
	return slices.ContainsFunc(p.Workloads, func(w Workload) bool { return reshaped(&w) })
}

func reshaped(w *Workload) bool { return w.Current.Kind != "" && w.Current != w.Demand }

// timeSliceReverts picks the time-slice shapes that cost capacity: those
// of a model with too few such pods to fill a node (tooFewToFill), and,
// from a packed plan, those on a node that is time-sliced only because of
// right-sized pods (none of its time-sliced pods is time-sliced now) and
// that the pods do not fill (a GPU is left free or holds one pod). The
// device plugin time-slices every GPU of a node, so such a node's spare
// GPUs are lost to exclusive pods; a model with too few dev pods to fill a
// time-sliced node is better off with its pods' current shapes.
func timeSliceReverts(pl *Plan) map[string]string {
	works := make(map[string]*Workload, len(pl.problem.Workloads))
	for i := range pl.problem.Workloads {
		works[pl.problem.Workloads[i].ID] = &pl.problem.Workloads[i]
	}
	out := tooFewToFill(pl.problem)
	for _, n := range pl.Nodes {
		if !n.Keep || n.TimeSlicingReplicas == 0 {
			continue
		}
		var pods []string
		spare, newOnly := 0, true
		for _, g := range n.GPUs {
			switch {
			case g.Mode == ModeFree:
				spare++
			case g.Mode == ModeTimeSlice:
				if len(g.Workloads) == 1 {
					spare++
				}
				for _, id := range g.Workloads {
					w := works[id]
					if w.current().Kind == TimeSlice || !reshaped(w) {
						newOnly = false
					}
					pods = append(pods, id)
				}
			}
		}
		if !newOnly || spare == 0 || len(pods) == 0 {
			continue
		}
		why := fmt.Sprintf("too few right-sized time-slice pods to fill a time-sliced %s node: %s would be time-sliced %d ways for %d pod(s) with %d of its %d GPUs free or holding one pod, and time-slicing applies to every GPU of a node, so exclusive pods could not use them",
			n.Model, n.Name, n.TimeSlicingReplicas, len(pods), spare, len(n.GPUs))
		for _, id := range pods {
			if _, ok := out[id]; !ok {
				out[id] = why
			}
		}
	}
	return out
}

// tooFewToFill picks the time-slice shapes of pods not time-sliced now,
// per GPU model, when there are fewer of them than the smallest node of
// that model holds time-sliced (its GPUs × the pods' largest replica
// count): such pods would time-slice a node they cannot fill.
func tooFewToFill(p *Problem) map[string]string {
	type group struct {
		ids  []string
		reps int
	}
	groups := map[string]*group{}
	model := make(map[string]string, len(p.Nodes))
	for i := range p.Nodes {
		model[p.Nodes[i].Name] = p.Nodes[i].Model
	}
	for i := range p.Workloads {
		w := &p.Workloads[i]
		if !reshaped(w) || w.Pinned || w.Demand.Kind != TimeSlice || w.current().Kind == TimeSlice {
			continue
		}
		m := model[w.Node]
		if len(w.Models) == 1 {
			m = w.Models[0]
		}
		g := groups[m]
		if g == nil {
			g = &group{}
			groups[m] = g
		}
		g.ids = append(g.ids, w.ID)
		g.reps = max(g.reps, w.Demand.Replicas)
	}
	out := map[string]string{}
	for model, g := range groups {
		smallest := 0
		for i := range p.Nodes {
			if n := &p.Nodes[i]; n.Model == model && n.GPUs > 0 && (smallest == 0 || n.GPUs < smallest) {
				smallest = n.GPUs
			}
		}
		if slots := smallest * g.reps; len(g.ids) < slots {
			why := fmt.Sprintf("too few right-sized time-slice pods of model %s (%d) to fill even the smallest %s node time-sliced (%d GPU(s) × %d = %d pods); time-slicing applies to every GPU of a node, so the rest would be lost to exclusive pods",
				model, len(g.ids), model, smallest, g.reps, slots)
			for _, id := range g.ids {
				out[id] = why
			}
		}
	}
	return out
}

// revertLonely gives a right-sized MIG pod that sits alone on its GPU its
// current shape back, on the same GPU: the slice frees no GPU in this
// plan, and keeping the shape spares a restart. Only where the current
// shape is one whole GPU or a MIG instance of the same model, and a whole
// GPU would not land on a time-sliced node.
func (s *solver) revertLonely(slots []slot) {
	type gk struct {
		node int32
		gpu  int16
	}
	holders := map[gk]int{}
	tsNode := map[int32]bool{}
	for wi, sl := range slots {
		if sl.node < 0 {
			continue
		}
		for _, g := range sl.gpus {
			holders[gk{sl.node, g}]++
		}
		if s.works[wi].d.Kind == TimeSlice {
			tsNode[sl.node] = true
		}
	}
	for wi, sl := range slots {
		k := &s.works[wi]
		if sl.node < 0 || sl.cur || k.pinned || k.asIs || k.d.Kind != MIG || !reshaped(k.w) || holders[gk{sl.node, sl.gpus[0]}] != 1 {
			continue
		}
		cur := k.w.current()
		n := &s.nodes[sl.node]
		if n.Model != s.nodeModel(k.w.Node) || !(cur.Kind == MIG || (cur.Kind == Whole && cur.GPUs == 1 && !tsNode[sl.node])) {
			continue
		}
		if cur.Kind == MIG && n.m.profileIndex(cur.Profile) < 0 {
			continue
		}
		prof := k.d.Profile
		s.works[wi] = s.currentWork(*k)
		s.revertWhy[int32(wi)] = fmt.Sprintf("alone on its GPU in this plan, the %s slice frees no GPU; keeping the current shape spares a restart", prof)
	}
}

// decisions says, for every workload with a right-sized shape, what the
// plan did with it.
func (s *solver) decisions(pl *Plan, slots []slot, reps map[string]int) []ShapeDecision {
	unplaced := make(map[string]string, len(pl.Unplaced))
	for _, u := range pl.Unplaced {
		unplaced[u.Workload] = u.Reason
	}
	var out []ShapeDecision
	for wi := range s.works {
		k := &s.works[wi]
		w := k.w
		if !reshaped(w) {
			continue
		}
		d := ShapeDecision{Workload: w.ID, Group: w.Group, Current: w.current().String(), Recommended: w.Demand.String(), Planned: k.d.String()}
		if m := s.nodeModel(w.Node); len(w.Models) == 1 && w.Models[0] != m {
			d.Recommended += " on " + w.Models[0]
		}
		switch sl := slots[wi]; {
		case sl.node < 0:
			d.Decision, d.Reason = ShapeUnplaced, unplaced[w.ID]
		case k.asIs && s.revertWhy[int32(wi)] != "":
			d.Decision, d.Reason = ShapeReverted, s.revertWhy[int32(wi)]
		case k.asIs:
			d.Decision, d.Reason = ShapeReverted, fmt.Sprintf("the right-sized %s fits on no kept node, and the current shape lets a node go", w.Demand)
		case sl.cur:
			d.Decision, d.Reason = ShapeReverted, "fits nowhere with the right-sized shape: "+s.fallbackWhy[int32(wi)]
		default:
			d.Decision = ShapeApplied
			r := reps[s.nodes[sl.node].Name]
			if k.d.Kind == TimeSlice && r > 0 && r != k.d.Replicas {
				g := k.d
				g.Replicas = r
				d.Planned = g.String()
				d.Reason = fmt.Sprintf("its node is time-sliced %d ways (the smallest count its pods ask for), so it gets 1/%d of a GPU, more than the 1/%d recommended", r, r, k.d.Replicas)
				cur := w.current()
				if cur.Kind == TimeSlice && cur.Replicas == r {
					d.Decision = ShapeNoEffect
				}
			}
		}
		out = append(out, d)
	}
	slices.SortFunc(out, func(a, b ShapeDecision) int {
		return strings.Compare(a.Decision+a.Workload, b.Decision+b.Workload)
	})
	return out
}
