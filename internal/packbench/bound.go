package packbench

import (
	"cmp"
	"errors"
	"fmt"
	"slices"
)

// This file bounds from above the final GPU allocation that any policy can
// reach on an arrival sequence under the protocol (a pod is dropped only
// when it fits on no node; pods never leave), online or clairvoyant. The
// argument assumes nothing about the policy:
//
//  1. Free resources only shrink. So if pod p arrives before pod w and p ⪯ w
//     (p asks for no more GPUs, milli per GPU, CPU and memory than w, and
//     accepts every GPU model w accepts), then w being placed means p was
//     placed: where w fit, p fit earlier.
//  2. For a run, let t1 be the first one-GPU whole pod that failed (none if
//     none did). Every one-GPU whole pod before t1 was placed, hence by (1)
//     every earlier pod they dominate: the forced pods.
//  3. When the pod q at t1 failed, each GPU either held a pod placed before
//     t1, or was free on a node where q did not fit for lack of CPU, memory
//     or model. A pod placed later on such a GPU asks for less CPU or less
//     memory than q (any pod, when q excludes a model).
//
// The bound for one t1 is the configuration LP of bin packing over the
// cluster's GPUs as bins of 1000 milli (node boundaries ignored, which only
// relaxes): place every forced pod, any others, with each GPU's
// configuration either holding a pod from before t1 or only later pods that
// (3) allows there; maximize the milli placed. The bound is the largest over
// t1, found by branch and bound over ranges of t1 whose relaxed LP (the
// range's pods allowed in both roles) already falls below the best found.

// boundBigM is the first objective bonus of a forced unit.
const boundBigM = 2000

// Bound is an upper bound on a run's final allocation, for any policy.
type Bound struct {
	// Percent is the bound, in % of the cluster's GPU milli.
	Percent float64
	// T1 is the arrival index of the first failing one-GPU whole pod that
	// gives the bound, or -1 when it is the case where none fails.
	T1 int
	// LPs counts the linear programs solved.
	LPs int
}

// UpperBound is the bound on the final allocation of arrivals on nodes.
func UpperBound(nodes []Node, arrivals []Pod) (Bound, error) {
	c, err := newCluster(nodes, make([]int, len(nodes)))
	if err != nil {
		return Bound{}, err
	}
	b := newBounder(c, arrivals)
	return b.solve()
}

// boundPod is an arrival as the bound sees it.
type boundPod struct {
	num      int
	milli    int64
	cpu, mem int64
	models   uint64
	// next is the index of the first later one-GPU whole pod that
	// dominates this one (len(arrivals) when none): the pod is forced for
	// every t1 after next.
	next int
	// sure says the pod fits whatever happened before it: on some node,
	// even all earlier pods together leave it room.
	sure bool
}

func (p *boundPod) whole1() bool { return p.num == 1 && p.milli == milliPerGPU }

// dominatedBy says p ⪯ w: wherever w fits, p fits.
func (p *boundPod) dominatedBy(w *boundPod) bool {
	return p.num <= w.num && p.milli <= w.milli && p.cpu <= w.cpu && p.mem <= w.mem && w.models&^p.models == 0
}

type bounder struct {
	pods []boundPod
	// q lists the one-GPU whole pods' indices: the candidate t1s.
	q         []int
	gpus      int
	cpu, mem  int64 // the cluster's capacity
	allModels uint64
	nodes     []Node
	lps       int
}

func newBounder(c *cluster, arrivals []Pod) *bounder {
	b := &bounder{gpus: c.gpus, allModels: c.modelSet(nil), nodes: c.nodes}
	for _, n := range c.nodes {
		b.cpu, b.mem = b.cpu+n.CPUCap, b.mem+n.MemCap
	}
	if len(c.models) < 64 {
		b.allModels = 1<<len(c.models) - 1
	}
	b.pods = make([]boundPod, len(arrivals))
	for i, p := range arrivals {
		b.pods[i] = boundPod{num: p.NumGPU, milli: p.Milli, cpu: p.CPU, mem: p.Mem, models: c.modelSet(p.Models) & b.allModels, next: len(arrivals)}
		if b.pods[i].whole1() {
			b.q = append(b.q, i)
		}
	}
	// Scanning backwards, keep the nearest later index of each distinct
	// one-GPU whole pod spec; a pod's next is the smallest that dominates it.
	type spec struct {
		cpu, mem int64
		models   uint64
	}
	nearest := map[spec]int{}
	var specs []spec
	for i := len(b.pods) - 1; i >= 0; i-- {
		p := &b.pods[i]
		if p.num > 0 {
			for _, s := range specs {
				w := boundPod{num: 1, milli: milliPerGPU, cpu: s.cpu, mem: s.mem, models: s.models}
				if j := nearest[s]; j < p.next && p.dominatedBy(&w) {
					p.next = j
				}
			}
		}
		if p.whole1() {
			s := spec{p.cpu, p.mem, p.models}
			if _, ok := nearest[s]; !ok {
				specs = append(specs, s)
			}
			nearest[s] = i
		}
	}
	b.markSure(c, arrivals)
	return b
}

