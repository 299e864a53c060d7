package lever

import (
	"cmp"
	"fmt"
	"math/bits"
	"runtime"
	"slices"
	"strings"
	"sync"

	"github.com/gpuwise/gpuwise/internal/packing"
)

// consolidateLever packs the workloads onto the fewest and cheapest nodes
// (package packing) and removes the rest. It is where the earlier levers'
// changes become money:
//
//  1. Consolidation alone: the pods as they are now. One action per pool
//     that loses nodes, and one prerequisite action for the MIG re-cuts and
//     moves among kept nodes that make room.
//  2. With the earlier levers' workload changes: every subset of the
//     levers that changed workloads is packed, and the cheapest (fewest
//     levers on a tie) is the final plan F. Then, lever by lever in order,
//     the plan with F's levers so far: when it is cheaper than the last
//     plan, one "repack" action carries the difference and requires the
//     changes that plan applies (a step that is not cheaper waits for the
//     next). Changes of levers outside F, or that F does not apply, are not
//     counted, with the reason.
//
// Taking the cheapest over subsets makes the final plan the same whatever
// order the changing levers came in (the packer is a heuristic: more
// right-sizing can pack worse), so the ledger's total does not depend on
// that order; only the split between the repack actions does. And no
// action is ever undone by a later one: the states only add levers.
type consolidateLever struct{}

func (consolidateLever) Name() string { return LeverConsolidate }

func (consolidateLever) Propose(m *Model, env *Env) (Proposal, error) {
	c := &consolidation{m: m, env: env, groups: changeGroups(m.Changes), plans: map[int]*packing.Plan{}, index: map[int]*planIndex{}}
	p0, err := c.solve(0)
	if err != nil {
		return Proposal{}, err
	}
	f, err := c.cheapest()
	if err != nil {
		return Proposal{}, err
	}
	final, err := c.solve(f)
	if err != nil {
		return Proposal{}, err
	}
	c.burst = c.burstNodes(final, c.reshapes(f))
	c.stays = union(c.indexOf(f).kept, c.burst)
	prop := Proposal{Unrealised: map[string]string{}}
	// The steps: consolidation alone, then F's levers one by one. Each
	// removes only nodes the final state removes too, and only when the
	// nodes left still hold its plan: states only lose nodes, none comes
	// back, and none that an action re-cuts or another scales goes later.
	gone := map[string]bool{}
	last := -1
	for _, s := range c.steps(f) {
		pl, err := c.solve(s)
		if err != nil {
			return Proposal{}, err
		}
		d := c.stepRemoves(pl, s, gone)
		fits := d != nil
		if !fits && s == 0 {
			d = c.emptyRemovals(pl)
		}
		if len(d) > 0 {
			if s == 0 {
				prop.Changes = append(prop.Changes, c.removals(p0, d, fits)...)
			} else {
				prop.Changes = append(prop.Changes, c.repack(last, s, d, gone))
			}
			for n := range d {
				gone[n] = true
			}
			last = s
		}
		c.drop(max(last, 0), f)
	}
	c.unrealised(f, prop.Unrealised)
	prop.Finish = func(m *Model) { m.Plan = final }
	prop.Notes = append(prop.Notes, final.Notes...)
	return prop, nil
}

// steps are the masks the lever steps through: none (consolidation
// alone), then the final plan's levers added one at a time, in order.
func (c *consolidation) steps(f int) []int {
	out := []int{0}
	for k := range c.groups {
		if s := f & (1<<(k+1) - 1); s != out[len(out)-1] {
			out = append(out, s)
		}
	}
	return out
}

// stepRemoves is what the plan of mask removes on top of the nodes gone
// already: the nodes it does not keep that the final state does not keep
// either. Nothing when the step does not fit what is left — it keeps a
// node that is gone, or re-cuts one the final state removes —: a later
// step (at the latest the final plan's) removes those nodes.
func (c *consolidation) stepRemoves(pl *packing.Plan, mask int, gone map[string]bool) map[string]bool {
	for n := range c.indexOf(mask).kept {
		if gone[n] {
			return nil
		}
	}
	for _, r := range pl.Recuts {
		if !c.stays[r.Node] {
			return nil
		}
	}
	out := map[string]bool{}
	for _, n := range pl.Nodes {
		if !n.Keep && !c.stays[n.Name] && !gone[n.Name] {
			out[n.Name] = true
		}
	}
	return out
}

