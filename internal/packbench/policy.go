package packbench

import (
	"fmt"
	"math"
)

// Policy names.
const (
	BestFit = "bestfit"
	FGD     = "fgd"
	Gpuwise = "gpuwise"
)

// Policies are the placement policies Run knows, in the order reports list them.
var Policies = []string{BestFit, FGD, Gpuwise}

// score ranks a node for a pod: higher is better, compared element by
// element; equal scores go to the node with the smallest Prio.
type score [3]float64

func (s score) less(o score) bool {
	for i := range s {
		if s[i] != o[i] {
			return s[i] < o[i]
		}
	}
	return false
}

// policy scores a node that passed the filter. Scores must depend only on
// the node's state and the request, so that the run can cache them until
// the node changes. gpu is the GPU a fractional pod would use.
type policy interface {
	score(n *Node, r *request) (s score, gpu int)
}

func newPolicy(name string, c *cluster, pods []Pod, typical []typicalPod) (policy, error) {
	switch name {
	case BestFit:
		return bestFit{}, nil
	case FGD:
		return fgd{typical: typical}, nil
	case Gpuwise:
		if c == nil {
			return gpuwise{}, nil
		}
		return newGpuwise(c, pods)
	}
	return nil, fmt.Errorf("unknown policy %q, want one of %v", name, Policies)
}

// Cluster-wide "max spec" constants BestFit normalises leftovers by.
const (
	bestFitMaxCPU = 128000
	bestFitMaxGPU = 8000
)

// bestFit packs tightly: the smaller the CPU and GPU left after placing the
// pod, the higher the score, truncated to an integer in 0..100. A
// fractional pod goes on the GPU with the least room that still fits.
type bestFit struct{}

func (bestFit) score(n *Node, r *request) (score, int) {
	// Operation order kept for bit-exact truncation.
	var s float64
	s += float64(n.CPU-r.cpu) / bestFitMaxCPU * 0.5
	s += float64(n.Idle()-int64(r.num)*r.milli) / bestFitMaxGPU * 0.5
	gpu := -1
	if r.fractional() {
		gpu = tightestGPU(n, r.milli)
	}
	return score{float64(int64((1.0 - s) * 100))}, gpu
}

// tightestGPU is the lowest-indexed GPU with the least free milli >= milli.
func tightestGPU(n *Node, milli int64) int {
	gpu := -1
	for g, f := range n.Free[:n.GPUs] {
		if f >= milli && (gpu < 0 || f < n.Free[gpu]) {
			gpu = g
		}
	}
	return gpu
}

// fgd is Fragmentation Gradient Descent: the node whose expected
// fragmentation (fragOf) grows least when the pod lands on it, scored as
// sigmoid(-growth/1000) × 100 truncated to an integer. A fractional pod
// tries each GPU with room; the first with the best score wins.
type fgd struct {
	typical []typicalPod
}

func (p fgd) score(n *Node, r *request) (score, int) {
	if !r.fractional() {
		free := n.Free
		takeSmallest(free[:n.GPUs], r.num, r.milli)
		return score{fgdScore(n.frag, p.after(n, r, &free))}, -1
	}
	best, gpu := 0.0, -1
	for g, f := range n.Free[:n.GPUs] {
		if f < r.milli {
			continue
		}
		free := n.Free
		free[g] -= r.milli
		if s := fgdScore(n.frag, p.after(n, r, &free)); gpu < 0 || s > best {
			best, gpu = s, g
		}
	}
	return score{best}, gpu
}

func (p fgd) after(n *Node, r *request, free *[MaxGPUs]int64) float64 {
	bins := fragOf(p.typical, n.model, n.CPU-r.cpu, n.Mem-r.mem, free[:n.GPUs])
	return bins.total()
}

func fgdScore(before, after float64) float64 {
	return float64(int64(sigmoid((before-after)/1000) * 100))
}

func sigmoid(x float64) float64 { return 1 / (1 + math.Exp(-x)) }

// takeSmallest takes num × milli from the GPUs with the least free milli
// that still fit, one GPU at a time.
func takeSmallest(free []int64, num int, milli int64) {
	for range num {
		g := -1
		for i, f := range free {
			if f >= milli && (g < 0 || f < free[g]) {
				g = i
			}
		}
		if g < 0 {
			return
		}
		free[g] -= milli
	}
}
