package cluster_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/gpuwise/gpuwise/internal/cluster"
	"github.com/gpuwise/gpuwise/internal/usage"
)

func TestCompactUsageTrimsEveryAccumulatorAndKeepsItsState(t *testing.T) {
	grown := func() (*usage.Activity, *usage.Gauge) {
		var a usage.Activity
		var g usage.Gauge
		for i := range 5 {
			a.Add(0.4+float64(i)/100, 60)
			g.Add(float64(100+i), 60)
		}
		return &a, &g
	}
	a1, g1 := grown()
	a2, g2 := grown()
	_, g3 := grown()
	_, g4 := grown()
	s := &cluster.Snapshot{Pods: []cluster.Pod{{
		GPUs:       []cluster.Holding{{UnitID: "u", Activity: a1, SMActive: a2, FramebufferMiB: g1}, {UnitID: "v"}},
		Containers: []cluster.Container{{Name: "c", CPU: g2, Memory: g3}, {Name: "d", Memory: g4}},
	}}}
	acts, gauges := []*usage.Activity{a1, a2}, []*usage.Gauge{g1, g2, g3, g4}
	var before []any
	for _, a := range acts {
		if st := a.State(); cap(st.Buckets) == len(st.Buckets) {
			t.Fatalf("test premise: a grown activity has spare capacity")
		}
		before = append(before, a.State())
	}
	for _, g := range gauges {
		before = append(before, g.State())
	}
	s.CompactUsage()
	var after []any
	for _, a := range acts {
		st := a.State()
		if cap(st.Buckets) != len(st.Buckets) {
			t.Errorf("activity: capacity %d for %d buckets after CompactUsage", cap(st.Buckets), len(st.Buckets))
		}
		after = append(after, st)
	}
	for _, g := range gauges {
		st := g.State()
		if cap(st.Buckets) != len(st.Buckets) {
			t.Errorf("gauge: capacity %d for %d buckets after CompactUsage", cap(st.Buckets), len(st.Buckets))
		}
		after = append(after, st)
	}
	if diff := cmp.Diff(before, after); diff != "" {
		t.Errorf("state changed (-before +after):\n%s", diff)
	}
}

// TestReleaseUsageDetailKeepsOnlyGPUActivity: the GPUs' activity stays
// (the same accumulator, unchanged), every other usage series reads as
// unmeasured (nil), and the inventory is untouched.
func TestReleaseUsageDetailKeepsOnlyGPUActivity(t *testing.T) {
	var act, sm usage.Activity
	act.Add(0.3, 60)
	sm.Add(0.2, 60)
	var fb, cpu, mem usage.Gauge
	fb.Add(1024, 60)
	cpu.Add(0.5, 60)
	mem.Add(1<<30, 60)
	s := &cluster.Snapshot{Pods: []cluster.Pod{{
		Name:       "p",
		GPUs:       []cluster.Holding{{UnitID: "u", Activity: &act, SMActive: &sm, FramebufferMiB: &fb}, {UnitID: "v"}},
		Containers: []cluster.Container{{Name: "c", CPURequestMilli: 500, CPU: &cpu, Memory: &mem}},
	}}}
	s.ReleaseUsageDetail()
	p := s.Pods[0]
	if p.GPUs[0].Activity != &act || act.Mean() != 0.3 {
		t.Errorf("GPU activity %p (mean %v), want the same accumulator %p (0.3)", p.GPUs[0].Activity, act.Mean(), &act)
	}
	want := cluster.Pod{Name: "p",
		GPUs:       []cluster.Holding{{UnitID: "u", Activity: &act}, {UnitID: "v"}},
		Containers: []cluster.Container{{Name: "c", CPURequestMilli: 500}}}
	if d := cmp.Diff(want, p, cmp.Comparer(func(a, b *usage.Activity) bool { return a == b })); d != "" {
		t.Errorf("after ReleaseUsageDetail (-want +got):\n%s", d)
	}
}
