package rolling

// Compact trims every accumulator of the span to the buckets it holds
// (usage.Activity.Compact): for a span that is done growing, a finished
// segment or a merged window. Its usage and every answer stay the same.
func (s *Span) Compact() {
	for _, pu := range s.Pods {
		pu.compact()
	}
}

func (pu *PodUsage) compact() {
	for _, g := range pu.GPUs {
		if g.Activity != nil {
			g.Activity.Compact()
		}
		if g.SMActive != nil {
			g.SMActive.Compact()
		}
		if g.FramebufferMiB != nil {
			g.FramebufferMiB.Compact()
		}
	}
	for _, c := range pu.Containers {
		if c.CPU != nil {
			c.CPU.Compact()
		}
		if c.Memory != nil {
			c.Memory.Compact()
		}
	}
}
