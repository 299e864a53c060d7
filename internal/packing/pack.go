package packing

import (
	"cmp"
	"slices"
	"strings"

	"github.com/gpuwise/gpuwise/internal/gpushape"
)

// pass packs every workload from scratch, first-fit decreasing: pinned
// workloads on their nodes, then the rest largest first into the opened
// nodes in keep-preference order, opening the most preferred eligible
// node only when none fits. Workloads that fit nowhere keep their current
// shape on their current node where it has room.
func (s *solver) pass() []slot {
	s.reset()
	s.sortOrder()
	for i := range s.nodes {
		if s.nodes[i].Keep {
			s.open(i)
			s.nodes[i].pinned = true
		}
	}
	s.placePinned()
	var failed []int32
	for _, wi := range s.order {
		if !s.works[wi].pinned && !s.place(wi, true) {
			s.slots[wi] = slot{node: -1}
			failed = append(failed, wi)
		}
	}
	s.keepAsIs(failed)
	return s.snapshotSlots()
}

// keepAsIs gives each workload that fits nowhere with its planned shape
// its current shape on its current node, when that node has room left.
func (s *solver) keepAsIs(failed []int32) {
	for _, wi := range failed {
		k := &s.works[wi]
		ni, ok := s.nodeIndex(k.w.Node)
		if !ok || k.pinned {
			continue
		}
		reason := s.explain(wi)
		s.pinToCurrent(wi, reason)
		k = &s.works[wi]
		n := &s.nodes[ni]
		if n.closed || !s.eligible(k, ni) {
			continue
		}
		if g, ok := n.choose(k, s.buf, true); ok {
			if !n.opened {
				s.open(ni)
			}
			n.pinned = true
			s.put(wi, ni, g)
		}
	}
}

func (s *solver) reset() {
	for i := range s.nodes {
		s.nodes[i].reset()
	}
	for ci := range s.classes {
		c := &s.classes[ci]
		c.next, c.open, c.gpuOpen = 0, c.open[:0], c.gpuOpen[:0]
	}
	for i := range s.slots {
		s.slots[i] = slot{node: -1}
	}
}

func (s *solver) sortOrder() {
	if s.order == nil {
		s.order = make([]int32, len(s.works))
		for i := range s.order {
			s.order[i] = int32(i)
		}
	}
	slices.SortFunc(s.order, func(a, b int32) int { return placeFirst(&s.works[a], &s.works[b]) })
}

// placeFirst orders workloads for placement: pinned first, then those
// with GPUs, shared shapes before whole GPUs, larger first (GPU share,
// CPU, memory), then by ID. It stops at the first difference (unlike
// cmp.Or, which evaluates every key): it runs n log n times per pass.
func placeFirst(x, y *work) int {
	if c := boolFirst(x.pinned, y.pinned); c != 0 {
		return c
	}
	if c := boolFirst(x.d.Kind != NoGPU, y.d.Kind != NoGPU); c != 0 {
		return c
	}
	if c := boolFirst(x.d.Kind != Whole, y.d.Kind != Whole); c != 0 {
		return c
	}
	if c := cmp.Compare(y.frac, x.frac); c != 0 {
		return c
	}
	if c := cmp.Compare(y.cpu, x.cpu); c != 0 {
		return c
	}
	if c := cmp.Compare(y.mem, x.mem); c != 0 {
		return c
	}
	return strings.Compare(x.w.ID, y.w.ID)
}

func boolFirst(a, b bool) int {
	switch {
	case a == b:
		return 0
	case a:
		return -1
	}
	return 1
}

// placePinned puts pinned workloads on their nodes; one that does not fit
// stays unplaced and its node is kept.
func (s *solver) placePinned() {
	idx := make(map[string]int, len(s.nodes))
	for i := range s.nodes {
		idx[s.nodes[i].Name] = i
	}
	for _, wi := range s.order {
		k := &s.works[wi]
		if !k.pinned {
			continue
		}
		ni := idx[k.w.Node]
		n := &s.nodes[ni]
		if !n.opened {
			s.open(ni)
		}
		n.pinned = true
		if s.staticReason(k, n.Node, true) != "" {
			continue
		}
		if g, ok := n.chooseOwn(k, k.w.CurrentGPUs, s.buf); ok {
			s.put(wi, ni, g)
		} else if g, ok := n.choose(k, s.buf, true); ok {
			s.put(wi, ni, g)
		}
	}
}

