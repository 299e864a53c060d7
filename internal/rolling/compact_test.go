package rolling_test

import (
	"testing"
	"time"

	"github.com/gpuwise/gpuwise/internal/cluster"
	"github.com/gpuwise/gpuwise/internal/rolling"
	"github.com/gpuwise/gpuwise/internal/usage"
)

// spanAt is one pod's usage over the hour from t: activity spread over
// many buckets, so that merging leaves spare capacity.
func spanAt(t time.Time, spread float64) *rolling.Span {
	var a usage.Activity
	var g usage.Gauge
	for i := range 40 {
		a.Add(spread*float64(i)/40, 60)
		g.Add(float64(1+i)*spread*1e6, 60)
	}
	return &rolling.Span{Window: cluster.Window{Start: t, End: t.Add(time.Hour)}, Pods: map[string]*rolling.PodUsage{
		"ns/p": {GPUs: map[string]*rolling.GPUUsage{"gpu-0": {Activity: &a}}, Containers: map[string]*rolling.ContainerUsage{"c": {CPU: &g}}},
	}}
}

func spare(s *rolling.Span) (activity, gauge int) {
	pu := s.Pods["ns/p"]
	a, g := pu.GPUs["gpu-0"].Activity.State().Buckets, pu.Containers["c"].CPU.State().Buckets
	return cap(a) - len(a), cap(g) - len(g)
}

// The merged window comes compacted, and compacting the segments that
// spans have moved past changes none of their usage.
func TestRingCompactsFinishedSegmentsAndWindows(t *testing.T) {
	r, err := rolling.NewRing(2 * time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	t0 := time.Date(2026, 11, 2, 0, 0, 0, 0, time.UTC)
	whole := rolling.Merge(spanAt(t0, 0.3), spanAt(t0.Add(time.Hour), 0.9))
	for _, s := range []*rolling.Span{spanAt(t0, 0.3), spanAt(t0.Add(time.Hour), 0.9)} {
		if err := r.Add(s); err != nil {
			t.Fatal(err)
		}
	}
	first := cluster.Window{Start: t0, End: t0.Add(2 * time.Hour)}
	if a, g := spare(whole); a == 0 || g == 0 {
		t.Fatalf("test premise: merging leaves spare capacity (activity %d, gauge %d)", a, g)
	}
	w := r.Window(first)
	if a, g := spare(w); a != 0 || g != 0 {
		t.Errorf("merged window: spare capacity %d, %d; want 0, 0", a, g)
	}
	wantA := whole.Pods["ns/p"].GPUs["gpu-0"].Activity.State()
	if got := w.Pods["ns/p"].GPUs["gpu-0"].Activity.State(); got.Seconds != wantA.Seconds || got.Offset != wantA.Offset || len(got.Buckets) != len(wantA.Buckets) {
		t.Errorf("merged window's activity = %+v, want %+v", got, wantA)
	}
	if err := r.Add(spanAt(t0.Add(2*time.Hour), 0.5)); err != nil {
		t.Fatal(err)
	}
	if got, want := r.Window(first).Pods["ns/p"].GPUs["gpu-0"].Activity.Quantile(0.9), whole.Pods["ns/p"].GPUs["gpu-0"].Activity.Quantile(0.9); got != want {
		t.Errorf("finished segment's p90 = %v, want %v", got, want)
	}
}
