package prom

import (
	"bytes"
	"reflect"
	"testing"
	"time"
)

// TestFactGrid: a raw sample counts as seen at the first grid point at or
// after it, the point whose last_over_time(…[step−1ms]) first sees it.
func TestFactGrid(t *testing.T) {
	t.Parallel()
	anchor := time.Unix(7200, 0)
	g := grid{anchorMs: anchor.UnixMilli(), stepMs: time.Hour.Milliseconds()}
	for _, tt := range []struct{ sample, want float64 }{
		{3600.001, 7200}, // the earliest a request from anchor−step reads
		{7199.999, 7200},
		{7200, 7200},
		{7200.001, 10800},
		{9000, 10800},
		{10800, 10800},
	} {
		if got := g.point(tt.sample); got != tt.want {
			t.Errorf("sample at %v s: seen at %v, want %v", tt.sample, got, tt.want)
		}
	}
	if got := (grid{}).point(1234.5); got != 1234.5 {
		t.Errorf("no grid: %v, want the sample's own time", got)
	}
}

// TestRawFactsKeepFirstAndLast: raw samples read into a fact batch leave
// the fact a query_range read on the grid leaves, without the metric name.
func TestRawFactsKeepFirstAndLast(t *testing.T) {
	t.Parallel()
	f := newFacts()
	b := f.openRaw(time.Unix(0, 0), time.Hour)()
	add := b.Series(map[string]string{"__name__": "kube_pod_info", "pod": "a"})
	add(1800, 1) // first seen at 3600
	add(7200, 1)
	add(7300, 2) // last seen at 10800, value 2
	b.Commit()
	var got []*fact
	f.each(func(x *fact) { got = append(got, x) })
	if len(got) != 1 {
		t.Fatalf("%d facts, want 1", len(got))
	}
	x := got[0]
	if x.first != 3600 || x.last != 10800 || x.value != 2 || x.labels.get("__name__") != "" || x.labels.get("pod") != "a" {
		t.Errorf("fact %+v, want first 3600, last 10800, value 2, labels {pod: a}", *x)
	}
}

// TestRemoteFactsAsLabelLists: facts read by remote read, their labels
// handed on as label lists, are the facts the label-map path keeps, in
// the same order, and a series split over frames is one fact.
func TestRemoteFactsAsLabelLists(t *testing.T) {
	t.Parallel()
	series := [][][2]string{
		{{"__name__", "kube_pod_info"}, {"namespace", "ml"}, {"node", "n1"}, {"pod", "b"}},
		{{"__name__", "kube_pod_info"}, {"namespace", "ml"}, {"node", "n2"}, {"pod", "a"}},
		{{"__name__", "kube_pod_info"}, {"pod", "c"}, {"namespace", "web"}}, // not sorted
	}
	var body []byte
	for i, l := range series {
		c := pbChunk(0, 7200000, encodeXOR(t, []sample{{1800000, float64(i)}, {7200000, float64(i + 1)}}))
		body = append(body, frame(pbSeries(l, c))...)
		if i == 0 { // the same series again in the next frame
			c := pbChunk(7200001, 9000000, encodeXOR(t, []sample{{9000000, 9}}))
			body = append(body, frame(pbSeries(l, c))...)
		}
	}
	read := func(pairs bool) []fact {
		f := newFacts()
		b := f.openRaw(time.Unix(0, 0), time.Hour)()
		var onPairs func(labelSet) PointFunc
		if pairs {
			onPairs = b.(pairsBatch).seriesPairs
		}
		if err := decodeChunkedRead(bytes.NewReader(body), 1, 9000000, b.Series, true, false, onPairs, nil, nil); err != nil {
			t.Fatal(err)
		}
		b.Commit()
		var out []fact
		f.each(func(x *fact) { out = append(out, *x) })
		return out
	}
	got, want := read(true), read(false)
	if !reflect.DeepEqual(got, want) || len(got) != 3 {
		t.Fatalf("label lists:\n%+v\nlabel maps:\n%+v", got, want)
	}
	if x := got[0]; x.labels.get("pod") != "b" || x.first != 3600 || x.last != 10800 || x.value != 9 || x.labels.get("__name__") != "" {
		t.Errorf("split series: %+v, want pod b first 3600, last 10800, value 9", x)
	}
}
