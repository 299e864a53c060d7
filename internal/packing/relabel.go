package packing

import (
	"cmp"
	"fmt"
	"slices"
)

// relabel swaps the packed contents of interchangeable nodes so that as
// many workloads as possible stay on the node they run on now. Nodes are
// interchangeable when pool, model, GPUs, capacity, price and taints match
// and the target node satisfies every workload of the packed set (its
// labels may differ, e.g. the zone). Nodes holding pinned workloads or
// workloads whose selector names one node keep their contents. The packing
// itself, and so every constraint, is unchanged.
func (s *solver) relabel(slots []slot) []slot {
	idx := make(map[string]int32, len(s.nodes))
	for i := range s.nodes {
		idx[s.nodes[i].Name] = int32(i)
	}
	group := make([]string, len(s.nodes))
	members := map[string][]int{}
	var keys []string
	for ci := range s.classes {
		for _, ni := range s.classes[ci].nodes {
			g := coarseKey(s.nodes[ni].Node)
			group[ni] = g
			if members[g] == nil {
				keys = append(keys, g)
			}
			members[g] = append(members[g], ni)
		}
	}
	r := relabeler{s: s, perm: make([]int32, len(s.nodes)), taken: make([]bool, len(s.nodes)),
		used: make([]bool, len(s.nodes)), fixed: make([]bool, len(s.nodes)), sigs: make([][]int, len(s.nodes))}
	type pair struct{ bin, node int32 }
	overlap := map[pair]int{}
	for wi, sl := range slots {
		if sl.node < 0 {
			continue
		}
		b := sl.node
		r.used[b] = true
		k := &s.works[wi]
		if k.pinned || k.perNode || s.nodes[b].Keep {
			r.fixed[b] = true
		}
		if !slices.Contains(r.sigs[b], k.sig) {
			r.sigs[b] = append(r.sigs[b], k.sig)
		}
		if cur, ok := idx[k.w.Node]; ok && group[cur] == group[b] {
			overlap[pair{b, cur}]++
		}
	}
	for i := range r.perm {
		r.perm[i] = -1
		if r.fixed[i] {
			r.perm[i], r.taken[i] = int32(i), true
		}
	}
	pairs := make([]pair, 0, len(overlap))
	for p := range overlap {
		pairs = append(pairs, p)
	}
	slices.SortFunc(pairs, func(a, b pair) int {
		return cmp.Or(cmp.Compare(overlap[b], overlap[a]), cmp.Compare(a.bin, b.bin), cmp.Compare(a.node, b.node))
	})
	for _, p := range pairs {
		if r.used[p.bin] && r.perm[p.bin] < 0 && !r.taken[p.node] && r.fits(int(p.bin), int(p.node)) {
			r.perm[p.bin], r.taken[p.node] = p.node, true
		}
	}
	stay := s.unplacedHosts(slots, idx)
	for _, g := range keys {
		r.fill(members[g], stay)
	}
	out := slices.Clone(slots)
	for wi := range out {
		if out[wi].node >= 0 {
			out[wi].node = r.perm[out[wi].node]
		}
	}
	return out
}

type relabeler struct {
	s                  *solver
	perm               []int32 // bin → physical node
	taken, used, fixed []bool
	sigs               [][]int // bin → eligibility signatures of its workloads
}

// fits reports whether node p satisfies every workload packed in bin b.
func (r *relabeler) fits(b, p int) bool {
	if b == p {
		return true
	}
	if r.fixed[p] {
		return false
	}
	c := r.s.nodes[p].class
	for _, sig := range r.sigs[b] {
		if !slices.Contains(r.s.elig[sig], c) {
			return false
		}
	}
	return true
}

// fill gives a group's bins left over free nodes: nodes that stay anyway
// first, then the bin's own node, then any node that fits. If some bin
// finds none, the group keeps the packer's own assignment.
func (r *relabeler) fill(nodes []int, stay []bool) {
	var bins []int
	for _, b := range nodes {
		if r.used[b] && r.perm[b] < 0 {
			bins = append(bins, b)
		}
	}
	if len(bins) == 0 {
		return
	}
	assign := func(b int, ok func(int) bool) bool {
		for _, n := range nodes {
			if !r.taken[n] && ok(n) && r.fits(b, n) {
				r.perm[b], r.taken[n] = int32(n), true
				return true
			}
		}
		return false
	}
	var rest []int
	for _, b := range bins {
		if !assign(b, func(n int) bool { return stay[n] }) {
			rest = append(rest, b)
		}
	}
	var last []int
	for _, b := range rest {
		if !assign(b, func(n int) bool { return n == b }) {
			last = append(last, b)
		}
	}
	for _, b := range last {
		if !assign(b, func(int) bool { return true }) {
			r.identity(nodes)
			return
		}
	}
}

// identity undoes a group's relabelling: every bin on its own node.
func (r *relabeler) identity(nodes []int) {
	for _, n := range nodes {
		if !r.fixed[n] {
			r.perm[n], r.taken[n] = -1, false
		}
	}
	for _, n := range nodes {
		if r.used[n] && !r.fixed[n] {
			r.perm[n], r.taken[n] = int32(n), true
		}
	}
}

// unplacedHosts marks the nodes that stay because a workload on them fits
// nowhere: bins should land there rather than keep another node too.
func (s *solver) unplacedHosts(slots []slot, idx map[string]int32) []bool {
	hosts := make([]bool, len(s.nodes))
	for wi, sl := range slots {
		if sl.node < 0 {
			if ni, ok := idx[s.works[wi].w.Node]; ok {
				hosts[ni] = true
			}
		}
	}
	return hosts
}

// coarseKey groups nodes that differ at most in labels.
func coarseKey(n *Node) string {
	key := fmt.Sprintf("%s|%s|%d|%d|%d|%g|%v|%v", n.Pool, n.Model, n.GPUs, n.CPUMilli, n.MemoryBytes, n.USDPerHour, n.Priced, n.Taints)
	if n.Keep {
		key += "|keep:" + n.Name
	}
	return key
}
