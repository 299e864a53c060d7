package cluster

// CompactUsage trims every usage accumulator of the snapshot's pods to the
// buckets it holds (usage.Activity.Compact), for a snapshot that is kept
// and not added to (the service's --demo snapshot). No usage changes.
func (s *Snapshot) CompactUsage() {
	for i := range s.Pods {
		p := &s.Pods[i]
		for j := range p.GPUs {
			h := &p.GPUs[j]
			h.Activity.Compact()
			h.SMActive.Compact()
			h.FramebufferMiB.Compact()
		}
		for j := range p.Containers {
			p.Containers[j].CPU.Compact()
			p.Containers[j].Memory.Compact()
		}
	}
}

// ReleaseUsageDetail drops the usage series that only the per-pod engines
// read — containers' CPU and memory gauges, GPUs' SM-active and
// framebuffer series — and keeps each GPU's activity, whose mean the
// consolidation planner reads. It is for a snapshot that one use case
// read for itself, once right-sizing, the idle causes, the cost
// allocation and the capacity inputs have read them: at 10k GPUs they are
// a third of the snapshot's live heap (docs/performance.md), and what is
// dropped reads as unmeasured after, never as zero.
func (s *Snapshot) ReleaseUsageDetail() {
	for i := range s.Pods {
		p := &s.Pods[i]
		for j := range p.GPUs {
			p.GPUs[j].SMActive, p.GPUs[j].FramebufferMiB = nil, nil
		}
		for j := range p.Containers {
			p.Containers[j].CPU, p.Containers[j].Memory = nil, nil
		}
	}
}
