package app

// Progress receives a use case's progress: the phase ("simulating
// cluster", "listing pods", "planning"), and done of total units (total
// 0: unknown; done and total both 0 mark the start of a phase whose size
// is unknown). Like the clock it is injected into the App (WithProgress)
// and handed to the adapters and engines that can say more: it observes
// and never changes a result. A front end passes a terminal's progress
// bar, or nothing.
type Progress func(phase string, done, total int64)

// WithProgress returns a copy of a that reports progress to p; nil
// reports nothing.
func (a *App) WithProgress(p Progress) *App {
	c := *a
	c.progress = p
	return &c
}

// phase marks the start of a phase whose size is unknown.
func (p Progress) phase(name string) {
	if p != nil {
		p(name, 0, 0)
	}
}
