package packing

import (
	"maps"

	"github.com/gpuwise/gpuwise/internal/gpushape"
)

// chooseOwn picks the GPUs a workload holds now on n, if it still fits
// there: a MIG instance that stays on its GPU keeps running, and a GPU
// whose pods all stay keeps its layout.
func (n *node) chooseOwn(w *work, own []int, buf []int16) ([]int16, bool) {
	if !n.room(w) {
		return nil, false
	}
	buf = buf[:0]
	d := &w.d
	if d.Kind == NoGPU || len(own) != max(d.GPUs, 1) {
		return nil, false
	}
	for _, gi := range own {
		if gi < 0 || gi >= len(n.gpus) {
			return nil, false
		}
		g := &n.gpus[gi]
		ok := false
		switch d.Kind {
		case Whole:
			ok = n.tsGPUs == 0 && g.mode == gFree
		case MIG:
			if pi := n.m.profileIndex(w.prof); pi >= 0 && (g.mode == gFree || g.mode == gMIG) {
				_, ok = n.m.add(g.key, pi)
			}
		case TimeSlice:
			ok = n.tsFits(w) && (g.mode == gFree || (g.mode == gTimeSlice && g.used < int64(n.tsReps)))
		case Shared:
			ok = n.tsGPUs == 0 && (g.mode == gFree || (g.mode == gShared && g.used+d.Milli <= MilliPerGPU))
		}
		if !ok {
			return nil, false
		}
		buf = append(buf, int16(gi))
	}
	return buf, true
}

// keepsShape reports whether the work is placed with the shape the pod
// holds now (time-slice class aside).
func keepsShape(k *work) bool {
	a, b := k.d, k.w.current()
	a.Class, b.Class = "", ""
	return a == b
}

// disruptions counts what a placement changes for running pods: each pod
// that moves or changes shape, each MIG pod that changes GPU on its node,
// and each kept GPU whose MIG layout is re-cut.
func (s *solver) disruptions(slots []slot) int {
	n := 0
	for wi, sl := range slots {
		k := &s.works[wi]
		if sl.node < 0 || k.w.Node == "" {
			continue
		}
		switch {
		case s.nodes[sl.node].Name != k.w.Node, !keepsShape(k):
			n++
		case k.d.Kind == MIG && !sameGPUs(sl.gpus, k.w.CurrentGPUs):
			n++
		}
	}
	return n + len(s.recuts(slots))
}

func sameGPUs(a []int16, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if int(a[i]) != b[i] {
			return false
		}
	}
	return true
}

// heldLayouts are the MIG instances the placement puts on each GPU.
func (s *solver) heldLayouts(slots []slot) map[[2]int]gpushape.Layout {
	out := map[[2]int]gpushape.Layout{}
	for wi, sl := range slots {
		k := &s.works[wi]
		if sl.node < 0 || k.d.Kind != MIG {
			continue
		}
		key := [2]int{int(sl.node), int(sl.gpus[0])}
		if out[key] == nil {
			out[key] = gpushape.Layout{}
		}
		out[key][k.prof]++
	}
	return out
}

// planLayout is the layout a kept GPU gets: its current one when the
// placed instances fit in it (free instances stay cut; an emptied GPU
// keeps its cut), else what is placed.
func planLayout(cur, held gpushape.Layout) gpushape.Layout {
	if len(held) == 0 {
		return cur
	}
	for p, c := range held {
		if cur[p] < c {
			return held
		}
	}
	return cur
}

// recuts lists the kept GPUs whose MIG layout changes: MIG cut, changed or
// turned off on a node that stays.
func (s *solver) recuts(slots []slot) []Recut {
	held := s.heldLayouts(slots)
	kept := make([]bool, len(s.nodes))
	for _, sl := range slots {
		if sl.node >= 0 {
			kept[sl.node] = true
		}
	}
	var out []Recut
	for ni := range s.nodes {
		n := &s.nodes[ni]
		if !kept[ni] && !n.Keep {
			continue
		}
		for g := range n.GPUs {
			cur := n.CurrentMIG[g]
			to := planLayout(cur, held[[2]int{ni, g}])
			if !maps.Equal(cur, to) {
				out = append(out, Recut{Node: n.Name, GPU: g, From: cur, To: to})
			}
		}
	}
	return out
}
