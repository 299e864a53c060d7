package cluster

// CompactUsage trims every usage accumulator of the snapshot's pods to the
// buckets it holds (usage.Activity.Compact), for a snapshot that is kept
// and not added to (the service's --demo snapshot). No usage changes.
func (s *Snapshot) CompactUsage() {
	for i := range s.Pods {
		p := &s.Pods[i]
		for j := range p.GPUs {
			h := &p.GPUs[j]
			if h.Activity != nil {
				h.Activity.Compact()
			}
			if h.SMActive != nil {
				h.SMActive.Compact()
			}
			if h.FramebufferMiB != nil {
				h.FramebufferMiB.Compact()
			}
		}
		for j := range p.Containers {
			c := &p.Containers[j]
			if c.CPU != nil {
				c.CPU.Compact()
			}
			if c.Memory != nil {
				c.Memory.Compact()
			}
		}
	}
}