// emptyRemovals are the nodes of consolidation alone that hold no
// workload pod (no move leaves them) and that the final state removes: when
// that plan's re-cuts do not fit the final state, removing these alone
// still does (nothing moves).
func (c *consolidation) emptyRemovals(pl *packing.Plan) map[string]bool {
	from := map[string]bool{}
	for _, mv := range pl.Moves {
		from[mv.From] = true
	}
	out := map[string]bool{}
	for _, n := range pl.Nodes {
		if !n.Keep && !c.stays[n.Name] && !from[n.Name] {
			out[n.Name] = true
		}
	}
	return out
}

// stateGPUs counts the GPUs per model of the modelled nodes not in gone:
// what the state after a step keeps.
func (c *consolidation) stateGPUs(gone map[string]bool) map[string]int {
	out := map[string]int{}
	for i := range c.m.Nodes {
		n := &c.m.Nodes[i]
		if n.Kept && !gone[n.Name] {
			out[n.GPUModel] += n.GPUs
		} else if _, ok := out[n.GPUModel]; !ok {
			out[n.GPUModel] = 0
		}
	}
	return out
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
	index  map[int]*planIndex
	end    map[string]bool // see running
	// burst are nodes the plan removes that the window's peak needs: with
	// the autoscale lever after consolidation they stay, and it runs them
	// only in the hours the peak needs them (burst.go).
	burst map[string]bool
	// stays are the nodes the final state keeps: the final plan's and
	// the burst nodes. No step removes one.
	stays map[string]bool
}

// planIndex is what the lever asks of a plan, by workload group, built
// once per plan.
// It holds no pointer into the plan, so a plan no later step needs can go.
type planIndex struct {
	kept    map[string]bool
	cost    Cents
	applied map[string]bool   // groups with a shape applied to a pod
	why     map[string]string // why the plan does not use a group's shape
}

// indexOf indexes the plan of mask (solved already).
func (c *consolidation) indexOf(mask int) *planIndex {
	if x, ok := c.index[mask]; ok {
		return x
	}
	pl := c.plans[mask]
	x := &planIndex{kept: keptOf(pl), applied: map[string]bool{}, why: map[string]string{}}
	x.cost = c.m.costOf(x.kept)
	for i := range pl.Shapes {
		d := &pl.Shapes[i]
		if d.Decision == packing.ShapeApplied {
			x.applied[d.Group] = true
		}
		if _, ok := x.why[d.Group]; !ok {
			x.why[d.Group] = fmt.Sprintf("the consolidation plan %s (%s → %s): %s", decisionVerb(d.Decision), d.Current, d.Recommended, d.Reason)
		}
	}
	for i := range pl.Problem().Workloads {
		w := &pl.Problem().Workloads[i]
		if _, ok := x.why[w.Group]; ok {
			continue
		}
		if w.Pinned {
			x.why[w.Group] = "the planner does not move it: " + w.PinReason
		} else if w.Note != "" {
			x.why[w.Group] = w.Note
		}
	}
	c.index[mask] = x
	return x
}

// cheapest packs every subset of the changing levers and returns the
// cheapest: fewer levers on a tie (changes that save nothing are not
// recommended), then the levers' names, so the answer does not depend on
// the order the levers came in. The subsets are packed concurrently, one
// per core (packing is pure and reads the snapshot only); cheaper is a
// total order on subsets, so the answer does not depend on which packing
// finishes first either.
func (c *consolidation) cheapest() (int, error) {
	best, failed := 0, 0
	var err error
	for r := range c.packAll(1<<len(c.groups) - 1) {
		if r.err != nil {
			if failed == 0 || r.mask < failed {
				failed, err = r.mask, r.err
			}
			continue
		}
		c.plans[r.mask] = r.plan
		if c.cheaper(r.mask, best) {
			best = r.mask
		}
		c.drop(0, best) // a plan is large; its index is what the search needs
	}
	if err != nil {
		return 0, err
	}
	return best, nil
}

