package cluster

import "time"

// Within returns the series of the hours of w, a window inside src (the
// window h's hours count from) that starts a whole number of hours after
// src.Start; nil when it does not, or when w is not inside src. The
// series are shared, not copied: a snapshot's series are read-only.
// Workloads with no hour in w are left out.
func (h *Hourly) Within(src, w Window) *Hourly {
	off := w.Start.Sub(src.Start)
	if h == nil || off < 0 || off%time.Hour != 0 || w.End.After(src.End) {
		return nil
	}
	first, n := int(off/time.Hour), w.HourCount()
	out := &Hourly{IdleThreshold: h.IdleThreshold}
	for _, wh := range h.Workloads {
		if c, ok := wh.within(first, n); ok {
			out.Workloads = append(out.Workloads, c)
		}
	}
	return out
}

// within is w's hours [first, first+n) of the source window, counted from
// the new window's first hour; false when none is left.
func (w WorkloadHours) within(first, n int) (WorkloadHours, bool) {
	lo, hi := max(first-w.From, 0), min(first+n-w.From, w.Hours())
	if lo >= hi {
		return WorkloadHours{}, false
	}
	c := w
	c.From = max(w.From-first, 0)
	for _, s := range c.named() {
		if *s.s != nil {
			*s.s = (*s.s)[lo:hi:hi]
		}
	}
	if w.Models != nil {
		c.Models = make([]ModelHours, len(w.Models))
		for i, m := range w.Models {
			for _, s := range m.named() {
				if *s.s != nil {
					*s.s = (*s.s)[lo:hi:hi]
				}
			}
			c.Models[i] = m
		}
	}
	c.Latency = w.Latency.within(lo, hi)
	return c, true
}
