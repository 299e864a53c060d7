package packing

// placeStragglers retries every workload the final packing leaves
// unplaced, pinned ones excepted: the emptying and re-packing passes move
// pods after it failed, and can leave room it did not have. Each is tried
// with its planned shape, then its current one, first on the kept nodes,
// then opening a node. One still unplaced is explained with its planned
// shape, not as pinned to its node: it was pinned there only as a
// fallback. (The real kube-scheduler bound such "unplaced" pods to kept
// nodes with free GPUs.)
func (s *solver) placeStragglers(final []slot) []slot {
	var left []int32
	for wi, sl := range final {
		if sl.node < 0 && !s.works[wi].w.Pinned {
			left = append(left, int32(wi))
		}
	}
	if len(left) == 0 {
		return final
	}
	s.restore(final)
	for _, wi := range left {
		if k := &s.works[wi]; k.pinned {
			// Pinned as a fallback (keepAsIs): back to its planned shape.
			s.works[wi] = s.newWork(k.w, false)
			if _, ok := s.revertWhy[wi]; ok {
				s.works[wi] = s.currentWork(s.works[wi])
			}
			delete(s.fallbackWhy, wi)
		}
		for _, open := range []bool{false, true} {
			if s.place(wi, open) || s.placeAsIs(wi, open) {
				break
			}
		}
	}
	return s.snapshotSlots()
}

// restore rebuilds the packing state from slots: the nodes that must stay
// and those holding a workload are opened, every workload put back.
func (s *solver) restore(slots []slot) {
	s.reset()
	for i := range s.nodes {
		if s.nodes[i].Keep {
			s.open(i)
			s.nodes[i].pinned = true
		}
	}
	for wi, sl := range slots {
		if sl.node < 0 {
			continue
		}
		if !s.nodes[sl.node].opened {
			s.open(int(sl.node))
		}
		s.put(int32(wi), int(sl.node), sl.gpus)
	}
}
