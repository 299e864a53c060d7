package packbench

import "math"

// gpuwiseParams are gpuwise's knobs. The same values serve every workload
// mix; everything workload-specific (typical pods, cores per GPU, the
// sliver-waste table, the request prices and which resource is scarce) is
// learned from the un-inflated trace, as FGD learns its typical pods.
type gpuwiseParams struct {
	// scale is the width, in GPU milli, of one step of the integer score:
	// wider than FGD's 1000, so that more nodes tie and the random node
	// rank spreads them.
	scale float64
	// balance weighs the CPU/memory balance term.
	balance float64
	// lookahead weighs the expected final waste of the node's GPU slivers.
	lookahead float64
	// chances is how many arrivals, in effect, get to fill a sliver: a
	// sliver that a fraction p of typical pods fits is filled with
	// probability 1-(1-p)^chances.
	chances float64
	// fluid weighs the earlier "fluid" stranded-capacity term (ablation
	// only; 0 in the shipped policy).
	fluid float64
	// frag weighs FGD's fragmentation and potential the LP potential
	// term, in GPU milli per GPU of price, when GPUs are the trace's
	// scarce resource; when they are nearly so frag is 1, and when CPU or
	// memory binds clearly first frag is 1 and potential 0 (see gpuShare
	// and potentialShare).
	frag, potential float64
}

var defaultGpuwiseParams = gpuwiseParams{scale: 2000, balance: 1, lookahead: 2, chances: 50, frag: 0.25, potential: 4}

// gpuwise is gpuwise's own placement policy. Like FGD it puts each pod on
// the node whose cost grows least, scores the growth as
// sigmoid(-growth/scale) × 100 truncated to an integer and lets FGD's
// random node rank break ties. The truncation matters: scoring the exact
// float makes every pod chase the single best node and loses 1-3 points.
// A node's cost is the sum of four terms, all in GPU milli:
//
//   - FGD's fragmentation, with typical pods learned with their memory
//     request so that a typical pod fits only where its CPU and memory fit
//     (FGD ignores memory and strands GPUs on nodes whose memory is gone);
//   - the balance term: the node's idle GPU milli that its free CPU (or
//     memory) cannot serve at the trace's average CPU (memory) per GPU
//     milli of GPU pods. FGD sees no change when a CPU-heavy, GPU-light pod
//     (a CPU-only pod, a 470-milli pod with 10 cores) lands on a node whose
//     GPUs all stay free, so its random tie-break scatters such pods onto
//     CPU-poor 8-GPU nodes, whose GPUs later lack the CPU to be used. The
//     term steers them to nodes with CPU to spare (T4 nodes, 52 cores per
//     GPU) and, when CPU is short cluster-wide, favours GPU-dense pods on
//     CPU-poor nodes;
//   - the lookahead term: for each GPU, the expected GPU milli that will
//     never be allocated, waste(free), learned from the typical pods (see
//     sliverWaste). FGD counts a sliver as fragment for the typical pods too
//     big for it now; the lookahead also knows that a 530-milli sliver will
//     most likely take a 470-milli pod and end at 60, while a 190-milli
//     sliver will most likely stay empty, so it prefers combinations whose
//     final remainder is small;
//   - the potential term, when GPUs are the scarce resource: minus, for
//     each GPU, the price of the requests its free milli can still take at
//     the prices of an optimal offline packing of the trace (gpuPrices,
//     gpuPotential). Placing a request costs at least its own price; a
//     placement that costs more spoils a GPU for the combinations the
//     optimal packing uses, such as a 320 in the 530 left by a 470 (210
//     left, which only rare small requests fill) instead of beside a 650.
type gpuwise struct {
	typical []typicalPod
	p       gpuwiseParams
	// cpuPerGPU and memPerGPU are the GPU pods' average CPU milli and
	// memory MiB per GPU milli.
	cpuPerGPU, memPerGPU float64
	// waste is, per model, the expected final waste of a GPU with f free.
	waste [][milliPerGPU + 1]float64
	// potential is, per model, the price a GPU with f free can still take;
	// nil when the term is off.
	potential []*[milliPerGPU + 1]float64
}

func newGpuwise(c *cluster, pods []Pod) (gpuwise, error) {
	return newGpuwiseWith(c, pods, defaultGpuwiseParams)
}

func newGpuwiseWith(c *cluster, pods []Pod, p gpuwiseParams) (gpuwise, error) {
	switch share := gpuShare(c, pods); {
	case share >= 1:
	case share >= potentialShare:
		p.frag = 1
	default:
		p.frag, p.potential = 1, 0
	}
	g := gpuwise{typical: typicalPods(c, pods, true), p: p}
	var cpu, mem, gpu float64
	for _, q := range pods {
		if q.NumGPU > 0 {
			cpu += float64(q.CPU)
			mem += float64(q.Mem)
			gpu += float64(q.GPUDemand())
		}
	}
	if gpu > 0 {
		g.cpuPerGPU, g.memPerGPU = cpu/gpu, mem/gpu
	}
	g.waste = make([][milliPerGPU + 1]float64, len(c.models))
	for m := range c.models {
		sliverWaste(&g.waste[m], g.typical, m, p.chances)
	}
	if p.potential == 0 {
		return g, nil
	}
	var err error
	g.potential, err = modelPotentials(c, pods)
	return g, err
}

