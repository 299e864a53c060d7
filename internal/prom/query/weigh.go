package query

import "github.com/gpuwise/gpuwise/internal/prom/wire"

// weigher turns one series' raw samples into weighted points: each sample
// stands for the time to the next one, at most cap (a longer gap is not
// measured); the last stands for the gap before it, at most cap, or cap
// when it is alone. point takes one sample (Unix seconds), Samples a run
// of them (milliseconds): the same arithmetic, in a loop per kind of
// accumulator.
type weigher struct {
	cap          float64
	acc          Acc
	have         bool
	prevT, prevV float64
	gap          float64
}

// start ends the previous series and starts one into acc.
func (w *weigher) start(acc Acc) {
	w.End()
	w.acc = acc
}

func (w *weigher) point(t, v float64) {
	if w.acc.Check != nil && !w.acc.Check.Ok(v) {
		return
	}
	if w.have {
		w.gap = t - w.prevT
		w.acc.AddAt(w.prevT, w.prevV, min(w.gap, w.cap))
	}
	w.prevT, w.prevV, w.have = t, v, true
}

// Samples is point for each of xs.
func (w *weigher) Samples(xs []wire.Sample) {
	if w.acc.Check != nil {
		xs = w.acc.Check.Keep(xs)
	}
	if len(xs) == 0 {
		return
	}
	if !w.have {
		w.prevT, w.prevV, w.have = float64(xs[0].T)/1000, xs[0].V, true
		xs = xs[1:]
	}
	prevT, prevV, gap, lim := w.prevT, w.prevV, w.gap, w.cap
	switch {
	case w.acc.Timed != nil: // hourly series too: the general path
		for _, x := range xs {
			t := float64(x.T) / 1000
			gap = t - prevT
			w.acc.AddAt(prevT, prevV, min(gap, lim))
			prevT, prevV = t, x.V
		}
	case w.acc.Gauge != nil:
		g := w.acc.Gauge
		for _, x := range xs {
			t := float64(x.T) / 1000
			gap = t - prevT
			g.Add(prevV, min(gap, lim))
			prevT, prevV = t, x.V
		}
	case w.acc.Activity != nil:
		a, scale := w.acc.Activity, w.acc.Scale
		for _, x := range xs {
			t := float64(x.T) / 1000
			gap = t - prevT
			a.Add(prevV*scale, min(gap, lim))
			prevT, prevV = t, x.V
		}
	default:
		for _, x := range xs {
			t := float64(x.T) / 1000
			gap = t - prevT
			w.acc.Func(prevV, min(gap, lim))
			prevT, prevV = t, x.V
		}
	}
	w.prevT, w.prevV, w.gap = prevT, prevV, gap
}

// End weighs the series' last sample.
func (w *weigher) End() {
	if w.have {
		dt := w.cap
		if w.gap > 0 {
			dt = min(w.gap, w.cap)
		}
		w.acc.AddAt(w.prevT, w.prevV, dt)
	}
	w.have, w.gap, w.acc = false, 0, Acc{}
}
