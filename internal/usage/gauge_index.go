package usage

import "math"

// gaugeIndex is ceil(log2(v) × 16), the bucket of v at 16 per octave, for
// a finite v > 0. It is read off v's bits: the binary exponent gives the
// octave, and the top 8 bits of the mantissa pick a cell of the octave
// that holds at most one bucket edge (cells are 1/256 of an octave's
// mantissa range, edges at least 2^(1/16)−1 ≈ 4.4% apart), so one table
// lookup and one integer compare give the bucket: no logarithm, no search.
// A subnormal v is scaled by 2^64 first (exactly) into the normal range.
func gaugeIndex(v float64) int32 {
	b := math.Float64bits(v)
	var sub int32
	if b < 1<<52 {
		b = math.Float64bits(v * 0x1p64)
		sub = 64 * gaugeBucketsPerOctave
	}
	j := b >> (52 - octaveCellBits) & (octaveCells - 1)
	k := int32(octaveStart[j])
	if b&mantissaMask > cellEdge[j] {
		k++
	}
	return (int32(b>>52)-1023)*gaugeBucketsPerOctave + k - sub
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

const mantissaMask = 1<<52 - 1

// edgeMantissa[k] is octaveEdges[k] doubled (into [1, 2], exactly) as the
// 52-bit mantissa of a value in [1, 2): a value m·2^e with m in [1, 2) is
// above edge k of its octave when its mantissa bits are above
// edgeMantissa[k]. The last edge, 2, is above every mantissa.
var edgeMantissa = func() [gaugeBucketsPerOctave + 1]uint64 {
	var e [gaugeBucketsPerOctave + 1]uint64
	for k := range gaugeBucketsPerOctave {
		e[k] = math.Float64bits(2*octaveEdges[k]) & mantissaMask
	}
	e[gaugeBucketsPerOctave] = 1 << 52
	return e
}()

// octaveCellBits cuts an octave's mantissas into 2^octaveCellBits equal
// cells; octaveStart[j] is the first sub-bucket whose edge reaches cell j's
// lower end: every edge before it is below any mantissa in the cell, and
// the next edge after it lies past the cell, so gaugeIndex's one compare
// finds the bucket.
const (
	octaveCellBits = 8
	octaveCells    = 1 << octaveCellBits
)

// cellEdge[j] is the edge octaveStart[j] as edgeMantissa gives it.
var cellEdge = func() [octaveCells]uint64 {
	var e [octaveCells]uint64
	for j, k := range octaveStart {
		e[j] = edgeMantissa[k]
	}
	return e
}()

var octaveStart = func() [octaveCells]uint8 {
	var s [octaveCells]uint8
	for j := range s {
		lo := uint64(j) << (52 - octaveCellBits)
		k := 0
		for lo > edgeMantissa[k] {
			k++
		}
		s[j] = uint8(k)
		// One compare must do: the edge after k lies past the cell.
		if hi := uint64(j+1) << (52 - octaveCellBits); k+1 <= gaugeBucketsPerOctave && edgeMantissa[k+1] < hi-1 {
			panic("usage: more than one bucket edge in an octave cell")
		}
	}
	return s
}()
