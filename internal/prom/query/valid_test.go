package query

import (
	"math"
	"testing"

	"github.com/gpuwise/gpuwise/internal/prom/wire"
	"github.com/gpuwise/gpuwise/internal/usage"
)

// TestM3RangeLeavesOutAndCounts (issue 31 M3): samples outside the range
// (and ±Inf) are left out and counted, the first kept; NaN is a gap, not
// counted; all-valid runs come back as they are; a weighed series with a
// Check never takes the bad samples.
func TestM3RangeLeavesOutAndCounts(t *testing.T) {
	t.Parallel()
	r := Range{Min: 0, Max: 1}
	ok := []wire.Sample{{T: 1, V: 0}, {T: 2, V: 1}}
	if got := r.Keep(ok); &got[0] != &ok[0] || r.Out != 0 {
		t.Errorf("a valid run was copied or counted (%d)", r.Out)
	}
	xs := []wire.Sample{{T: 1, V: 0.5}, {T: 2, V: 500}, {T: 3, V: -5}, {T: 4, V: math.NaN()}, {T: 5, V: math.Inf(1)}, {T: 6, V: 0.25}}
	got := r.Keep(xs)
	if len(got) != 3 || got[0].V != 0.5 || got[1].V == got[1].V || got[2].V != 0.25 {
		t.Errorf("kept %v; want 0.5, NaN, 0.25", got)
	}
	if r.Out != 3 || r.First != 500 {
		t.Errorf("out %d, first %v; want 3, 500", r.Out, r.First)
	}
	var sum Range
	sum.Add(&r)
	sum.Add(&Range{Min: 0, Max: 1, Out: 2, First: 7})
	if sum.Out != 5 || sum.First != 500 || sum.Max != 1 {
		t.Errorf("sum %+v; want 5 out, first 500, bounds kept", sum)
	}
	var a usage.Activity
	w := &weigher{cap: 60}
	chk := Range{Min: 0, Max: 1}
	w.start(Acc{Activity: &a, Scale: 1, Check: &chk})
	w.Samples([]wire.Sample{{T: 0, V: 0.4}, {T: 60_000, V: 500}, {T: 120_000, V: 0.4}})
	w.End()
	if a.Mean() > 0.41 || chk.Out != 1 {
		t.Errorf("activity mean %.3f, %d left out; want 0.4 and 1", a.Mean(), chk.Out)
	}
}
