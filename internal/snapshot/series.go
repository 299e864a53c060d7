package snapshot

import (
	"github.com/gpuwise/gpuwise/internal/usage"
)

// activity writes an Activity: its four numbers, then its histogram's
// span: the first bucket, the count and each bucket's seconds (an empty
// bucket is one byte).
func (e *encoder) activity(a *usage.Activity) {
	s := a.State()
	e.float(s.Seconds)
	e.varint(s.Samples)
	e.float(s.ActiveSeconds)
	e.float(s.Max)
	e.uvarint(uint64(s.Offset))
	e.uvarint(uint64(len(s.Buckets)))
	for _, v := range s.Buckets {
		e.float(v)
	}
}

// gauge writes a Gauge: its five numbers, resolution, offset and the dense
// bucket array (an empty bucket is one byte).
func (e *encoder) gauge(g *usage.Gauge) {
	s := g.State()
	e.float(s.Seconds)
	e.varint(s.Samples)
	e.float(s.Integral)
	e.float(s.Max)
	e.float(s.ZeroSeconds)
	e.varint(int64(s.Scale))
	e.varint(int64(s.Offset))
	e.uvarint(uint64(len(s.Buckets)))
	for _, v := range s.Buckets {
		e.float(v)
	}
}

// slabs hands out accumulators and bucket arrays from shared chunks: a
// few allocations per frame instead of one or two per series. A worker
// keeps its slabs from frame to frame, so that only the last chunks of the
// read are left part-used (they were about 4 MB at 10k GPUs when each
// frame had its own). Each kind of series has chunks of its own, so that
// a use case that drops one kind once it is read
// (cluster.Snapshot.ReleaseUsageDetail) frees their memory whole.
type slabs struct {
	gpuActivity, smActivity seriesSlab[usage.Activity]
	gauges                  seriesSlab[usage.Gauge]
}

// seriesSlab hands out one kind of accumulator and its bucket arrays.
type seriesSlab[T any] struct {
	items  []T
	floats []float64
}

func (s *seriesSlab[T]) next() *T {
	if len(s.items) == 0 {
		s.items = make([]T, 512)
	}
	v := &s.items[0]
	s.items = s.items[1:]
	return v
}

// room returns the slab's next n floats without handing them out, with
// their capacity ending at n, so that an accumulator that grows later
// reallocates instead of writing into its neighbour's: a series decodes
// its buckets there, then takes those it keeps.
func (s *seriesSlab[T]) room(n int) []float64 {
	if n == 0 {
		return nil
	}
	if len(s.floats) < n {
		s.floats = make([]float64, max(n, 8192))
	}
	return s.floats[:n:n]
}

// take hands out the next n floats of the slab (those room returned).
func (s *seriesSlab[T]) take(n int) { s.floats = s.floats[n:] }

func (d *decoder) activity(a *usage.Activity, sl *seriesSlab[usage.Activity]) {
	s := usage.ActivityState{Seconds: d.float(), Samples: d.varint(), ActiveSeconds: d.float(), Max: d.float()}
	off, n := d.uvarint(), d.count("activity histogram")
	if n > usage.ActivityBuckets || off > usage.ActivityBuckets {
		d.fail("activity: %d buckets from %d: out of range", n, off)
		return
	}
	s.Offset, s.Buckets = int(off), sl.room(n)
	kept := 0
	for j := range s.Buckets {
		s.Buckets[j] = d.float()
		if s.Buckets[j] != 0 {
			kept++
		}
	}
	if d.err == nil {
		// The activity keeps its non-zero buckets only, at the front of
		// the room (usage.Activity.SetState): the rest is the next
		// series'.
		if err := a.SetState(s); err != nil {
			d.fail("%v", err)
		}
		sl.take(kept)
	}
}

func (d *decoder) gauge(g *usage.Gauge, sl *seriesSlab[usage.Gauge]) {
	s := usage.GaugeState{Seconds: d.float(), Samples: d.varint(), Integral: d.float(), Max: d.float(), ZeroSeconds: d.float()}
	scale, off := d.varint(), d.varint()
	n := d.count("gauge histogram")
	if n > usage.GaugeMaxBuckets || scale < usage.GaugeMinScale || scale > 4 || int64(int32(off)) != off {
		d.fail("gauge: %d buckets at scale %d from %d: out of range", n, scale, off)
		return
	}
	s.Scale, s.Offset, s.Buckets = int(scale), int32(off), sl.room(n)
	for j := range s.Buckets {
		s.Buckets[j] = d.float()
	}
	if d.err == nil {
		if err := g.SetState(s); err != nil {
			d.fail("%v", err)
		}
		sl.take(n)
	}
}
