package usage

import (
	"encoding/json"
	"fmt"
	"math"
	"slices"
)

// activityBuckets is the resolution of the activity histogram: one bucket
// per whole percent plus one for exactly 100%, so an idle threshold given in
// whole percent is answered exactly.
const activityBuckets = 101

// Activity accumulates GPU activity samples in [0, 1] (the share of time the
// unit's engines were busy), each weighted by the seconds it covers.
// Its state is four numbers and a 101-bucket histogram. While it is added
// to, only the span from the lowest to the highest bucket seen is held (a
// GPU's activity over a week spans 27 buckets at the median in the demo
// cluster): at most 80 B plus 808 B. Once it is only read (set from a
// stored state, or compacted), it is packed: only its non-zero buckets are
// held, with a bitmap of which they are — a week's activity is mostly
// bimodal, idle and busy, so about 70% of a span's buckets are empty
// (10 of 36 held on average in the 10k-GPU demo: 162 B instead of 350 B).
type Activity struct {
	// Seconds is the time covered by samples (the measured time).
	Seconds float64
	// Samples counts the samples added.
	Samples int64
	// ActiveSeconds is the integral of activity over time.
	ActiveSeconds float64
	// Max is the highest activity seen.
	Max float64
	// Open: hist[j] is the seconds spent at activity in [(lo+j)%,
	// (lo+j+1)%); buckets outside the span are empty; packed is zero.
	// Packed (activity_packed.go): bit i of packed marks bucket i as
	// non-zero, hist holds those buckets' seconds in bucket order, and lo
	// is packedLo, so that Add and Merge find every bucket outside the
	// span and unpack first.
	hist   []float64
	lo     int
	packed [2]uint64
}

// Add records one sample of activity v that stands for seconds of time.
// Values outside [0, 1] are clamped; NaN and non-positive durations are
// ignored, since a missing sample is not a zero one.
func (a *Activity) Add(v, seconds float64) {
	// seconds-seconds != 0 for +Inf (and NaN, which !(seconds > 0) has
	// already turned away).
	if v != v || !(seconds > 0) || seconds-seconds != 0 {
		return
	}
	v = min(max(v, 0), 1)
	a.Seconds += seconds
	a.Samples++
	a.ActiveSeconds += v * seconds
	a.Max = max(a.Max, v)
	i := bucketOf(v)
	if j := uint(i - a.lo); j < uint(len(a.hist)) {
		a.hist[j] += seconds
		return
	}
	a.grow(i)
	a.hist[i-a.lo] += seconds
}

// grow widens the span held to include bucket i, in place while the
// capacity allows, else into a new array: 32 buckets first (a GPU's week
// spans 27 at the median in the demo), then all 101, so Add allocates at
// most twice per series and leaves at most 32 floats of garbage.
func (a *Activity) grow(i int) {
	if a.isPacked() {
		a.unpack()
	}
	if len(a.hist) == 0 {
		a.lo = i
	}
	lo, hi := min(a.lo, i), max(a.lo+len(a.hist), i+1)
	n, front, held := hi-lo, a.lo-lo, len(a.hist)
	if n <= cap(a.hist) {
		h := a.hist[:n]
		copy(h[front:], h[:held])
		clear(h[:front])
		clear(h[front+held:])
		a.hist = h
	} else {
		c := activityBuckets
		if n <= activityFirstCap {
			c = activityFirstCap
		}
		h := make([]float64, n, c)
		copy(h[front:], a.hist)
		a.hist = h
	}
	a.lo = lo
}

// activityFirstCap is the capacity of an Activity's first array.
const activityFirstCap = 32

// bucketOf is v's percent bucket for v in [0, 1]: v·100+1e-9 is not
// negative, so truncating it is its floor.
func bucketOf(v float64) int {
	return min(int(v*100+1e-9), activityBuckets-1)
}

// Merge adds b's state to a.
func (a *Activity) Merge(b *Activity) {
	a.Seconds += b.Seconds
	a.Samples += b.Samples
	a.ActiveSeconds += b.ActiveSeconds
	a.Max = max(a.Max, b.Max)
	b.each(func(i int, s float64) {
		if uint(i-a.lo) >= uint(len(a.hist)) {
			a.grow(i)
		}
		a.hist[i-a.lo] += s
	})
}

// each calls f with each non-zero bucket and its seconds, in bucket order.
func (a *Activity) each(f func(i int, s float64)) {
	if a.isPacked() {
		a.eachPacked(f)
		return
	}
	for j, s := range a.hist {
		if s != 0 {
			f(a.lo+j, s)
		}
	}
}

// Mean is the time-weighted mean activity, or NaN when nothing was measured.
func (a *Activity) Mean() float64 {
	if a.Seconds == 0 {
		return math.NaN()
	}
	return a.ActiveSeconds / a.Seconds
}

