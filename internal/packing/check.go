package packing

import (
	"errors"
	"fmt"
	"maps"
	"math"
	"slices"

	"github.com/gpuwise/gpuwise/internal/gpushape"
)

// Check re-verifies the plan against its problem without the packer's
// data structures: every workload placed exactly once or listed unplaced;
// no placement on a removed node; GPU model, MIG profile, taints, node
// selector respected; CPU, memory and pod slots never overcommitted;
// every MIG layout valid for the model (gpushape.Model.Valid); shares ≤
// 1000 milli per GPU;
// time-sliced GPUs within their replicas, one class and one replica count
// per node and no exclusive GPU beside them; totals consistent.
func (pl *Plan) Check() error {
	p := pl.problem
	if p == nil {
		return errors.New("plan has no problem attached")
	}
	c := checker{pl: pl, p: p, nodes: map[string]*Node{}, plans: map[string]*NodePlan{}, works: map[string]*Workload{}}
	for i := range p.Nodes {
		c.nodes[p.Nodes[i].Name] = &p.Nodes[i]
	}
	for i := range pl.Nodes {
		c.plans[pl.Nodes[i].Name] = &pl.Nodes[i]
	}
	for i := range p.Workloads {
		c.works[p.Workloads[i].ID] = &p.Workloads[i]
	}
	c.coverage()
	c.gpus = map[string][][]*Placement{}
	c.used = map[string][3]int64{}
	for i := range pl.Placements {
		c.placement(&pl.Placements[i])
	}
	for name, n := range c.nodes {
		c.node(n, c.plans[name])
	}
	c.totals()
	return errors.Join(c.errs...)
}

type checker struct {
	pl    *Plan
	p     *Problem
	nodes map[string]*Node
	plans map[string]*NodePlan
	works map[string]*Workload
	gpus  map[string][][]*Placement // node → GPU → holders
	used  map[string][3]int64       // node → CPU, memory, pods
	errs  []error
}

func (c *checker) errorf(format string, args ...any) {
	c.errs = append(c.errs, fmt.Errorf(format, args...))
}

func (c *checker) coverage() {
	seen := map[string]int{}
	for _, pc := range c.pl.Placements {
		seen[pc.Workload]++
	}
	for _, u := range c.pl.Unplaced {
		seen[u.Workload]++
		if u.Reason == "" {
			c.errorf("workload %s: unplaced without a reason", u.Workload)
		}
	}
	for id := range c.works {
		if seen[id] != 1 {
			c.errorf("workload %s: placed or listed %d times, want exactly once", id, seen[id])
		}
	}
	for id := range seen {
		if c.works[id] == nil {
			c.errorf("workload %s: in the plan but not in the problem", id)
		}
	}
	if len(c.pl.Nodes) != len(c.p.Nodes) {
		c.errorf("plan lists %d nodes, the problem has %d", len(c.pl.Nodes), len(c.p.Nodes))
	}
}

func (c *checker) placement(pc *Placement) {
	w, n, np := c.works[pc.Workload], c.nodes[pc.Node], c.plans[pc.Node]
	if w == nil || n == nil || np == nil {
		c.errorf("placement of %s on %s: unknown workload or node", pc.Workload, pc.Node)
		return
	}
	what := "workload " + w.ID + " on node " + n.Name
	if !np.Keep {
		c.errorf("%s: the node is removed", what)
	}
	want := w.Demand
	if pc.KeptShape || w.Pinned {
		want = w.current()
		if pc.Node != w.Node {
			c.errorf("%s: keeps its shape but left its node %s", what, w.Node)
		}
	}
	if pc.CurrentShape {
		want = w.current()
		if cur := c.nodes[w.Node]; cur == nil || cur.Model != n.Model {
			c.errorf("%s: keeps its current shape but changes GPU model", what)
		}
	}
	if pc.Demand != want {
		c.errorf("%s: placed as %s, the workload asks for %s", what, pc.Demand, want)
	}
	c.constraints(what, w, n, pc.Demand, !pc.KeptShape && !pc.CurrentShape && !w.Pinned)
	c.gpuIndices(what, n, pc)
	u := c.used[n.Name]
	c.used[n.Name] = [3]int64{u[0] + w.CPUMilli, u[1] + w.MemoryBytes, u[2] + 1}
}

