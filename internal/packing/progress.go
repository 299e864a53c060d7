package packing

// Progress receives planning progress: the phase, and done of total
// packings. It only observes; nil reports nothing.
type Progress func(phase string, done, total int64)

func (p Progress) report(done, total int64) {
	if p != nil {
		p("planning", done, total)
	}
}
