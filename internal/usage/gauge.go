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
	// x-x == 0 holds for finite x only: one test each for NaN and ±Inf.
	if v-v != 0 || !(seconds > 0) || seconds-seconds != 0 {
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
	k := int(octaveStart[int(frac*2*octaveCells)-octaveCells])
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

// octaveCells cuts [0.5, 1) into equal cells; octaveStart[j] is the first
// sub-bucket whose upper edge reaches cell j's lower end, (cells+j)/(2·cells):
// every edge before it is below any fraction in the cell, so the search in
// gaugeIndex starts there and takes at most a step or two.
const octaveCells = 256

var octaveStart = func() [octaveCells]uint8 {
	var s [octaveCells]uint8
	for j := range s {
		lo := float64(octaveCells+j) / (2 * octaveCells)
		k := 0
		for lo > octaveEdges[k] {
			k++
		}
		s[j] = uint8(k)
	}
	return s
}()

// upper is the upper edge of bucket i.
func upper(i int32) float64 { return math.Exp2(float64(i) / gaugeBucketsPerOctave) }

func (g *Gauge) addBucket(idx int32, seconds float64) {
	bs := g.buckets
	if h := g.hint; h < len(bs) {
		// Usage repeats or moves to a neighbouring bucket.
		switch hi := bs[h].index; {
		case hi == idx:
			bs[h].seconds += seconds
			return
		case hi < idx && h+1 < len(bs) && bs[h+1].index == idx:
			g.hint = h + 1
			bs[h+1].seconds += seconds
			return
		case hi > idx && h > 0 && bs[h-1].index == idx:
			g.hint = h - 1
			bs[h-1].seconds += seconds
			return
		}
	}
	lo, hi := 0, len(bs)
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if bs[m].index < idx {
			lo = m + 1
		} else {
			hi = m
		}
	}
	g.hint = lo
	if lo < len(bs) && bs[lo].index == idx {
		bs[lo].seconds += seconds
		return
	}
	if bs == nil {
		bs = make([]bucket, 0, 8)
	}
	g.buckets = slices.Insert(bs, lo, bucket{idx, seconds})
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
