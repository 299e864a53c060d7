package usage

import (
	"fmt"
	"math"
)

// ActivityBuckets is the number of buckets of an Activity histogram: one per
// whole percent plus one for exactly 100%.
const ActivityBuckets = activityBuckets

// ActivityState is an Activity's complete state, for codecs that store it
// (the snapshot file). Buckets[j] is the seconds at activity in
// [(Offset+j)%, (Offset+j+1)%); the buckets outside are empty.
type ActivityState struct {
	Seconds       float64
	Samples       int64
	ActiveSeconds float64
	Max           float64
	Offset        int
	Buckets       []float64
}

// State returns a's state. Buckets aliases a's array while a is added to,
// and is a new array once a is packed (set from a state, or compacted):
// read it, do not change it or keep it past the next change to a.
func (a *Activity) State() ActivityState {
	st := ActivityState{Seconds: a.Seconds, Samples: a.Samples, ActiveSeconds: a.ActiveSeconds, Max: a.Max,
		Offset: a.lo, Buckets: a.hist}
	if a.isPacked() {
		lo := a.first()
		st.Offset, st.Buckets = lo, make([]float64, a.last()+1-lo)
		a.eachPacked(func(i int, s float64) { st.Buckets[i-lo] = s })
	}
	return st
}

// SetState replaces a's state with s, rejecting state that could not have
// come from Add (the checks UnmarshalJSON makes); a is unchanged then. a
// is packed: it keeps s.Buckets' k non-zero values, moved to the front of
// s.Buckets' array, as its own array s.Buckets[:k:k] (a decoder may hand
// out the rest of the array again).
func (a *Activity) SetState(s ActivityState) error {
	n := len(s.Buckets)
	if n > 0 && (s.Offset < 0 || s.Offset > activityBuckets-n) {
		return fmt.Errorf("activity histogram: %d buckets from %d: out of range", n, s.Offset)
	}
	var sum float64
	for j, v := range s.Buckets {
		if !finiteNonNeg(v) {
			return fmt.Errorf("activity histogram bucket %d: %g seconds out of range", s.Offset+j, v)
		}
		sum += v
	}
	b := Activity{Seconds: s.Seconds, Samples: s.Samples, ActiveSeconds: s.ActiveSeconds, Max: s.Max,
		hist: s.Buckets[:n:n], lo: s.Offset}
	if n == 0 {
		b.hist, b.lo = nil, 0
	}
	if err := b.check(sum); err != nil {
		return err
	}
	b.pack(b.hist)
	*a = b
	return nil
}

// GaugeState is a Gauge's complete state, for codecs that store it. The
// histogram has 2^Scale buckets per octave (Scale 4 down to GaugeMinScale);
// Buckets[j] holds the seconds at values in bucket Offset+j, bucket i being
// (2^((i−1)/2^Scale), 2^(i/2^Scale)]. ZeroSeconds is the time at exactly 0.
type GaugeState struct {
	Seconds     float64
	Samples     int64
	Integral    float64
	Max         float64
	ZeroSeconds float64
	Scale       int
	Offset      int32
	Buckets     []float64
}

// GaugeMinScale is the coarsest resolution of a Gauge, 2^GaugeMinScale
// buckets per octave; GaugeMaxBuckets bounds its bucket array.
const (
	GaugeMinScale   = gaugeMinScale
	GaugeMaxBuckets = gaugeMaxBuckets
)

// State returns g's state. Buckets aliases g's array: read it, do not keep
// it past the next change to g.
func (g *Gauge) State() GaugeState {
	return GaugeState{Seconds: g.Seconds, Samples: g.Samples, Integral: g.Integral, Max: g.Max,
		ZeroSeconds: g.zero, Scale: 4 - int(g.coarse), Offset: g.offset, Buckets: g.buckets}
}

// SetState replaces g's state with s, rejecting impossible state (the
// checks UnmarshalJSON makes, and a bucket array longer than
// GaugeMaxBuckets or outside the float64 range); g is unchanged then. g
// takes s.Buckets as its array, capped at its length so that a later Add
// that grows it never writes past it.
func (g *Gauge) SetState(s GaugeState) error {
	if err := checkGaugeState(&s); err != nil {
		return err
	}
	n := len(s.Buckets)
	*g = Gauge{Seconds: s.Seconds, Samples: s.Samples, Integral: s.Integral, Max: s.Max, zero: s.ZeroSeconds,
		buckets: s.Buckets[:n:n], offset: s.Offset, coarse: uint8(4 - s.Scale)}
	if n == 0 {
		g.buckets, g.offset = nil, 0
	}
	return nil
}

func checkGaugeState(s *GaugeState) error {
	if !finiteNonNeg(s.Seconds, s.Integral, s.Max, s.ZeroSeconds) || s.Samples < 0 {
		return fmt.Errorf("gauge: negative or non-finite value")
	}
	if s.Scale < gaugeMinScale || s.Scale > 4 {
		return fmt.Errorf("gauge scale %d: outside %d..4", s.Scale, gaugeMinScale)
	}
	coarse := uint8(4 - s.Scale)
	lo, hi := int64(coarsen(gaugeMinIndex, coarse)), int64(coarsen(gaugeMaxIndex, coarse))
	if n := int64(len(s.Buckets)); n > gaugeMaxBuckets || n > 0 && (int64(s.Offset) < lo || int64(s.Offset)+n-1 > hi) {
		return fmt.Errorf("gauge histogram: %d buckets from %d at scale %d: out of range", n, s.Offset, s.Scale)
	}
	sum := s.ZeroSeconds
	for j, v := range s.Buckets {
		if !finiteNonNeg(v) {
			return fmt.Errorf("gauge histogram bucket %d: %g seconds out of range", int64(s.Offset)+int64(j), v)
		}
		sum += v
	}
	if math.Abs(sum-s.Seconds) > 1e-6*max(1, s.Seconds) {
		return fmt.Errorf("gauge: histogram holds %g s but measured seconds are %g", sum, s.Seconds)
	}
	return nil
}
