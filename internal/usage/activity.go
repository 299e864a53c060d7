package usage

import (
	"encoding/json"
	"fmt"
	"math"
)

// activityBuckets is the resolution of the activity histogram: one bucket
// per whole percent plus one for exactly 100%, so an idle threshold given in
// whole percent is answered exactly.
const activityBuckets = 101

// Activity accumulates GPU activity samples in [0, 1] (the share of time the
// unit's engines were busy), each weighted by the seconds it covers.
// Its state is a fixed 101-bucket histogram plus four numbers.
type Activity struct {
	// Seconds is the time covered by samples (the measured time).
	Seconds float64
	// Samples counts the samples added.
	Samples int64
	// ActiveSeconds is the integral of activity over time.
	ActiveSeconds float64
	// Max is the highest activity seen.
	Max float64
	// hist[i] is the seconds spent at activity in [i%, (i+1)%).
	hist [activityBuckets]float64
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
	a.hist[bucketOf(v)] += seconds
}

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
	for i := range a.hist {
		a.hist[i] += b.hist[i]
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
	var s float64
	for i := 0; i < limit; i++ {
		s += a.hist[i]
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
	var cum float64
	for i, s := range a.hist {
		cum += s
		if cum >= target && s > 0 {
			return min(float64(i+1)/100, a.Max)
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
	for i, s := range a.hist {
		if s != 0 {
			out.Histogram = append(out.Histogram, [2]float64{float64(i), s})
		}
	}
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
	*a = Activity{Seconds: in.Seconds, Samples: in.Samples, ActiveSeconds: in.ActiveSeconds, Max: in.Max}
	var sum float64
	for _, p := range in.Histogram {
		i := int(p[0])
		if float64(i) != p[0] || i < 0 || i >= activityBuckets || p[1] < 0 || math.IsNaN(p[1]) {
			return fmt.Errorf("activity histogram bucket %v: out of range", p)
		}
		a.hist[i] += p[1]
		sum += p[1]
	}
	return a.check(sum)
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
