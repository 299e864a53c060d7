package packbench

// gpuwiseScale is the width, in GPU milli, of one step of gpuwise's
// integer score: wider than FGD's 1000, so that more nodes tie on the
// fragmentation delta and the random node rank spreads them.
const gpuwiseScale = 2000

// gpuwise is gpuwise's own placement policy. Like FGD it places a pod where
// the node's expected fragmentation grows least, but it measures
// fragmentation against what the node can really still host:
//
//   - typical pods are learned with their memory request, and a typical pod
//     fits only if its CPU and memory fit (FGD ignores memory, so it strands
//     GPUs on nodes whose memory is gone);
//   - on top of FGD's one-pod test, the fluid term counts how many copies of
//     each typical pod the node's GPUs, CPU and memory could still take
//     together, so that a node about to run out of CPU or memory before its
//     GPUs counts those GPUs as lost, not only when the very next pod fails.
//
// The delta is scored as sigmoid(delta/gpuwiseScale) × 100 truncated to an
// integer; ties go to the node with the smallest random rank, as in FGD.
// The truncation matters: scoring the exact float delta (tried) makes every
// pod chase the single best node and lowers allocation by 1–3 points.
type gpuwise struct {
	typical []typicalPod
}

func newGpuwise(c *cluster, pods []Pod) gpuwise {
	return gpuwise{typical: typicalPods(c, pods, true)}
}

func (p gpuwise) score(n *Node, r *request) (score, int) {
	if n.ownVersion != n.version+1 {
		n.own, n.ownVersion = p.frag(n.model, n.CPU, n.Mem, n.Free[:n.GPUs]), n.version+1
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
// fragmentation does not depend on which of equal GPUs a pod takes.
func sameFree(n *Node, g int) bool {
	for _, f := range n.Free[:g] {
		if f == n.Free[g] {
			return true
		}
	}
	return false
}

func (p gpuwise) rate(n *Node, r *request, free *[MaxGPUs]int64) score {
	after := p.frag(n.model, n.CPU-r.cpu, n.Mem-r.mem, free[:n.GPUs])
	return score{float64(int64(sigmoid((n.own-after)/gpuwiseScale) * 100))}
}

// frag is FGD's fragmentation (memory-aware) plus the fluid term.
func (p gpuwise) frag(model int, cpu, mem int64, free []int64) float64 {
	b := fragOf(p.typical, model, cpu, mem, free)
	return b.total() + fluidFrag(p.typical, model, cpu, mem, free)
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