// markSure sets sure on the pods that some node can take even if every
// earlier pod went to it, each GPU pod taking its GPUs whole.
func (b *bounder) markSure(c *cluster, arrivals []Pod) {
	var cpu, mem int64
	gpus := 0
	for i := range b.pods {
		p := &b.pods[i]
		for j := range c.nodes {
			n := &c.nodes[j]
			if p.num > 0 && n.CPUCap-cpu >= p.cpu && n.MemCap-mem >= p.mem && n.GPUs-gpus >= p.num && p.models&(1<<n.model) != 0 {
				p.sure = true
				break
			}
		}
		cpu, mem, gpus = cpu+arrivals[i].CPU, mem+arrivals[i].Mem, gpus+p.num
	}
}

// solve is the branch and bound over t1.
func (b *bounder) solve() (Bound, error) {
	best := Bound{Percent: -1, T1: -2}
	v, ok, err := b.lp(b.items(len(b.pods), len(b.pods)))
	if err != nil {
		return Bound{}, err
	}
	if ok {
		best = Bound{Percent: v, T1: -1}
	}
	type span struct{ lo, hi int } // indices into b.q, [lo, hi)
	var stack []span
	if len(b.q) > 0 {
		stack = append(stack, span{0, len(b.q)})
	}
	for len(stack) > 0 {
		s := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if s.hi-s.lo == 1 {
			if b.pods[b.q[s.lo]].sure {
				continue // it cannot have failed
			}
			v, ok, err := b.lp(b.items(b.q[s.lo], b.q[s.lo]+1))
			if err != nil {
				return Bound{}, err
			}
			if ok && v > best.Percent {
				best = Bound{Percent: v, T1: b.q[s.lo]}
			}
			continue
		}
		v, ok, err := b.lp(b.items(b.q[s.lo], b.q[s.hi-1]+1))
		if err != nil {
			return Bound{}, err
		}
		if !ok || v <= best.Percent+1e-9 {
			continue
		}
		mid := (s.lo + s.hi) / 2
		// The later half first: t1 near the end usually gives the bound.
		stack = append(stack, span{s.lo, mid}, span{mid, s.hi})
	}
	if best.T1 == -2 {
		return Bound{}, errors.New("bound: no first failure is consistent with the arrivals")
	}
	best.LPs = b.lps
	return best, nil
}

// Item roles in the LP.
const (
	roleForced = iota // placed for sure, before t1
	rolePrefix        // may be placed, before t1
	roleEither        // in the range of t1: before or after it
	roleLate          // after t1, only beside an earlier pod
	roleSpare         // after t1, also on a GPU free at t1
	// roleCover counts GPUs holding an early kind (milli 0): at least all
	// but the GPUs that can be free at t1.
	roleCover
)

// boundKind is one row of the LP: GPU milli per unit and role.
type boundKind struct {
	milli int64
	role  int
}

// early says whether the kind can be the pod from before t1 that a GPU
// holds; spare whether it may go on a GPU free at t1 (a kind in t1's range
// is early, which covers both).
func (k boundKind) early() bool { return k.role <= roleEither }
func (k boundKind) spare() bool { return k.role == roleSpare }

// forced says whether every unit of the kind must be placed.
func (k boundKind) forced() bool { return k.role == roleForced || k.role == roleCover }

// boundCount is a kind's GPU units and the least CPU and memory any of them
// asks for per unit (less is a relaxation of the capacity rows).
type boundCount struct{ units, cpu, mem float64 }