// sliverWaste fills w[f], the expected GPU milli of a GPU with f milli free
// (on a node of model) that is never allocated. The next single-GPU typical
// pod to land on it is drawn in proportion to frequency among those that
// fit; one lands at all with probability 1-(1-p)^chances, where p is the
// fitting typical pods' total frequency, else the f milli are wasted:
//
//	w[f] = q·Σ freq_t·w[f-milli_t]/p + (1-q)·f,  q = 1-(1-p)^chances.
//
// Whole GPUs are included (a 1000-milli pod leaves w[0] = 0), so a whole
// GPU's expected waste reflects the chance that an 810-milli pod takes it.
func sliverWaste(w *[milliPerGPU + 1]float64, typical []typicalPod, model int, chances float64) {
	for f := 1; f <= milliPerGPU; f++ {
		var p, next float64
		for i := range typical {
			t := &typical[i]
			if t.num != 1 || t.milli == 0 || t.milli > int64(f) || t.models&(1<<model) == 0 {
				continue
			}
			p += t.freq
			next += t.freq * w[f-int(t.milli)]
		}
		if p == 0 {
			w[f] = float64(f)
			continue
		}
		q := 1 - math.Pow(1-min(p, 1), chances)
		w[f] = q*next/p + (1-q)*float64(f)
	}
}

func (p gpuwise) score(n *Node, r *request) (score, int) {
	if n.ownVersion != n.version+1 {
		n.own, n.ownVersion = p.cost(n.model, n.CPU, n.Mem, n.Free[:n.GPUs]), n.version+1
	}
	if !r.fractional() {
		free := n.Free
		takeSmallest(free[:n.GPUs], r.num, r.milli)
		return p.rate(n, r, &free), -1
	}
	var best score
	gpu := -1
	for g, f := range n.Free[:n.GPUs] {
		if f < r.milli || (g > 0 && sameFree(n, g)) {
			continue
		}
		free := n.Free
		free[g] -= r.milli
		if s := p.rate(n, r, &free); gpu < 0 || best.less(s) {
			best, gpu = s, g
		}
	}
	return best, gpu
}

// sameFree says whether an earlier GPU has GPU g's free milli: the node's
// cost does not depend on which of equal GPUs a pod takes.
func sameFree(n *Node, g int) bool {
	for _, f := range n.Free[:g] {
		if f == n.Free[g] {
			return true
		}
	}
	return false
}

func (p gpuwise) rate(n *Node, r *request, free *[MaxGPUs]int64) score {
	after := p.cost(n.model, n.CPU-r.cpu, n.Mem-r.mem, free[:n.GPUs])
	return score{float64(int64(sigmoid((n.own-after)/p.p.scale) * 100))}
}

// cost is the node's cost: FGD's (memory-aware) fragmentation plus the
// weighted balance and lookahead terms, minus the weighted potential (and
// the fluid term, if weighted).
func (p gpuwise) cost(model int, cpu, mem int64, free []int64) float64 {
	b := fragOf(p.typical, model, cpu, mem, free)
	c := p.p.frag * b.total()
	var idle int64
	var waste, potential float64
	for _, f := range free {
		idle += f
		waste += p.waste[model][f]
		if p.potential != nil {
			potential += p.potential[model][f]
		}
	}
	c += p.p.lookahead*waste - p.p.potential*milliPerGPU*potential
	if p.cpuPerGPU > 0 {
		unserved := max(0, float64(idle)-float64(cpu)/p.cpuPerGPU, float64(idle)-float64(mem)/p.memPerGPU)
		c += p.p.balance * unserved
	}
	if p.p.fluid != 0 {
		c += p.p.fluid * fluidFrag(p.typical, model, cpu, mem, free)
	}
	return c
}

// fluidFrag is the expected GPU milli a node could not host if it were
// filled with copies of one typical pod drawn from typical.
func fluidFrag(typical []typicalPod, model int, cpu, mem int64, free []int64) float64 {
	var idle int64
	for _, f := range free {
		idle += f
	}
	var frag float64
	for i := range typical {
		t := &typical[i]
		frag += t.freq * float64(idle-fillable(t, model, cpu, mem, free))
	}
	return frag
}

// fillable is the GPU milli that copies of t could take on the node, as
// many as its GPUs, CPU and memory allow.
func fillable(t *typicalPod, model int, cpu, mem int64, free []int64) int64 {
	if t.milli == 0 || t.models&(1<<model) == 0 {
		return 0
	}
	var slots int64
	for _, f := range free {
		slots += f / t.milli
	}
	copies := min(slots/int64(t.num), cpu/t.cpu)
	if t.mem > 0 {
		copies = min(copies, mem/t.mem)
	}
	return copies * int64(t.num) * t.milli
}
