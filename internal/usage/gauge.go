package usage

import "math"

// gaugeBucketsPerOctave sets the log histogram's finest resolution: 16
// buckets per doubling, so a quantile is within 4.4% of the true value.
const gaugeBucketsPerOctave = 16

// gaugeMaxBuckets bounds the histogram's bucket array. 112 float64s are
// 896 B, one of the allocator's size classes, so a Gauge's state (its 72 B
// struct plus the array's capacity) is at most 968 B, under 1 KB however
// counted. 112 buckets span 7 octaves at 16 per octave: wider than any
// series of the simulated demo or benchmark clusters (at most 107).
const gaugeMaxBuckets = 112

// Gauge accumulates samples of a non-negative quantity that spans orders of
// magnitude (CPU cores, memory bytes, framebuffer MiB), each weighted by the
// seconds it covers. Percentiles come from a log-scale histogram: 16 buckets
// per octave while the values seen span at most 112 of them (7 octaves);
// a wider range halves the resolution (8 per octave, then 4, …) until it
// fits, merging adjacent bucket pairs exactly, so the error bound widens
// uniformly over the range (QuantileError reports it). Its state is at most
// 968 B however many samples and whatever their values.
type Gauge struct {
	Seconds  float64
	Samples  int64
	Integral float64 // value × seconds
	Max      float64
	zero     float64 // seconds at exactly 0
	// buckets[j] holds the seconds at values in bucket offset+j: bucket i
	// is (2^((i−1)·w), 2^(i·w)] with w = 2^coarse/16 octaves.
	buckets []float64
	offset  int32
	coarse  uint8 // halvings of resolution from 16 buckets per octave
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
	i := coarsen(gaugeIndex(v), g.coarse)
	if j := uint(i - g.offset); j < uint(len(g.buckets)) {
		g.buckets[j] += seconds
		return
	}
	g.addOutside(i, seconds)
}

// Merge adds b's state to g. At different resolutions the result is at the
// coarser one (or coarser still if the union's range needs it), and equal
// to adding both gauges' samples to one Gauge at that resolution.
func (g *Gauge) Merge(b *Gauge) {
	g.Seconds += b.Seconds
	g.Samples += b.Samples
	g.Integral += b.Integral
	g.Max = max(g.Max, b.Max)
	g.zero += b.zero
	for g.coarse < b.coarse {
		g.halve()
	}
	for j, s := range b.buckets {
		if s != 0 {
			g.addFine(int64(b.offset+int32(j))<<b.coarse, s)
		}
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
	for j, s := range g.buckets {
		if s == 0 {
			continue
		}
		cum += s
		if cum >= target {
			return min(g.upper(g.offset+int32(j)), g.Max)
		}
	}
	return g.Max
}

// QuantileError bounds Quantile's relative error at the gauge's current
// resolution: where the exact q-quantile x is positive, x ≤ Quantile(q) <
// x·(1+QuantileError()). It is 2^(1/16)−1 ≈ 4.4% at 16 buckets per octave,
// 9.1% at 8, 19% at 4.
func (g *Gauge) QuantileError() float64 {
	return math.Exp2(float64(int(1)<<g.coarse)/gaugeBucketsPerOctave) - 1
}