// place puts a workload into the first opened node that fits, in keep
// preference order; with allowOpen it opens a new node when none does.
func (s *solver) place(wi int32, allowOpen bool) bool {
	k := &s.works[wi]
	if k.perNode && len(k.only) > 0 {
		return s.placeOnly(wi, allowOpen)
	}
	el := s.elig[k.sig]
	if k.d.Kind == MIG || k.d.Kind == TimeSlice || k.d.Kind == Shared {
		for _, ci := range el {
			if s.placeOpen(wi, ci, false) {
				return true
			}
		}
	}
	for _, ci := range el {
		if s.placeOpen(wi, ci, true) {
			return true
		}
	}
	if !allowOpen {
		return false
	}
	for _, ci := range el {
		c := &s.classes[ci]
		for c.next < len(c.nodes) && s.nodes[c.nodes[c.next]].opened {
			c.next++
		}
		for pos := c.next; pos < len(c.nodes); pos++ {
			ni := c.nodes[pos]
			n := &s.nodes[ni]
			if n.opened {
				continue
			}
			if k.perNode && !s.eligible(k, ni) {
				continue
			}
			g, ok := n.choose(k, s.buf, true)
			if ok {
				s.open(ni)
				s.put(wi, ni, g)
				return true
			}
			if !k.perNode {
				break // the class's unopened nodes are identical and empty
			}
		}
	}
	return false
}

// placeOnly tries the few nodes a workload's selector names.
func (s *solver) placeOnly(wi int32, allowOpen bool) bool {
	k := &s.works[wi]
	for _, ni := range k.only {
		n := &s.nodes[ni]
		if n.closed || (!n.opened && !allowOpen) || !s.eligible(k, ni) {
			continue
		}
		if g, ok := n.choose(k, s.buf, true); ok {
			if !n.opened {
				s.open(ni)
			}
			s.put(wi, ni, g)
			return true
		}
	}
	return false
}

// placeOpen tries the opened nodes of one class, dropping GPU-full and
// closed nodes from the GPU scan list as it goes.
func (s *solver) placeOpen(wi int32, ci int, fresh bool) bool {
	k := &s.works[wi]
	c := &s.classes[ci]
	if k.d.Kind == NoGPU {
		for _, ni := range c.open {
			if s.tryNode(wi, k, ni, fresh) {
				return true
			}
		}
		return false
	}
	lst := c.gpuOpen
	j := 0
	for i, ni := range lst {
		n := &s.nodes[ni]
		if n.full || n.closed {
			continue
		}
		lst[j] = ni
		j++
		if s.tryNode(wi, k, ni, fresh) {
			j += copy(lst[j:], lst[i+1:])
			c.gpuOpen = lst[:j]
			return true
		}
	}
	c.gpuOpen = lst[:j]
	return false
}

func (s *solver) tryNode(wi int32, k *work, ni int, fresh bool) bool {
	n := &s.nodes[ni]
	if n.closed {
		return false
	}
	if k.perNode && !s.eligible(k, ni) {
		return false
	}
	g, ok := n.choose(k, s.buf, fresh)
	if ok {
		s.put(wi, ni, g)
	}
	return ok
}

func (s *solver) open(ni int) {
	n := &s.nodes[ni]
	n.opened = true
	c := &s.classes[n.class]
	c.open = append(c.open, ni)
	c.gpuOpen = append(c.gpuOpen, ni)
}

func (s *solver) put(wi int32, ni int, g []int16) {
	s.nodes[ni].apply(wi, &s.works[wi], g)
	s.slots[wi] = slot{node: int32(ni), gpus: slices.Clone(g), cur: s.works[wi].pinned}
}

func (s *solver) unput(wi int32) {
	sl := s.slots[wi]
	s.nodes[sl.node].remove(wi, &s.works[wi], sl.gpus)
	s.slots[wi] = slot{node: -1}
}

func (s *solver) snapshotSlots() []slot {
	return slices.Clone(s.slots)
}

// pinToCurrent makes a workload keep its current shape and node.
func (s *solver) pinToCurrent(wi int32, reason string) {
	s.works[wi] = s.newWork(s.works[wi].w, true)
	if s.fallbackWhy == nil {
		s.fallbackWhy = map[int32]string{}
	}
	s.fallbackWhy[wi] = reason
}

// empty tries to remove opened nodes, most expensive and least filled
// first: their workloads are re-placed into the other opened nodes, and the
// node is removed when all of them fit; otherwise nothing changes.
func (s *solver) empty() {
	var cands []int
	for i := range s.nodes {
		n := &s.nodes[i]
		if n.opened && !n.closed && !n.pinned {
			cands = append(cands, i)
		}
	}
	fill := make([]float64, len(s.nodes))
	for _, i := range cands {
		fill[i] = s.nodes[i].fill()
	}
	slices.SortFunc(cands, func(a, b int) int {
		x, y := &s.nodes[a], &s.nodes[b]
		return cmp.Or(cmp.Compare(perGPU(y.Node), perGPU(x.Node)), cmp.Compare(fill[a], fill[b]),
			cmp.Compare(len(x.ws), len(y.ws)), strings.Compare(x.Name, y.Name))
	})
	rank := make([]int32, len(s.works))
	for r, wi := range s.order {
		rank[wi] = int32(r)
	}
	attempts := 0
	for _, ni := range cands {
		if attempts >= maxEmptyAttempts {
			break
		}
		if len(s.nodes[ni].ws) > 0 {
			attempts++
		}
		s.tryEmpty(ni, rank)
	}
}

