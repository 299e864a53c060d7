package query

import (
	"math"

	"github.com/gpuwise/gpuwise/internal/prom/wire"
)

// Range is the values an exporter's series can hold (a DCGM ratio in
// [0, 1], a byte count ≥ 0): a sample outside it, or ±Inf, is left out —
// its time is not measured, as a gap — and counted. An Acc's Check, or a
// sink that asks Keep, uses one. It is used by one batch at a time (no
// lock): a batch sums its own and adds them up on Commit, so that a
// retried request counts once.
type Range struct {
	Min, Max float64
	// Out is how many samples were left out; First the first of them.
	Out   int64
	First float64
}

// Ok reports whether v is in the range, counting it when not. NaN (a
// stale marker, a gap) is not counted: the decoders leave it out before.
func (r *Range) Ok(v float64) bool {
	if v >= r.Min && v <= r.Max && !math.IsInf(v, 0) {
		return true
	}
	if v != v {
		return false
	}
	if r.Out == 0 {
		r.First = v
	}
	r.Out++
	return false
}

// Keep is xs without the samples outside the range: xs itself when all
// are in it (the usual case, no copy), a copy otherwise.
func (r *Range) Keep(xs []wire.Sample) []wire.Sample {
	for i := range xs {
		if v := xs[i].V; !(v >= r.Min && v <= r.Max) || math.IsInf(v, 0) {
			out := append(make([]wire.Sample, 0, len(xs)), xs[:i]...)
			for _, x := range xs[i:] {
				if r.Ok(x.V) || x.V != x.V {
					out = append(out, x)
				}
			}
			return out
		}
	}
	return xs
}

// Add sums another batch's counts into r, taking its bounds.
func (r *Range) Add(o *Range) {
	if o == nil || o.Out == 0 {
		return
	}
	if r.Out == 0 {
		r.Min, r.Max, r.First = o.Min, o.Max, o.First
	}
	r.Out += o.Out
}