// boundInput is one LP: the units of each kind, and the most GPUs that
// can be free at t1 (on nodes where q did not fit).
type boundInput struct {
	items     map[boundKind]*boundCount
	spareGPUs float64
}

// items counts the GPU units of each kind for t1 in [lo, hi): hi = lo+1 is
// one t1 (lo = len(pods): none fails), a wider range relaxes every t1 in
// it. Multi-GPU pods count one unit of 1000 per GPU.
func (b *bounder) items(lo, hi int) boundInput {
	var qcpu, qmem int64
	anyModel, models := false, b.allModels
	single := hi == lo+1
	for i := lo; i < hi && i < len(b.pods); i++ {
		if p := &b.pods[i]; p.whole1() {
			qcpu, qmem = max(qcpu, p.cpu), max(qmem, p.mem)
			anyModel = anyModel || p.models != b.allModels
			models &= p.models
		}
	}
	in := boundInput{items: map[boundKind]*boundCount{}}
	in.spareGPUs = float64(b.gpus) // nothing failed: no GPU needs a pod from before
	if lo < len(b.pods) {
		in.spareGPUs = b.spareGPUs(hi-1, qcpu, qmem, models)
	}
	if cover := float64(b.gpus) - in.spareGPUs; cover > 0 {
		in.items[boundKind{0, roleCover}] = &boundCount{units: cover}
	}
	out := in.items
	for i := range b.pods {
		p := &b.pods[i]
		if p.num == 0 || (single && i == lo) {
			continue // CPU-only pods hold no GPU; q itself failed
		}
		var role int
		switch {
		case i < lo && (p.next < lo || p.whole1() || p.sure):
			role = roleForced
		case i < lo:
			role = rolePrefix
		case i < hi:
			role = roleEither
		case anyModel || p.cpu < qcpu || p.mem < qmem:
			role = roleSpare
		default:
			role = roleLate
		}
		k := boundKind{p.milli, role}
		cpu, mem := float64(p.cpu)/float64(p.num), float64(p.mem)/float64(p.num)
		if n := out[k]; n != nil {
			n.units += float64(p.num)
			n.cpu, n.mem = min(n.cpu, cpu), min(n.mem, mem)
		} else {
			out[k] = &boundCount{float64(p.num), cpu, mem}
		}
	}
	return in
}

// spareGPUs bounds the GPUs free at t1 when q (CPU cpu, memory mem, GPU
// models models) fits on no node and the pods before index before are all
// that can have been placed. Each free GPU lies on a node q does not fit,
// for lack of model (free), of CPU or of memory. Blocking a node by CPU
// takes pods on it asking for all but less than cpu of its CPU, and
// likewise for memory; with CPU and memory measured as shares of the
// cluster's, a node costs the cheaper of its two, and a pod brings the
// larger of its two shares (its load) but holds at least its GPU milli /
// 1000 of the node's GPUs. The bound is the LP relaxation: maximize the
// blocked nodes' GPUs less those their pods hold, subject to their cost
// being at most their pods' load, solved greedily (nodes by GPUs per cost,
// pods by GPUs held per load).
func (b *bounder) spareGPUs(before int, cpu, mem int64, models uint64) float64 {
	type option struct{ gpus, cost float64 }
	var free float64
	var nodes []option
	for _, n := range b.nodes {
		if n.CPUCap < cpu || n.MemCap < mem || models&(1<<n.model) == 0 {
			free += float64(n.GPUs)
			continue
		}
		cost := min(float64(n.CPUCap-cpu+1)/float64(b.cpu), float64(n.MemCap-mem+1)/float64(b.mem))
		nodes = append(nodes, option{float64(n.GPUs), cost})
	}
	type spec struct{ cpu, mem, held int64 }
	counts := map[spec]float64{}
	for i := range before {
		p := &b.pods[i]
		counts[spec{p.cpu, p.mem, int64(p.num) * p.milli}]++
	}
	var pods []option // gpus: held; cost: load (negative: brings it)
	for s, n := range counts {
		load := max(float64(s.cpu)/float64(b.cpu), float64(s.mem)/float64(b.mem))
		if load > 0 {
			pods = append(pods, option{n * float64(s.held) / milliPerGPU, n * load})
		}
	}
	slices.SortFunc(nodes, func(x, y option) int { return cmp.Compare(y.gpus/y.cost, x.gpus/x.cost) })
	slices.SortFunc(pods, func(x, y option) int { return cmp.Compare(x.gpus/x.cost, y.gpus/y.cost) })
	for i, j := 0, 0; i < len(nodes) && j < len(pods); {
		n, p := &nodes[i], &pods[j]
		gain, price := n.gpus/n.cost, p.gpus/p.cost
		if gain <= price {
			break
		}
		take := min(n.cost, p.cost)
		free += take * (gain - price)
		n.gpus, n.cost = n.gpus-take*gain, n.cost-take
		p.gpus, p.cost = p.gpus-take*price, p.cost-take
		if n.cost <= 0 {
			i++
		}
		if p.cost <= 0 {
			j++
		}
	}
	return min(float64(b.gpus), free)
}