// CheckThreshold accepts an idle threshold the histogram answers exactly: a
// whole percent in [0, 1] (0.1, 0.05), since samples are kept in 1% buckets
// and a threshold between two bucket edges (0.095) would be silently
// rounded to one of them.
func CheckThreshold(t float64) error {
	if !(t >= 0 && t <= 1) {
		return fmt.Errorf("%g is outside [0, 1]", t)
	}
	pct := t * 100
	if math.Abs(pct-math.Round(pct)) > 1e-6 {
		lo, hi := math.Floor(pct)/100, math.Ceil(pct)/100
		return fmt.Errorf("%g is not a whole percent: GPU activity is kept in 101 one-percent buckets, so gpuwise can count time below %g or below %g exactly, but not below %g", t, lo, hi, t)
	}
	return nil
}

// IdleSeconds is the measured time spent below threshold (a share in
// [0, 1], resolved to whole percent; CheckThreshold says which thresholds
// are exact).
func (a *Activity) IdleSeconds(threshold float64) float64 {
	limit := min(max(int(math.Round(threshold*100)), 0), activityBuckets)
	below := min(limit-a.lo, len(a.hist))
	if a.isPacked() {
		below = a.rank(limit)
	}
	var s float64
	for j := 0; j < below; j++ {
		s += a.hist[j]
	}
	return s
}

// IsIdle reports whether a sample of activity v counts as idle at
// threshold by exactly IdleSeconds' rule (whole-percent buckets below the
// threshold's), so that series built sample by sample agree with it.
func IsIdle(v, threshold float64) bool {
	limit := min(max(int(math.Round(threshold*100)), 0), activityBuckets)
	return bucketOf(min(max(v, 0), 1)) < limit
}

// Quantile returns the time-weighted q-quantile of activity (q in [0, 1]),
// as the upper edge of its 1% bucket capped at Max, or NaN when empty.
func (a *Activity) Quantile(q float64) float64 {
	if a.Seconds == 0 {
		return math.NaN()
	}
	target := min(max(q, 0), 1) * a.Seconds
	if a.isPacked() {
		return a.quantilePacked(target)
	}
	var cum float64
	for j, s := range a.hist {
		cum += s
		if cum >= target && s > 0 {
			return min(float64(a.lo+j+1)/100, a.Max)
		}
	}
	return a.Max
}

type activityJSON struct {
	Seconds       float64      `json:"seconds"`
	Samples       int64        `json:"samples"`
	ActiveSeconds float64      `json:"active_seconds"`
	Max           float64      `json:"max"`
	Histogram     [][2]float64 `json:"histogram,omitempty"` // [percent bucket, seconds], sparse
}

// MarshalJSON writes the histogram sparsely as [bucket, seconds] pairs.
func (a Activity) MarshalJSON() ([]byte, error) {
	out := activityJSON{Seconds: a.Seconds, Samples: a.Samples, ActiveSeconds: a.ActiveSeconds, Max: a.Max}
	a.each(func(i int, s float64) { out.Histogram = append(out.Histogram, [2]float64{float64(i), s}) })
	return json.Marshal(out)
}

// UnmarshalJSON reads what MarshalJSON writes and rejects state that could
// not have come from Add: negative time, buckets out of range, or bucket
// seconds that do not add up to Seconds.
func (a *Activity) UnmarshalJSON(data []byte) error {
	var in activityJSON
	if err := json.Unmarshal(data, &in); err != nil {
		return err
	}
	var hist [activityBuckets]float64
	for _, p := range in.Histogram {
		i := int(p[0])
		if float64(i) != p[0] || i < 0 || i >= activityBuckets || p[1] < 0 || math.IsNaN(p[1]) {
			return fmt.Errorf("activity histogram bucket %v: out of range", p)
		}
		hist[i] += p[1]
	}
	lo, hi := span(hist[:])
	return a.SetState(ActivityState{Seconds: in.Seconds, Samples: in.Samples, ActiveSeconds: in.ActiveSeconds, Max: in.Max,
		Offset: lo, Buckets: slices.Clip(slices.Clone(hist[lo:hi]))})
}

func (a *Activity) check(histSum float64) error {
	switch {
	case !finiteNonNeg(a.Seconds, a.ActiveSeconds, a.Max) || a.Samples < 0:
		return fmt.Errorf("activity: negative or non-finite value")
	case a.Max > 1:
		return fmt.Errorf("activity: max %g above 1", a.Max)
	case a.ActiveSeconds > a.Seconds*(1+1e-9)+1e-6:
		return fmt.Errorf("activity: active seconds %g exceed measured seconds %g", a.ActiveSeconds, a.Seconds)
	case math.Abs(histSum-a.Seconds) > 1e-6*max(1, a.Seconds):
		return fmt.Errorf("activity: histogram holds %g s but measured seconds are %g", histSum, a.Seconds)
	}
	return nil
}

func finiteNonNeg(vs ...float64) bool {
	for _, v := range vs {
		if math.IsNaN(v) || math.IsInf(v, 0) || v < 0 {
			return false
		}
	}
	return true
}

// span is the range [lo, hi) of h from its first to its last non-zero
// value, empty when h is all zeros.
func span(h []float64) (lo, hi int) {
	for hi = len(h); hi > 0 && h[hi-1] == 0; hi-- {
	}
	for lo = 0; lo < hi && h[lo] == 0; lo++ {
	}
	return lo, hi
}
