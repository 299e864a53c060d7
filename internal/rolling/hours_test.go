package rolling_test

import (
	"math"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/gpuwise/gpuwise/internal/cluster"
	"github.com/gpuwise/gpuwise/internal/cluster/clustertest"
	"github.com/gpuwise/gpuwise/internal/rolling"
)

// hoursSpan is a span over w whose raw hourly sums hold workload key:
// one GPU held and measured over all of w at activity act.
func hoursSpan(t *testing.T, w cluster.Window, key string, act float64) *rolling.Span {
	t.Helper()
	b := cluster.NewHourlyBuilder(w, cluster.DefaultIdleThreshold)
	a := b.Workload(key)
	a.Life(0, w.Seconds(), 1)
	for _, sp := range b.Spans(0, w.Seconds(), nil) {
		a.GPUs(sp, 1, act, 0)
	}
	sums, err := b.Sums()
	if err != nil {
		t.Fatal(err)
	}
	return &rolling.Span{Window: w, Hours: sums}
}

var sameFloats = cmp.Comparer(func(a, b float32) bool {
	return a == b || a != a && b != b || math.Abs(float64(a-b)) <= 1e-6*math.Max(1, math.Abs(float64(a)))
})

// Spans' raw hourly sums merge through a ring (intervals of 20 minutes
// into 2-hour segments) and Attach builds the window's series from them:
// the series one builder over the window gives.
func TestAttachBuildsTheWindowsHoursFromTheSpans(t *testing.T) {
	t.Parallel()
	w := clustertest.Window(4)
	p := clustertest.Pod("ml", "train").On("n1").Holds("n1/gpu0", 0.5, 3600).Obj()
	key := p.WorkloadKey()
	inv := &cluster.Snapshot{Window: w, Nodes: []cluster.Node{clustertest.Node("n1").GPUs(1, "H100-80GB").Obj()}, Pods: []cluster.Pod{p}}
	ring, err := rolling.NewRing(2 * time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	for t0 := w.Start; t0.Before(w.End); t0 = t0.Add(20 * time.Minute) {
		iv := cluster.Window{Start: t0, End: t0.Add(20 * time.Minute)}
		if err := ring.Add(hoursSpan(t, iv, key, float64(t0.Minute())/60)); err != nil {
			t.Fatal(err)
		}
	}
	one := cluster.NewHourlyBuilder(w, cluster.DefaultIdleThreshold)
	a := one.Workload(key)
	a.Life(0, w.Seconds(), 1)
	for s := 0.0; s < w.Seconds(); s += 1200 {
		for _, sp := range one.Spans(s, 1200, nil) {
			a.GPUs(sp, 1, float64(int(s)%3600/60)/60, 0)
		}
	}
	want := one.Build()
	got := rolling.Attach(inv, w, ring.Window(w)).Hourly
	if got == nil {
		t.Fatal("no hourly series from spans with hourly sums")
	}
	if diff := cmp.Diff(want, got.Workloads, sameFloats); diff != "" {
		t.Errorf("window's series (-one builder +ring of spans):\n%s", diff)
	}
}

// A window off the hour cannot be built from the sums: the snapshot says
// so and keeps the inventory's series (none here).
func TestAttachNotesHoursItCannotBuild(t *testing.T) {
	t.Parallel()
	w := clustertest.Window(3)
	p := clustertest.Pod("ml", "train").On("n1").Holds("n1/gpu0", 0.5, 3600).Obj()
	inv := &cluster.Snapshot{Window: w, Nodes: []cluster.Node{clustertest.Node("n1").GPUs(1, "H100-80GB").Obj()}, Pods: []cluster.Pod{p}}
	off := cluster.Window{Start: w.Start.Add(30 * time.Minute), End: w.End}
	s := rolling.Attach(inv, off, hoursSpan(t, w, p.WorkloadKey(), 0.5))
	if s.Hourly != nil {
		t.Errorf("hourly series %v for a window off the hour", s.Hourly)
	}
	if len(s.Notes) == 0 || !strings.Contains(s.Notes[len(s.Notes)-1], "hourly series from the usage reads left out") {
		t.Errorf("notes %q do not say why the hourly series are missing", s.Notes)
	}
}
