package prom

import (
	"testing"
	"time"

	"github.com/gpuwise/gpuwise/internal/prom/wire"
)

// TestFactGrid: a raw sample counts as seen at the first grid point at or
// after it, the point whose last_over_time(…[step−1ms]) first sees it.
func TestFactGrid(t *testing.T) {
	t.Parallel()
	anchor := time.Unix(7200, 0)
	g := grid{anchorMs: anchor.UnixMilli(), stepMs: time.Hour.Milliseconds()}
	for _, tt := range []struct {
		sampleMs int64
		want     float64
	}{
		{3600001, 7200}, // the earliest a request from anchor−step reads
		{7199999, 7200},
		{7200000, 7200},
		{7200001, 10800},
		{9000000, 10800},
		{10800000, 10800},
	} {
		if got := g.point(tt.sampleMs); got != tt.want {
			t.Errorf("sample at %v ms: seen at %v, want %v", tt.sampleMs, got, tt.want)
		}
	}
	if got := (grid{}).point(1234500); got != 1234.5 {
		t.Errorf("no grid: %v, want the sample's own time", got)
	}
}

// TestFactsKeepFirstAndLast: samples read into fact batches leave, per
// series, the first sighting, the last sighting and the last value on the
// grid, without the metric name, whatever the order of the batches and of
// the series within them; series seen only as NaN (no samples) are left
// out.
func TestFactsKeepFirstAndLast(t *testing.T) {
	t.Parallel()
	f := &facts{}
	open := f.batch(time.Unix(0, 0), time.Hour)
	day := func(series ...struct {
		l  wire.Labels
		xs []wire.Sample
	}) {
		b := open().(*factBatch)
		for _, s := range series {
			sink := b.Series(s.l).Sink
			sink.Samples(s.xs)
			sink.End()
		}
		b.Commit()
	}
	type sr = struct {
		l  wire.Labels
		xs []wire.Sample
	}
	a := labels("__name__", "kube_pod_info", "pod", "a")
	b := labels("pod", "b", "namespace", "x") // not sorted
	day(sr{a, []wire.Sample{{T: 1800000, V: 1}, {T: 7200000, V: 1}}}, sr{labels("pod", "nan"), nil})
	day(sr{b, []wire.Sample{{T: 3600000, V: 5}}}, sr{a, []wire.Sample{{T: 7300000, V: 2}}})
	var got []fact
	f.each(func(x *fact) { got = append(got, *x) })
	if len(got) != 2 {
		t.Fatalf("%d facts, want 2: %+v", len(got), got)
	}
	if x := got[1]; x.first != 3600 || x.last != 10800 || x.value != 2 || x.labels.Get("__name__") != "" || x.labels.Get("pod") != "a" {
		t.Errorf("fact %+v, want first 3600, last 10800, value 2, labels {pod: a}", x)
	}
	if x := got[0]; x.labels[0].Name != "namespace" || x.value != 5 {
		t.Errorf("fact %+v, want sorted labels and value 5", x)
	}
}