func (s *solver) tryEmpty(ni int, rank []int32) bool {
	n := &s.nodes[ni]
	ws := slices.Clone(n.ws)
	slices.SortFunc(ws, func(a, b int32) int { return cmp.Compare(rank[a], rank[b]) })
	saved := make([]slot, len(ws))
	for i, wi := range ws {
		saved[i] = s.slots[wi]
		s.unput(wi)
	}
	n.closed = true
	var moved, reverted []int32
	for _, wi := range ws {
		if !s.place(wi, false) {
			if !s.placeAsIs(wi, false) {
				break
			}
			reverted = append(reverted, wi)
		}
		moved = append(moved, wi)
	}
	if len(moved) == len(ws) {
		return true
	}
	for _, wi := range reverted {
		s.unput(wi)
		s.works[wi] = s.asIs[wi]
		delete(s.asIs, wi)
		moved = slices.DeleteFunc(moved, func(x int32) bool { return x == wi })
	}
	touched := map[int]bool{n.class: true}
	for _, wi := range moved {
		touched[s.nodes[s.slots[wi].node].class] = true
		s.unput(wi)
	}
	n.closed = false
	for i, wi := range ws {
		s.put(wi, ni, saved[i].gpus)
	}
	for ci := range touched {
		s.rebuildOpen(ci)
	}
	return false
}

// placeAsIs places a workload with its current shape (on any node) when
// its planned shape fits in no other kept node: a right-sized shape must
// not keep a node that the current shape would let go. allowOpen lets it
// open a node.
func (s *solver) placeAsIs(wi int32, allowOpen bool) bool {
	k := s.works[wi]
	if k.pinned || k.asIs || !reshaped(k.w) {
		return false
	}
	s.works[wi] = s.currentWork(k)
	if s.place(wi, allowOpen) {
		if s.asIs == nil {
			s.asIs = map[int32]work{}
		}
		s.asIs[wi] = k
		return true
	}
	s.works[wi] = k
	return false
}

// currentWork is k's stand-in with the workload's current shape, allowed
// on its current node's GPU model (any node of it).
func (s *solver) currentWork(k work) work {
	nk := s.newWork(k.w, false)
	nk.d = k.w.current()
	nk.prof = gpushape.CanonicalProfile(nk.d.Profile)
	if nk.d.Kind == TimeSlice {
		nk.cls = s.classID(nk.d.Class)
	}
	nk.models = nil
	if nk.d.Kind != NoGPU {
		nk.models = []string{s.nodeModel(k.w.Node)}
	}
	nk.frac = nk.d.Fraction(s.ms.get(firstOr(nk.models, "")).Model)
	nk.asIs = true
	nk.sig = s.signature(&nk)
	return nk
}

func (s *solver) rebuildOpen(ci int) {
	c := &s.classes[ci]
	c.gpuOpen = c.gpuOpen[:0]
	for _, ni := range c.open {
		if n := &s.nodes[ni]; !n.closed && !n.full {
			c.gpuOpen = append(c.gpuOpen, ni)
		}
	}
}

// sticky re-packs onto the kept nodes only, trying each workload's current
// node first so that fewer pods move; workloads for which own is true and
// that keep their node and shape first go back onto their own GPUs. ok is
// false if any workload placed before no longer fits; the caller then
// keeps the first packing. owned counts the workloads put on their own
// GPUs.
func (s *solver) sticky(before []slot, own func(wi int32) bool) (_ []slot, ok bool, owned int) {
	kept := make([]bool, len(s.nodes))
	idx := make(map[string]int, len(s.nodes))
	for i := range s.nodes {
		idx[s.nodes[i].Name] = i
	}
	for _, sl := range before {
		if sl.node >= 0 {
			kept[sl.node] = true
		}
	}
	s.reset()
	for ci := range s.classes {
		for _, ni := range s.classes[ci].nodes {
			if kept[ni] || s.nodes[ni].Keep {
				s.open(ni)
			}
		}
	}
	s.placePinned()
	// Pods that keep their node and shape go back onto their own GPUs
	// before anything else can take them.
	for _, wi := range s.order {
		k := &s.works[wi]
		if k.pinned || before[wi].node < 0 || !keepsShape(k) || !own(wi) {
			continue
		}
		if ni, ok := idx[k.w.Node]; ok && kept[ni] && s.eligible(k, ni) {
			if g, ok := s.nodes[ni].chooseOwn(k, k.w.CurrentGPUs, s.buf); ok {
				s.put(wi, ni, g)
				owned++
			}
		}
	}
	for _, wi := range s.order {
		k := &s.works[wi]
		if (s.slots[wi].node < 0) != (before[wi].node < 0) && k.pinned {
			return nil, false, owned
		}
		if k.pinned || before[wi].node < 0 || s.slots[wi].node >= 0 {
			continue
		}
		if ni, ok := idx[k.w.Node]; ok && kept[ni] && s.eligible(k, ni) && s.tryNode(wi, k, ni, true) {
			continue
		}
		if !s.place(wi, false) {
			return nil, false, owned
		}
	}
	return s.snapshotSlots(), true, owned
}
