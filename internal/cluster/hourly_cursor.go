package cluster

// SpanCursor finds the spans of one series' samples, which come in time
// order: it keeps the hour of the last sample it placed, so a sample
// starting in that hour or the next needs no division to place. Its
// answers are HourlyBuilder.Span's, bit for bit (TestCursorIsSpan). The
// zero SpanCursor is at hour 0.
type SpanCursor struct {
	h int32
	// lo is 3600h. Times in [lo, lo + 3599) surely have hour h: t ≥ 3600h
	// gives t/3600 ≥ h, and t/3600 < h + 0.9998 cannot round up to
	// h + 1. A sample in an hour's last second takes Span's path.
	lo float64
}

// Span is b.Span(t, dt): the one span of the sample [t, t+dt), ok false
// when it has none or more than one (then call Spans).
func (c *SpanCursor) Span(b *HourlyBuilder, t, dt float64) (Span, bool) {
	end := t + dt
	if t >= c.lo+3600 && t < c.lo+7199 { // the next hour
		c.h, c.lo = c.h+1, c.lo+3600
	}
	if t >= c.lo && t < c.lo+3599 && end > t && end <= b.window {
		// Span's arithmetic with t ≥ 0, end inside the window and
		// int(t/3600) == h known: the same operations in the same order.
		cut := c.lo + 3600 // float64(h+1) * 3600: both exact
		if end <= cut {
			in := end - t
			return Span{h: c.h, hours: int32(b.hours), in: in}, !(t+in < end)
		}
		sp := Span{h: c.h, hours: int32(b.hours), in: cut - t}
		if int(c.h)+1 < b.hours {
			sp.next = min(end, cut+3600) - cut
		}
		return sp, !(t+sp.in+sp.next < end)
	}
	sp, ok := b.Span(t, dt)
	if sp.in > 0 {
		c.h, c.lo = sp.h, float64(sp.h)*3600
	}
	return sp, ok
}