// cheaper orders subsets by the cost of their plans (packed already),
// then by how many levers they apply, then by the levers' names.
func (c *consolidation) cheaper(s, than int) bool {
	a, b := c.indexOf(s), c.indexOf(than)
	return cmp.Or(cmp.Compare(a.cost, b.cost), cmp.Compare(bits.OnesCount(uint(s)), bits.OnesCount(uint(than))),
		strings.Compare(c.leverList(s), c.leverList(than))) < 0
}

// packedMask is one subset's plan (or why it could not be packed).
type packedMask struct {
	mask int
	plan *packing.Plan
	err  error
}

// packAll packs the subsets 1..last on up to one goroutine per core and
// sends each plan as it is done; the channel closes after the last.
func (c *consolidation) packAll(last int) <-chan packedMask {
	masks, out := make(chan int), make(chan packedMask)
	go func() {
		for s := 1; s <= last; s++ {
			masks <- s
		}
		close(masks)
	}()
	var wg sync.WaitGroup
	workers := c.env.packers
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	for range min(workers, last) {
		wg.Go(func() {
			for s := range masks {
				pl, err := c.pack(s)
				out <- packedMask{mask: s, plan: pl, err: err}
			}
		})
	}
	go func() {
		wg.Wait()
		close(out)
	}()
	return out
}

// drop forgets the plans of every mask but keep; their indexes stay, and
// solve packs again a plan a later step needs.
func (c *consolidation) drop(keep ...int) {
	for m := range c.plans {
		if !slices.Contains(keep, m) {
			delete(c.plans, m)
		}
	}
}

// solve packs the snapshot with the changes of the groups in mask.
func (c *consolidation) solve(mask int) (*packing.Plan, error) {
	if pl, ok := c.plans[mask]; ok {
		return pl, nil
	}
	if p := c.env.packed; mask == 0 && p != nil {
		c.env.packed = nil // taken: the lever drops its plans when done with them
		if p.err != nil {
			return nil, fmt.Errorf("consolidating: %w", p.err)
		}
		c.plans[0] = p.plan
		return p.plan, nil
	}
	pl, err := c.pack(mask)
	if err != nil {
		return nil, err
	}
	c.plans[mask] = pl
	return pl, nil
}

// pack builds and solves the packing problem of mask. It changes nothing
// in c, so that several masks can be packed at once.
func (c *consolidation) pack(mask int) (*packing.Plan, error) {
	prob, err := c.problem(mask)
	if err != nil {
		return nil, fmt.Errorf("consolidating: %w", err)
	}
	pl, err := packing.Solve(prob)
	if err != nil {
		return nil, fmt.Errorf("consolidating: %w", err)
	}
	return pl, nil
}

// problem is the packing problem with the changes of the groups in mask;
// with none, the one the model was built from (packing does not change a
// problem).
func (c *consolidation) problem(mask int) (*packing.Problem, error) {
	if mask == 0 && c.env.current != nil {
		return c.env.current, nil
	}
	o := packing.SnapshotOptions{Prices: c.env.Prices, Shapes: packing.CurrentShapes}
	if mask != 0 {
		o.Shapes, o.Recs = packing.RecommendedShapes, c.recs(mask)
	}
	return packing.FromSnapshot(c.env.Snapshot, o)
}

// recs gathers the right-sized shapes and requests of the groups in mask.
func (c *consolidation) recs(mask int) *packing.Recommendations {
	var ctrs, gpus int
	c.eachChange(mask, func(ch *WorkloadChange) {
		ctrs += len(ch.Containers)
		if ch.GPU != nil {
			gpus++
		}
	})
	r := newPackingRecs(ctrs, gpus)
	c.eachChange(mask, func(ch *WorkloadChange) {
		r.addContainers(ch.Containers)
		if ch.GPU != nil {
			r.addGPU(ch.GPU)
		}
	})
	return r.Recommendations
}

// eachChange calls f with each workload change of the groups in mask, in
// order.
func (c *consolidation) eachChange(mask int, f func(ch *WorkloadChange)) {
	for k, g := range c.groups {
		if mask&(1<<k) == 0 {
			continue
		}
		for i := range g.changes {
			f(&g.changes[i])
		}
	}
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