// constraints checks taints and selectors, and the GPU model unless the
// workload keeps its current shape on its current node.
func (c *checker) constraints(what string, w *Workload, n *Node, d Demand, checkModel bool) {
	if checkModel && d.Kind != NoGPU && !modelAllowed(w.Models, n.Model) {
		c.errorf("%s: GPU model %s not allowed (%v)", what, n.Model, w.Models)
	}
	if t := untolerated(n.Taints, w.Tolerations); t != nil {
		c.errorf("%s: taint %s=%s:%s not tolerated", what, t.Key, t.Value, t.Effect)
	}
	if term := unmatched(w.NodeSelector, n.Labels); term != "" {
		c.errorf("%s: node selector %s not matched", what, term)
	}
}

func (c *checker) gpuIndices(what string, n *Node, pc *Placement) {
	want := 1
	switch pc.Demand.Kind {
	case NoGPU:
		want = 0
	case Whole:
		want = pc.Demand.GPUs
	}
	if len(pc.GPUs) != want {
		c.errorf("%s: holds %d GPUs, the shape needs %d", what, len(pc.GPUs), want)
	}
	if c.gpus[n.Name] == nil {
		c.gpus[n.Name] = make([][]*Placement, n.GPUs)
	}
	seen := map[int]bool{}
	for _, g := range pc.GPUs {
		if g < 0 || g >= n.GPUs || seen[g] {
			c.errorf("%s: GPU index %d out of range or repeated", what, g)
			continue
		}
		seen[g] = true
		c.gpus[n.Name][g] = append(c.gpus[n.Name][g], pc)
	}
}

func (c *checker) node(n *Node, np *NodePlan) {
	if np == nil {
		c.errorf("node %s: missing from the plan", n.Name)
		return
	}
	u := c.used[n.Name]
	if u[0] > n.CPUMilli || u[1] > n.MemoryBytes {
		c.errorf("node %s: CPU %dm of %dm, memory %d of %d bytes: overcommitted", n.Name, u[0], n.CPUMilli, u[1], n.MemoryBytes)
	}
	if n.MaxPods != nil && u[2] > int64(*n.MaxPods) {
		c.errorf("node %s: %d workloads, more than its %d pod slots", n.Name, u[2], *n.MaxPods)
	}
	if !np.Keep && len(np.GPUs) > 0 {
		c.errorf("node %s: removed but lists GPU modes", n.Name)
	}
	m := checkModel(c.p, n.Model)
	var tsReps, excl, ts int
	classes := map[string]bool{}
	for g, holders := range c.gpus[n.Name] {
		what := fmt.Sprintf("node %s GPU %d", n.Name, g)
		mode, _ := c.gpu(what, m, holders, np, g)
		switch mode {
		case ModeWhole, ModeShared:
			excl++
		case ModeTimeSlice:
			ts++
			for _, h := range holders {
				if tsReps == 0 || h.Demand.Replicas < tsReps {
					tsReps = h.Demand.Replicas
				}
				if h.Demand.Class != "" {
					classes[h.Demand.Class] = true
				}
			}
		}
	}
	if len(classes) > 1 {
		// The kubelet hands any replica of the node's GPUs to any pod.
		c.errorf("node %s: time-slice classes %v share the node's replicas", n.Name, slices.Sorted(maps.Keys(classes)))
	}
	if ts > 0 && excl > 0 {
		c.errorf("node %s: %d time-sliced GPUs beside %d exclusive or shared ones; time-slicing applies to every full GPU of a node", n.Name, ts, excl)
	}
	if np.Keep && np.TimeSlicingReplicas != tsReps {
		c.errorf("node %s: plan says %d time-slicing replicas, placements need %d", n.Name, np.TimeSlicingReplicas, tsReps)
	}
	for _, gp := range np.GPUs {
		if gp.Mode == ModeMIG {
			if err := m.Valid(gp.Layout); err != nil {
				c.errorf("node %s GPU %d: %v", n.Name, gp.Index, err)
			}
		}
	}
}

