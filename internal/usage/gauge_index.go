package usage

import "math"

// gaugeIndex is ceil(log2(v) × 16), the bucket of v at 16 per octave,
// computed from v's binary exponent and a table of the 16 bucket edges
// within one octave: no logarithm per sample.
func gaugeIndex(v float64) int32 {
	frac, exp := math.Frexp(v) // v = frac × 2^exp, frac in [0.5, 1)
	k := int(octaveStart[int(frac*2*octaveCells)-octaveCells])
	for frac > octaveEdges[k] {
		k++
	}
	return int32(exp-1)*gaugeBucketsPerOctave + int32(k)
}

// The buckets at 16 per octave that finite positive values reach: from
// the smallest subnormal (2^−1074) to the largest float64 (< 2^1024).
const (
	gaugeMinIndex = -1074 * gaugeBucketsPerOctave
	gaugeMaxIndex = 1024 * gaugeBucketsPerOctave
)

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