// lp solves the bound's LP for items by column generation; ok is false when
// the forced pods do not fit (no run has that t1). The value is in % of the
// cluster's GPU milli.
func (b *bounder) lp(in boundInput) (float64, bool, error) {
	b.lps++
	items := in.items
	kinds := make([]boundKind, 0, len(items))
	var forced float64
	for k, n := range items {
		kinds = append(kinds, k)
		if k.forced() {
			forced += n.units
		}
	}
	slices.SortFunc(kinds, func(x, y boundKind) int {
		if x.milli != y.milli {
			return int(y.milli - x.milli)
		}
		return x.role - y.role
	})
	var configs [][]float64
	for i, k := range kinds {
		if k.early() || k.spare() {
			cfg := make([]float64, len(kinds))
			cfg[i] = float64(milliPerGPU / k.milli)
			markCover(kinds, cfg)
			configs = append(configs, cfg)
		}
	}
	// First the most forced units any packing places: fewer than all
	// means no run has this t1.
	x, configs, err := b.columns(kinds, in, configs, func(k boundKind) float64 {
		if k.forced() {
			return 1
		}
		return 0
	})
	if err != nil {
		return 0, false, err
	}
	if placedForced(kinds, x) < forced-1e-6 {
		return 0, false, nil
	}
	// Then the milli placed, with a bonus on forced units large enough
	// that the optimum places them all (CPU and memory freed by leaving one
	// out can let several others in, so the bonus grows until it does).
	for m := float64(boundBigM); m < 1e13; m *= 10 {
		x, configs, err = b.columns(kinds, in, configs, func(k boundKind) float64 {
			if k.forced() {
				return float64(k.milli) + m
			}
			return float64(k.milli)
		})
		if err != nil {
			return 0, false, err
		}
		if placedForced(kinds, x) >= forced-1e-6 {
			var v float64
			for i, k := range kinds {
				v += float64(k.milli) * x[i]
			}
			return v / float64(b.gpus*milliPerGPU) * 100, true, nil
		}
	}
	return 0, false, errors.New("bound: the forced pods fit but the LP leaves some out")
}

func placedForced(kinds []boundKind, x []float64) float64 {
	var n float64
	for i, k := range kinds {
		if k.forced() {
			n += x[i]
		}
	}
	return n
}

// columns solves the LP with objective obj per unit of each kind by column
// generation from configs, and returns the units placed of each kind and
// the configurations generated.
func (b *bounder) columns(kinds []boundKind, in boundInput, configs [][]float64, obj func(boundKind) float64) ([]float64, [][]float64, error) {
	for range maxLPRounds {
		c, a, rhs := b.problem(kinds, in, configs)
		for i, k := range kinds {
			c[i] = obj(k)
		}
		x, duals, err := maximize(c, a, rhs)
		if err != nil {
			return nil, nil, fmt.Errorf("bound: %w", err)
		}
		k := len(kinds)
		gain, cfg := bestBoundConfig(kinds, duals[:k], duals[k], duals[k+1])
		if gain <= lpEps {
			return x[:len(kinds)], configs, nil
		}
		markCover(kinds, cfg)
		configs = append(configs, cfg)
	}
	return nil, nil, errors.New("bound: column generation did not converge")
}

