package usage

import "math"

// coarsen maps bucket i to the bucket holding it after k halvings of the
// resolution: ⌈i/2^k⌉, since bucket i at one resolution is (2^((i−1)·w),
// 2^(i·w)] and lies inside bucket ⌈i/2⌉ at half of it.
func coarsen(i int32, k uint8) int32 { return (i + 1<<k - 1) >> k }

// upper is the upper edge of bucket i at the gauge's resolution.
func (g *Gauge) upper(i int32) float64 {
	return math.Exp2(float64(int64(i)<<g.coarse) / gaugeBucketsPerOctave)
}

// addFine adds seconds to the bucket holding bucket i16 at 16 per octave.
// i16 is int64 so that a coarse index shifted back cannot overflow.
func (g *Gauge) addFine(i16 int64, seconds float64) {
	i := int32((i16 + 1<<g.coarse - 1) >> g.coarse)
	if j := uint(i - g.offset); j < uint(len(g.buckets)) {
		g.buckets[j] += seconds
		return
	}
	g.addOutside(i, seconds)
}

// addOutside adds seconds to bucket i, outside the buckets held: the array
// grows to reach it, halving the resolution while the range would need more
// than gaugeMaxBuckets.
func (g *Gauge) addOutside(i int32, seconds float64) {
	if len(g.buckets) == 0 {
		g.offset = i
	}
	lo, hi := min(g.offset, i), max(g.offset+int32(len(g.buckets)), i+1)
	for hi-lo > gaugeMaxBuckets {
		g.halve()
		i = coarsen(i, 1)
		lo, hi = min(g.offset, i), max(g.offset+int32(len(g.buckets)), i+1)
	}
	g.extend(lo, hi)
	g.buckets[i-g.offset] += seconds
}

// extend makes the array cover buckets [lo, hi), a superset of those held,
// reallocating (doubling, up to gaugeMaxBuckets) only when it outgrows the
// capacity: in the steady state Add does not allocate.
func (g *Gauge) extend(lo, hi int32) {
	n, front, held := int(hi-lo), int(g.offset-lo), len(g.buckets)
	if n <= cap(g.buckets) {
		bs := g.buckets[:n]
		copy(bs[front:], bs[:held])
		clear(bs[:front])
		clear(bs[front+held:])
		g.buckets = bs
	} else {
		bs := make([]float64, n, min(gaugeMaxBuckets, max(n, 2*cap(g.buckets), 8)))
		copy(bs[front:], g.buckets)
		g.buckets = bs
	}
	g.offset = lo
}

// halve halves the resolution in place, as exponential histograms do when
// they downscale: bucket i's seconds move to bucket ⌈i/2⌉, so pairs merge
// and no second is moved across a bucket edge of the coarser resolution.
func (g *Gauge) halve() {
	bs, off := g.buckets, coarsen(g.offset, 1)
	for j, s := range bs {
		// The target ⌈(offset+j)/2⌉−off is at most j: it was cleared
		// before, or is j itself.
		bs[j] = 0
		bs[coarsen(g.offset+int32(j), 1)-off] += s
	}
	if n := len(bs); n > 0 {
		g.buckets = bs[:coarsen(g.offset+int32(n-1), 1)-off+1]
	}
	g.offset = off
	g.coarse++
}
