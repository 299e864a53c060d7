package usage

// Compact packs the histogram: it keeps only its non-zero buckets, in an
// array of exactly their number (activity_packed.go). Add and Merge grow
// the array with room to spare (32 then 101 buckets), so that a series
// adds its samples without reallocating; an accumulator that is done
// growing (a finished segment of the service's rolling window, a kept
// snapshot) gives that room, and its empty buckets' room, back. The state
// and every answer stay the same; a later Add or Merge unpacks it and
// grows the array again as before. A nil accumulator (unmeasured) stays
// nil.
func (a *Activity) Compact() {
	if a != nil && !a.isPacked() {
		a.pack(make([]float64, nonZero(a.hist)))
	}
}

// Compact trims the histogram's array to the buckets it holds (see
// Activity.Compact); the resolution and every answer stay the same. A nil
// gauge stays nil.
func (g *Gauge) Compact() {
	if g != nil {
		g.buckets = trimmed(g.buckets)
	}
}

// trimmed is h in an array of exactly its length (nil when empty); h
// itself when it has no spare capacity.
func trimmed(h []float64) []float64 {
	switch {
	case len(h) == 0:
		return nil
	case cap(h) == len(h):
		return h
	}
	out := make([]float64, len(h))
	copy(out, h)
	return out
}