// problem lays out the LP. Columns: the units placed of each kind, then one
// per configuration. Rows: each kind's coverage by configurations, the
// GPUs, the GPUs free at t1 (configurations of spare kinds only), the
// cluster's CPU and memory, then each kind's count.
func (b *bounder) problem(kinds []boundKind, in boundInput, configs [][]float64) ([]float64, [][]float64, []float64) {
	items := in.items
	k := len(kinds)
	n := k + len(configs)
	c := make([]float64, n)
	var a [][]float64
	var rhs []float64
	row := func(v float64) []float64 {
		r := make([]float64, n)
		a, rhs = append(a, r), append(rhs, v)
		return r
	}
	for i := range kinds {
		r := row(0)
		r[i] = 1
		for j, cfg := range configs {
			r[k+j] = -cfg[i]
		}
	}
	r := row(float64(b.gpus))
	spare := row(in.spareGPUs)
	for j, cfg := range configs {
		r[k+j] = 1
		if spareOnly(kinds, cfg) {
			spare[k+j] = 1
		}
	}
	cpu, mem := row(float64(b.cpu)), row(float64(b.mem))
	for i, kd := range kinds {
		cpu[i], mem[i] = items[kd].cpu, items[kd].mem
	}
	for i, kd := range kinds {
		row(items[kd].units)[i] = 1
	}
	return c, a, rhs
}

// bestBoundConfig is the allowed configuration of greatest reduced profit,
// and that profit: one GPU holding at least one early kind (anything beside
// it), priced against the GPUs row's dual gpu, or only spare kinds, against
// gpu plus the spare row's dual spare. Both are unbounded knapsacks over
// the GPU's milli on the kinds' duals y.
func bestBoundConfig(kinds []boundKind, y []float64, gpu, spare float64) (float64, []float64) {
	const none = -1.0
	var anyV, earlyV, spareV [milliPerGPU + 1]float64
	// Choice per capacity: the kind added last and the layer it came from
	// (for earlyV: whether the rest was drawn from anyV).
	var anyK, earlyK, spareK [milliPerGPU + 1]int
	var earlyFromAny [milliPerGPU + 1]bool
	for c := 0; c <= milliPerGPU; c++ {
		anyK[c], earlyK[c], spareK[c] = -1, -1, -1
		earlyV[c] = none
		for i, k := range kinds {
			s := int(k.milli)
			if s > c || s == 0 {
				continue
			}
			if v := anyV[c-s] + y[i]; v > anyV[c]+lpEps {
				anyV[c], anyK[c] = v, i
			}
			if k.spare() {
				if v := spareV[c-s] + y[i]; v > spareV[c]+lpEps {
					spareV[c], spareK[c] = v, i
				}
			}
			if k.early() {
				if v := anyV[c-s] + y[i]; v > earlyV[c]+lpEps {
					earlyV[c], earlyK[c], earlyFromAny[c] = v, i, true
				}
			}
			if earlyV[c-s] != none {
				if v := earlyV[c-s] + y[i]; v > earlyV[c]+lpEps {
					earlyV[c], earlyK[c], earlyFromAny[c] = v, i, false
				}
			}
		}
	}
	cfg := make([]float64, len(kinds))
	fill := func(choice *[milliPerGPU + 1]int, c int) {
		for ; c > 0 && choice[c] >= 0; c -= int(kinds[choice[c]].milli) {
			cfg[choice[c]]++
		}
	}
	var cover float64 // an early configuration also covers a GPU
	if i := slices.IndexFunc(kinds, func(k boundKind) bool { return k.role == roleCover }); i >= 0 {
		cover = y[i]
	}
	if spareV[milliPerGPU]-spare >= earlyV[milliPerGPU]+cover {
		fill(&spareK, milliPerGPU)
		return spareV[milliPerGPU] - spare - gpu, cfg
	}
	c := milliPerGPU
	for c > 0 && earlyK[c] >= 0 {
		i, fromAny := earlyK[c], earlyFromAny[c]
		cfg[i]++
		c -= int(kinds[i].milli)
		if fromAny {
			fill(&anyK, c)
			break
		}
	}
	return earlyV[milliPerGPU] + cover - gpu, cfg
}

// markCover sets the cover unit of a configuration holding an early kind.
func markCover(kinds []boundKind, cfg []float64) {
	if spareOnly(kinds, cfg) {
		return
	}
	for i, k := range kinds {
		if k.role == roleCover {
			cfg[i] = 1
		}
	}
}

// spareOnly says whether cfg holds no early kind: a GPU free at t1.
func spareOnly(kinds []boundKind, cfg []float64) bool {
	for i, k := range kinds {
		if cfg[i] > 0 && k.early() {
			return false
		}
	}
	return true
}
