package usage

import (
	"encoding/json"
	"fmt"
	"math"
	"slices"
)

// gaugeBucketsPerOctave sets the log histogram's resolution: 16 buckets per
// doubling, so a quantile is within 4.4% of the true value.
const gaugeBucketsPerOctave = 16

// Gauge accumulates samples of a non-negative quantity that spans orders of
// magnitude (CPU cores, memory bytes, framebuffer MiB), each weighted by the
// seconds it covers. Percentiles come from a sparse log-scale histogram whose
// size is bounded by the range of values seen, not by the sample count.
type Gauge struct {
	Seconds  float64
	Samples  int64
	Integral float64 // value × seconds
	Max      float64
	zero     float64  // seconds at exactly 0
	buckets  []bucket // sorted by index
	hint     int      // position of the last bucket hit: usage repeats
}

type bucket struct {
	index   int32
	seconds float64
}

// Add records one sample v standing for seconds of time. Negative values
// are clamped to 0; NaN and non-positive durations are ignored.
func (g *Gauge) Add(v, seconds float64) {
	if math.IsNaN(v) || math.IsInf(v, 0) || !(seconds > 0) || math.IsInf(seconds, 0) {
		return
	}
	v = max(v, 0)
	g.Seconds += seconds
	g.Samples++
	g.Integral += v * seconds
	g.Max = max(g.Max, v)
	if v == 0 {
		g.zero += seconds
		return
	}
	g.addBucket(gaugeIndex(v), seconds)
}

// gaugeIndex is ceil(log2(v) × 16), computed from v's binary exponent and
// a table of the 16 bucket edges within one octave: no logarithm per sample.
func gaugeIndex(v float64) int32 {
	frac, exp := math.Frexp(v) // v = frac × 2^exp, frac in [0.5, 1)
	k := 0
	for frac > octaveEdges[k] {
		k++
	}
	return int32(exp-1)*gaugeBucketsPerOctave + int32(k)
}

// octaveEdges[k] = 2^((k-16)/16) is the upper edge of sub-bucket k for a
// fraction in [0.5, 1): the first k with frac ≤ octaveEdges[k] gives bucket
// 16·(exp−1)+k.
var octaveEdges = func() [gaugeBucketsPerOctave + 1]float64 {
	var e [gaugeBucketsPerOctave + 1]float64
	for k := range e {
		e[k] = math.Exp2(float64(k-gaugeBucketsPerOctave) / gaugeBucketsPerOctave)
	}
	return e
}()

// upper is the upper edge of bucket i.
func upper(i int32) float64 { return math.Exp2(float64(i) / gaugeBucketsPerOctave) }

func (g *Gauge) addBucket(idx int32, seconds float64) {
	if g.hint < len(g.buckets) && g.buckets[g.hint].index == idx {
		g.buckets[g.hint].seconds += seconds
		return
	}
	i, found := slices.BinarySearchFunc(g.buckets, idx, func(b bucket, t int32) int { return int(b.index - t) })
	g.hint = i
	if found {
		g.buckets[i].seconds += seconds
		return
	}
	g.buckets = slices.Insert(g.buckets, i, bucket{idx, seconds})
}

// Merge adds b's state to g.
func (g *Gauge) Merge(b *Gauge) {
	g.Seconds += b.Seconds
	g.Samples += b.Samples
	g.Integral += b.Integral
	g.Max = max(g.Max, b.Max)
	g.zero += b.zero
	for _, bk := range b.buckets {
		g.addBucket(bk.index, bk.seconds)
	}
}

// Mean is the time-weighted mean, or NaN when nothing was measured.
func (g *Gauge) Mean() float64 {
	if g.Seconds == 0 {
		return math.NaN()
	}
	return g.Integral / g.Seconds
}

// Quantile returns the time-weighted q-quantile (q in [0, 1]) as the upper
// edge of its bucket capped at Max, or NaN when nothing was measured.
func (g *Gauge) Quantile(q float64) float64 {
	if g.Seconds == 0 {
		return math.NaN()
	}
	target := min(max(q, 0), 1) * g.Seconds
	cum := g.zero
	if cum >= target && g.zero > 0 {
		return 0
	}
	for _, b := range g.buckets {
		cum += b.seconds
		if cum >= target {
			return min(upper(b.index), g.Max)
		}
	}
	return g.Max
}

type gaugeJSON struct {
	Seconds     float64      `json:"seconds"`
	Samples     int64        `json:"samples"`
	Integral    float64      `json:"integral"`
	Max         float64      `json:"max"`
	ZeroSeconds float64      `json:"zero_seconds,omitempty"`
	Histogram   [][2]float64 `json:"histogram,omitempty"` // [log2 index ×16, seconds]
}

// MarshalJSON writes the sparse histogram as [index, seconds] pairs.
func (g Gauge) MarshalJSON() ([]byte, error) {
	out := gaugeJSON{Seconds: g.Seconds, Samples: g.Samples, Integral: g.Integral, Max: g.Max, ZeroSeconds: g.zero}
	for _, b := range g.buckets {
		out.Histogram = append(out.Histogram, [2]float64{float64(b.index), b.seconds})
	}
	return json.Marshal(out)
}

// UnmarshalJSON reads what MarshalJSON writes and rejects impossible state.
func (g *Gauge) UnmarshalJSON(data []byte) error {
	var in gaugeJSON
	if err := json.Unmarshal(data, &in); err != nil {
		return err
	}
	*g = Gauge{Seconds: in.Seconds, Samples: in.Samples, Integral: in.Integral, Max: in.Max, zero: in.ZeroSeconds}
	if !finiteNonNeg(g.Seconds, g.Integral, g.Max, g.zero) || g.Samples < 0 {
		return fmt.Errorf("gauge: negative or non-finite value")
	}
	sum := g.zero
	for _, p := range in.Histogram {
		idx := int32(p[0])
		if float64(idx) != p[0] || idx < -2048 || idx > 2048 || !finiteNonNeg(p[1]) {
			return fmt.Errorf("gauge histogram bucket %v: out of range", p)
		}
		g.addBucket(idx, p[1])
		sum += p[1]
	}
	if math.Abs(sum-g.Seconds) > 1e-6*max(1, g.Seconds) {
		return fmt.Errorf("gauge: histogram holds %g s but measured seconds are %g", sum, g.Seconds)
	}
	return nil
}
