package packbench

import (
	"math"
	"strconv"
)

// roundLogged rounds v as the artifact's "%.2f" log line does, since the
// curves are computed from the logged value.
func roundLogged(v float64) float64 {
	r, _ := strconv.ParseFloat(strconv.FormatFloat(v, 'f', 2, 64), 64)
	return r
}

// Curve is a per-column metric: Value[k] is the metric at k% arrived
// demand; Has[k] is false when no event is near k%.
type Curve struct {
	Value []float64
	Has   []bool
}

// Curves are one run's allocation and fragmentation curves, both in % of
// cluster GPUs, columns 0..maxDemand.
func Curves(res Result, maxDemand int) (alloc, frag Curve) {
	gpus := float64(res.GPUs)
	arrive := make([]float64, len(res.Events))
	allocRatio := make([]float64, len(res.Events))
	fragMilli := make([]float64, len(res.Events))
	for i, e := range res.Events {
		arrive[i] = math.RoundToEven(float64(e.Arrived) / gpus / 10)
		allocRatio[i] = round2(float64(e.Used) / gpus / 10)
		fragMilli[i] = e.Frag
	}
	alloc = Curve{Value: make([]float64, maxDemand+1), Has: make([]bool, maxDemand+1)}
	frag = Curve{Value: make([]float64, maxDemand+1), Has: make([]bool, maxDemand+1)}
	var a, f []float64
	for col := 0; col <= maxDemand; col++ {
		a, f = a[:0], f[:0]
		for _, width := range []float64{0, 1} {
			for i, x := range arrive {
				if math.Abs(x-float64(col)) <= width {
					a = append(a, allocRatio[i])
					f = append(f, fragMilli[i])
				}
			}
			if len(a) > 0 {
				break
			}
		}
		if len(a) == 0 {
			continue
		}
		alloc.Value[col], alloc.Has[col] = round2(mean(a)), true
		frag.Value[col], frag.Has[col] = round2(100*mean(f)/1000/gpus), true
	}
	return alloc, frag
}

// round2 is numpy's round(x, 2): half to even on x×100.
func round2(x float64) float64 { return math.RoundToEven(x*100) / 100 }

// mean is numpy's mean: pairwise summation, divided by the count.
func mean(xs []float64) float64 { return pairwiseSum(xs) / float64(len(xs)) }

// pairwiseSum adds as numpy's float64 add.reduce does: blocks of up to 128
// with eight interleaved accumulators, larger inputs split in two at a
// multiple of eight.
func pairwiseSum(xs []float64) float64 {
	n := len(xs)
	switch {
	case n < 8:
		var s float64
		for _, x := range xs {
			s += x
		}
		return s
	case n <= 128:
		var r [8]float64
		copy(r[:], xs[:8])
		i := 8
		for ; i < n-n%8; i += 8 {
			for j := range r {
				r[j] += xs[i+j]
			}
		}
		s := ((r[0] + r[1]) + (r[2] + r[3])) + ((r[4] + r[5]) + (r[6] + r[7]))
		for ; i < n; i++ {
			s += xs[i]
		}
		return s
	}
	n2 := n / 2
	n2 -= n2 % 8
	return pairwiseSum(xs[:n2]) + pairwiseSum(xs[n2:])
}

// MeanCurve is the per-column mean of per-seed curves, rounded to two
// decimals: a column is present when every curve has it.
func MeanCurve(curves []Curve) Curve {
	if len(curves) == 0 {
		return Curve{}
	}
	n := len(curves[0].Value)
	m := Curve{Value: make([]float64, n), Has: make([]bool, n)}
	col := make([]float64, len(curves))
	for k := range n {
		m.Has[k] = true
		for i, c := range curves {
			col[i] = c.Value[k]
			m.Has[k] = m.Has[k] && c.Has[k]
		}
		if m.Has[k] {
			m.Value[k] = round2(mean(col))
		}
	}
	return m
}
