package packbench

import (
	"fmt"
	"slices"
	"strings"

	"github.com/gpuwise/gpuwise/internal/trace"
)

// MaxGPUs is the most GPUs a node may have; openb nodes have 1, 2, 4 or 8.
const MaxGPUs = 8

// milliPerGPU is one whole GPU in milli-GPU.
const milliPerGPU = 1000

// Node is one node's shape and what is left of it.
type Node struct {
	Name           string
	Model          string
	GPUs           int
	CPUCap, MemCap int64
	CPU, Mem       int64 // free CPU milli and memory MiB
	Free           [MaxGPUs]int64
	// Prio is the node's random tie-break rank: among equal scores the
	// smallest wins.
	Prio int

	model   int      // index of Model in the cluster's model list
	version int      // counts changes, to invalidate cached scores
	bins    fragBins // FGD fragmentation of the current state, by bin
	frag    float64  // bins.total()
	// own is a policy's cached per-node value, valid at ownVersion-1.
	own        float64
	ownVersion int
}

// Idle is the node's free GPU milli.
func (n *Node) Idle() int64 {
	var s int64
	for _, f := range n.Free[:n.GPUs] {
		s += f
	}
	return s
}

// Pod is one pod's request, converted the way the FGD artifact converts
// the trace: GPU milli per GPU, clamped to 1000.
type Pod struct {
	Name     string
	CPU, Mem int64
	// NumGPU is 0 for CPU-only pods; Milli is then 0 too.
	NumGPU int
	Milli  int64
	// Models are the GPU models the pod accepts; empty means any.
	Models []string
}

// GPUDemand is the pod's GPU request in milli-GPU.
func (p Pod) GPUDemand() int64 { return int64(p.NumGPU) * p.Milli }

// NodesFromOpenB converts an openb node list, keeping GPU nodes only (the
// protocol simulates the 1,213 GPU nodes).
func NodesFromOpenB(rows []trace.OpenBNode) ([]Node, error) {
	var nodes []Node
	for _, r := range rows {
		if r.GPUs == 0 {
			continue
		}
		if r.GPUs > MaxGPUs {
			return nil, fmt.Errorf("node %s: %d GPUs, at most %d supported", r.Name, r.GPUs, MaxGPUs)
		}
		n := Node{Name: r.Name, Model: r.Model, GPUs: r.GPUs, CPUCap: r.CPUMilli, MemCap: r.MemoryMiB, CPU: r.CPUMilli, Mem: r.MemoryMiB}
		for g := range r.GPUs {
			n.Free[g] = milliPerGPU
		}
		nodes = append(nodes, n)
	}
	if len(nodes) == 0 {
		return nil, fmt.Errorf("no GPU nodes")
	}
	return nodes, nil
}

// PodsFromOpenB converts an openb pod list: GPU milli above 1000 becomes
// 1000, and a GPU pod asking for 0 milli is a CPU-only pod.
func PodsFromOpenB(rows []trace.OpenBPod) []Pod {
	pods := make([]Pod, len(rows))
	for i, r := range rows {
		p := Pod{Name: r.Name, CPU: r.CPUMilli, Mem: r.MemoryMiB, NumGPU: r.NumGPU, Milli: min(r.GPUMilli, milliPerGPU), Models: r.GPUSpec}
		if p.NumGPU == 0 || p.Milli == 0 {
			p.NumGPU, p.Milli, p.Models = 0, 0, nil
		}
		pods[i] = p
	}
	return pods
}

// request is a pod as the placement loop sees it.
type request struct {
	cpu, mem int64
	num      int
	milli    int64
	// models is a bit set over the cluster's models; all ones means any.
	models uint64
	// spec numbers the distinct requests, to cache scores.
	spec int
}

func (r *request) fractional() bool { return r.num == 1 && r.milli < milliPerGPU }

// cluster is the state one run mutates.
type cluster struct {
	nodes  []Node
	models []string
	gpus   int
}

// newCluster copies nodes, sorted by name, and ranks them by prio.
func newCluster(nodes []Node, prio []int) (*cluster, error) {
	c := &cluster{nodes: slices.Clone(nodes)}
	slices.SortStableFunc(c.nodes, func(a, b Node) int { return strings.Compare(a.Name, b.Name) })
	for i := range c.nodes {
		n := &c.nodes[i]
		n.Prio = prio[i]
		n.model = slices.Index(c.models, n.Model)
		if n.model < 0 {
			c.models = append(c.models, n.Model)
			n.model = len(c.models) - 1
		}
		c.gpus += n.GPUs
	}
	if len(c.models) > 64 {
		return nil, fmt.Errorf("%d GPU models, at most 64 supported", len(c.models))
	}
	return c, nil
}

// modelSet is the bit set of the cluster's models among names; all ones
// when names is empty.
func (c *cluster) modelSet(names []string) uint64 {
	if len(names) == 0 {
		return ^uint64(0)
	}
	var set uint64
	for i, m := range c.models {
		if slices.Contains(names, m) {
			set |= 1 << i
		}
	}
	return set
}

// fits is the protocol's filter: CPU, memory, GPU model and GPU capacity.
func fits(n *Node, r *request) bool {
	if n.CPU < r.cpu || n.Mem < r.mem {
		return false
	}
	if r.num == 0 {
		return true
	}
	return r.models&(1<<n.model) != 0 && gpusFit(n, r.num, r.milli)
}

// gpusFit says whether num GPUs of milli each fit, filling GPUs greedily.
func gpusFit(n *Node, num int, milli int64) bool {
	k := 0
	for _, f := range n.Free[:n.GPUs] {
		k += int(f / milli)
	}
	return k >= num
}

// bind places r on n: a fractional pod on GPU gpu, whole-GPU pods on the
// lowest-indexed GPUs with room.
func bind(n *Node, r *request, gpu int) {
	n.CPU -= r.cpu
	n.Mem -= r.mem
	n.version++
	if r.fractional() {
		n.Free[gpu] -= r.milli
		return
	}
	left := r.num
	for g := 0; g < n.GPUs && left > 0; g++ {
		for n.Free[g] >= r.milli && left > 0 {
			n.Free[g] -= r.milli
			left--
		}
	}
}
