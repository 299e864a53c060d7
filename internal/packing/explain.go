package packing

import (
	"fmt"
	"slices"
	"strings"
)

// explain says why a workload fits on no node: the first constraint that
// rules out every remaining node (GPU model, MIG profile, GPU count,
// taints, selector, CPU, memory), or "no room" when some node could hold
// it but all such nodes are full.
//
// The answer depends only on what explainKey holds (the nodes are fixed
// for a solver, and no filter reads their state), so it is computed once
// per key: replicas of one workload that fit nowhere share it.
func (s *solver) explain(wi int32) string {
	k := &s.works[wi]
	key := explainKey{sig: k.sig, d: k.d, cpu: k.cpu, mem: k.mem, pinned: k.pinned}
	if k.pinned {
		key.node = k.w.Node
	}
	if why, ok := s.explained[key]; ok {
		return why
	}
	why := s.explainNow(k)
	s.explained[key] = why
	return why
}

// explainKey is everything explain reads of a work: its signature (shape
// kind and size, MIG profile, allowed models, tolerations, selector), its
// shape, requests, and for a pinned one its node.
type explainKey struct {
	sig      int
	d        Demand
	cpu, mem int64
	pinned   bool
	node     string
}

// explainNow is explain without the memo.
func (s *solver) explainNow(k *work) string {
	w := k.w
	cand := s.cand[:0]
	defer func() { s.cand = cand[:0] }()
	for i := range s.nodes {
		if !k.pinned || s.nodes[i].Name == w.Node {
			cand = append(cand, s.nodes[i].Node)
		}
	}
	type filter struct {
		keep func(*Node) bool
		why  func(before []*Node) string
	}
	gpuKind := k.d.Kind != NoGPU
	filters := []filter{
		{func(n *Node) bool { return !gpuKind || n.GPUs > 0 }, func([]*Node) string { return "no node in the plan has GPUs" }},
		{func(n *Node) bool { return !gpuKind || modelAllowed(k.models, n.Model) }, func(b []*Node) string {
			return fmt.Sprintf("no node with GPU model %s (nodes have %s)", strings.Join(k.models, " or "), modelsOf(b))
		}},
		{func(n *Node) bool { return k.d.Kind != MIG || s.ms.get(n.Model).profileIndex(k.prof) >= 0 }, func(b []*Node) string {
			return fmt.Sprintf("no node's GPU offers MIG profile %s (%s)", k.d.Profile, modelsOf(b))
		}},
		{func(n *Node) bool { return k.d.Kind != Whole || n.GPUs >= k.d.GPUs }, func(b []*Node) string {
			return fmt.Sprintf("needs %d GPUs on one node; the largest eligible node has %d", k.d.GPUs, maxOf(b, func(n *Node) int64 { return int64(n.GPUs) }))
		}},
		{func(n *Node) bool { return untolerated(n.Taints, w.Tolerations) == nil }, func(b []*Node) string {
			t := untolerated(b[0].Taints, w.Tolerations)
			return fmt.Sprintf("every eligible node has a taint the pod does not tolerate (e.g. %s=%s:%s on %s); add a toleration", t.Key, t.Value, t.Effect, b[0].Name)
		}},
		{func(n *Node) bool { return unmatched(w.NodeSelector, n.Labels) == "" }, func(b []*Node) string {
			return fmt.Sprintf("no eligible node matches the node selector (e.g. %s on %s)", unmatched(w.NodeSelector, b[0].Labels), b[0].Name)
		}},
		{func(n *Node) bool { return k.cpu <= n.CPUMilli }, func(b []*Node) string {
			return fmt.Sprintf("requests %dm CPU; the largest eligible node has %dm for workloads", k.cpu, maxOf(b, func(n *Node) int64 { return n.CPUMilli }))
		}},
		{func(n *Node) bool { return k.mem <= n.MemoryBytes }, func(b []*Node) string {
			return fmt.Sprintf("requests %s memory; the largest eligible node has %s for workloads", gib(k.mem), gib(maxOf(b, func(n *Node) int64 { return n.MemoryBytes })))
		}},
	}
	for _, f := range filters {
		// Filtered in place: when nothing is kept nothing is written, so
		// why sees the candidates before this filter.
		next := cand[:0]
		for _, n := range cand {
			if f.keep(n) {
				next = append(next, n)
			}
		}
		if len(next) == 0 {
			if len(cand) == 0 {
				return "no nodes in the plan"
			}
			return f.why(cand)
		}
		cand = next
	}
	if k.pinned {
		return fmt.Sprintf("pinned to node %s, which has no room left for it (%s)", w.Node, k.d)
	}
	return fmt.Sprintf("no room: all %d eligible node(s) are full (%s, %dm CPU, %s memory)", len(cand), k.d, k.cpu, gib(k.mem))
}

func modelsOf(nodes []*Node) string {
	var ms []string
	for _, n := range nodes {
		if n.Model != "" && !slices.Contains(ms, n.Model) {
			ms = append(ms, n.Model)
		}
	}
	slices.Sort(ms)
	if len(ms) == 0 {
		return "none"
	}
	return strings.Join(ms, ", ")
}

func maxOf(nodes []*Node, f func(*Node) int64) int64 {
	var m int64
	for _, n := range nodes {
		m = max(m, f(n))
	}
	return m
}