// gpu checks one GPU's holders and returns its mode and replica count.
func (c *checker) gpu(what string, m gpushape.Model, holders []*Placement, np *NodePlan, g int) (string, int) {
	if len(holders) == 0 {
		return ModeFree, 0
	}
	kind := holders[0].Demand.Kind
	for _, h := range holders {
		if h.Demand.Kind != kind {
			c.errorf("%s: mixes %s and %s", what, kind, h.Demand.Kind)
			return "", 0
		}
	}
	var mode string
	var reps int
	switch kind {
	case Whole:
		mode = ModeWhole
		if len(holders) > 1 {
			c.errorf("%s: %d workloads on one exclusive GPU", what, len(holders))
		}
	case MIG:
		mode = ModeMIG
		l := gpushape.Layout{}
		for _, h := range holders {
			l[gpushape.CanonicalProfile(h.Demand.Profile)]++
		}
		if err := m.Valid(l); err != nil {
			c.errorf("%s: %v", what, err)
		}
		if np.Keep && g < len(np.GPUs) && !contains(np.GPUs[g].Layout, l) {
			c.errorf("%s: plan lists layout %s, placements need %s", what, np.GPUs[g].Layout, l)
		}
	case TimeSlice:
		// The node's count R is the smallest any holder asks for: each
		// holder gets 1/R ≥ its 1/r, and a GPU holds at most R.
		mode, reps = ModeTimeSlice, np.TimeSlicingReplicas
		for _, h := range holders {
			if h.Demand.Replicas < reps || reps < 2 {
				c.errorf("%s: %s on a node time-sliced %d ways", what, h.Demand, reps)
			}
		}
		if len(holders) > reps {
			c.errorf("%s: %d time-slice holders exceed %d replicas", what, len(holders), reps)
		}
	case Shared:
		mode = ModeShared
		var sum int64
		for _, h := range holders {
			sum += h.Demand.Milli
		}
		if sum > MilliPerGPU {
			c.errorf("%s: shares sum to %d milli-GPU", what, sum)
		}
	}
	if np.Keep && g < len(np.GPUs) && np.GPUs[g].Mode != mode {
		c.errorf("%s: plan lists mode %s, placements make %s", what, np.GPUs[g].Mode, mode)
	}
	return mode, reps
}

// contains reports whether layout a has every instance of b (a GPU keeps
// its current cut, free instances included, when its pods fit it).
func contains(a, b gpushape.Layout) bool {
	for p, n := range b {
		if a[p] < n {
			return false
		}
	}
	return true
}

func checkModel(p *Problem, name string) gpushape.Model {
	if m, ok := p.Models[name]; ok {
		return m
	}
	if m, ok := gpushape.Lookup(name); ok {
		return m
	}
	return gpushape.Model{Name: name}
}

func (c *checker) totals() {
	var before, after Totals
	for i := range c.p.Nodes {
		n := &c.p.Nodes[i]
		before.addNode(n)
		if np := c.plans[n.Name]; np != nil && np.Keep {
			after.addNode(n)
		}
	}
	for _, t := range []struct {
		name      string
		got, want Totals
	}{{"before", c.pl.Before, before}, {"after", c.pl.After, after}} {
		if t.got.Nodes != t.want.Nodes || t.got.GPUs != t.want.GPUs || !near(t.got.USD(), t.want.usd) {
			c.errorf("totals %s: %d nodes, %d GPUs, $%.2f/month; recomputed %d, %d, $%.2f", t.name,
				t.got.Nodes, t.got.GPUs, t.got.USD(), t.want.Nodes, t.want.GPUs, t.want.usd)
		}
		if unknown := t.want.priced == 0 && t.want.UnpricedNodes > 0; unknown != (t.got.USDPerMonth == nil) {
			c.errorf("totals %s: $/month null is %v, but %d of %d nodes are priced", t.name, t.got.USDPerMonth == nil, t.want.priced, t.want.Nodes)
		}
	}
	if (c.pl.SavingsUSDPerMonth == nil) != (before.priced == 0) || !near(derefOr0(c.pl.SavingsUSDPerMonth), before.usd-after.usd) {
		c.errorf("savings %v $/month, recomputed $%.2f over %d priced nodes", c.pl.SavingsUSDPerMonth, before.usd-after.usd, before.priced)
	}
	for _, pp := range c.pl.Pools {
		if (pp.USDPerMonthBefore == nil) != !pp.Priced || (pp.USDPerMonthAfter == nil) != !pp.Priced || pp.Priced == (pp.Unpriced == pp.Nodes) {
			c.errorf("pool %s: priced %v with %d of %d nodes unpriced, but $/month before %v after %v", pp.Pool, pp.Priced, pp.Unpriced, pp.Nodes, pp.USDPerMonthBefore, pp.USDPerMonthAfter)
		}
	}
	for _, np := range c.pl.Nodes {
		if (np.USDPerHour == nil) != !np.Priced {
			c.errorf("node %s: priced %v but $/h %v", np.Name, np.Priced, np.USDPerHour)
		}
	}
	if !slices.IsSortedFunc(c.pl.Pools, func(a, b PoolPlan) int {
		if a.Pool < b.Pool {
			return -1
		}
		return 1
	}) {
		c.errorf("pools not sorted")
	}
}

func derefOr0(v *float64) float64 {
	if v == nil {
		return 0
	}
	return *v
}

func near(a, b float64) bool { return math.Abs(a-b) <= 1e-6*max(1, math.Abs(a), math.Abs(b)) }
