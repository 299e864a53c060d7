package usage

import "math/bits"

// An Activity that is only read is held packed: its non-zero buckets'
// seconds in bucket order, and a bitmap of which buckets they are. The
// answers are the open form's exactly: its empty buckets add nothing to a
// sum, and Quantile skips them. SetState and Compact pack; Add and Merge
// unpack first (grow), as an accumulator added to again needs its span.

// packedLo is lo while packed: i−packedLo is outside any span for every
// bucket i, so Add's and Merge's in-span test sends them to grow.
const packedLo = -1 << 30

// isPacked says whether a holds only its non-zero buckets.
func (a *Activity) isPacked() bool { return a.lo == packedLo }

// pack packs an open a: its non-zero buckets' seconds go to dst, which
// must have room for them and may be a's own array (they move to its
// front), and a keeps that part of dst, capped at its length.
func (a *Activity) pack(dst []float64) {
	var set [2]uint64
	k := 0
	for j, s := range a.hist {
		if s != 0 {
			i := a.lo + j
			set[i/64] |= 1 << (i % 64)
			dst[k] = s
			k++
		}
	}
	if k == 0 {
		a.hist, a.lo = nil, 0
		return
	}
	a.hist, a.lo, a.packed = dst[:k:k], packedLo, set
}

// nonZero counts h's non-zero values.
func nonZero(h []float64) int {
	k := 0
	for _, s := range h {
		if s != 0 {
			k++
		}
	}
	return k
}

// unpack returns a packed a to the open form: its span from the lowest to
// the highest non-zero bucket, in a new array with Add's capacities.
func (a *Activity) unpack() {
	lo, hi := a.first(), a.last()+1
	c := activityBuckets
	if hi-lo <= activityFirstCap {
		c = activityFirstCap
	}
	h := make([]float64, hi-lo, c)
	a.eachPacked(func(i int, s float64) { h[i-lo] = s })
	a.hist, a.lo, a.packed = h, lo, [2]uint64{}
}

// eachPacked calls f with each non-zero bucket of a packed a and its
// seconds, in bucket order.
func (a *Activity) eachPacked(f func(i int, s float64)) {
	k := 0
	for w, set := range a.packed {
		for ; set != 0; set &= set - 1 {
			f(w*64+bits.TrailingZeros64(set), a.hist[k])
			k++
		}
	}
}

// rank is the number of non-zero buckets below bucket limit (in [0, 101])
// of a packed a: hist[:rank] are their seconds.
func (a *Activity) rank(limit int) int {
	if limit <= 64 {
		return bits.OnesCount64(a.packed[0] & (1<<limit - 1))
	}
	return bits.OnesCount64(a.packed[0]) + bits.OnesCount64(a.packed[1]&(1<<(limit-64)-1))
}

// first and last are a packed a's lowest and highest non-zero buckets.
func (a *Activity) first() int {
	if a.packed[0] != 0 {
		return bits.TrailingZeros64(a.packed[0])
	}
	return 64 + bits.TrailingZeros64(a.packed[1])
}

func (a *Activity) last() int {
	if a.packed[1] != 0 {
		return 127 - bits.LeadingZeros64(a.packed[1])
	}
	return 63 - bits.LeadingZeros64(a.packed[0])
}

// quantilePacked is Quantile's walk over a packed a's non-zero buckets
// for target seconds.
func (a *Activity) quantilePacked(target float64) float64 {
	var cum float64
	k := 0
	for w, set := range a.packed {
		for ; set != 0; set &= set - 1 {
			cum += a.hist[k]
			k++
			if cum >= target {
				return min(float64(w*64+bits.TrailingZeros64(set)+1)/100, a.Max)
			}
		}
	}
	return a.Max
}
