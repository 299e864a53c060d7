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
		g.Activity.Compact()
		g.SMActive.Compact()
		g.FramebufferMiB.Compact()
	}
	for _, c := range pu.Containers {
		c.CPU.Compact()
		c.Memory.Compact()
	}
}
