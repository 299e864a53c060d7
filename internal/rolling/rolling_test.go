package rolling_test

import (
	"math"
	"strings"
	"testing"
	"time"

	"github.com/gpuwise/gpuwise/internal/cluster"
	"github.com/gpuwise/gpuwise/internal/cluster/clustertest"
	"github.com/gpuwise/gpuwise/internal/cost"
	"github.com/gpuwise/gpuwise/internal/pricing"
	"github.com/gpuwise/gpuwise/internal/rolling"
	"github.com/gpuwise/gpuwise/internal/sim"
	"github.com/gpuwise/gpuwise/internal/usage"
)

func report(t *testing.T, s *cluster.Snapshot) *cost.Report {
	t.Helper()
	prep, err := cluster.Prepare(s)
	if err != nil {
		t.Fatal(err)
	}
	a, err := cost.Allocate(prep, pricing.Embedded(), cost.DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	r, err := cost.NewReport(a, cost.DefaultReportOptions())
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func near(a, b, rel float64) bool {
	return math.Abs(a-b) <= rel*math.Max(1, math.Max(math.Abs(a), math.Abs(b)))
}

// demoSpans is the demo week cut into hours.
func demoSpans(t *testing.T) (*cluster.Snapshot, []*rolling.Span) {
	t.Helper()
	snap, spans, err := sim.Spans(sim.DefaultConfig(), time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	if len(spans) != 7*24 {
		t.Fatalf("%d spans, want 168", len(spans))
	}
	return snap, spans
}

// The week's usage merged from hourly spans gives the week's report: every
// accumulator is additive.
func TestMergedSpansGiveTheWindowsReport(t *testing.T) {
	t.Parallel()
	snap, spans := demoSpans(t)
	want := report(t, snap)
	got := report(t, rolling.Attach(snap, snap.Window, rolling.Merge(spans...)))
	g, w := got.Totals, want.Totals
	for _, c := range []struct {
		name      string
		got, want float64
	}{
		{"allocated", g.GPUHours.Allocated, w.GPUHours.Allocated},
		{"active", g.GPUHours.Active, w.GPUHours.Active},
		{"idle", g.GPUHours.Idle, w.GPUHours.Idle},
		{"unmeasured", g.GPUHours.Unmeasured, w.GPUHours.Unmeasured},
		{"sm active", g.GPUHours.SMActive, w.GPUHours.SMActive},
		{"total $", g.TotalCost, w.TotalCost},
		{"cpu $", g.CPUCost, w.CPUCost},
		{"memory $", g.MemoryCost, w.MemoryCost},
		{"idle $", g.GPUCost.AllocatedIdle, w.GPUCost.AllocatedIdle},
	} {
		if !near(c.got, c.want, 1e-9) {
			t.Errorf("%s: %.9f from spans, %.9f from the snapshot", c.name, c.got, c.want)
		}
	}
}

// A ring of 6-hour segments fed hour by hour holds the same usage as the
// hours merged at once, and evicting drops exactly the old segments.
func TestRingWindowEqualsMergedHours(t *testing.T) {
	t.Parallel()
	snap, spans := demoSpans(t)
	ring, err := rolling.NewRing(6 * time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range spans {
		if err := ring.Add(s); err != nil {
			t.Fatal(err)
		}
	}
	if ring.Len() != 28 {
		t.Errorf("%d segments, want 28", ring.Len())
	}
	day := cluster.Window{Start: snap.Window.End.Add(-24 * time.Hour), End: snap.Window.End}
	want := report(t, rolling.Attach(snap, day, rolling.Merge(spans[len(spans)-24:]...)))
	got := report(t, rolling.Attach(snap, day, ring.Window(day)))
	if !near(got.Totals.GPUHours.Active, want.Totals.GPUHours.Active, 1e-9) || !near(got.Totals.TotalCost, want.Totals.TotalCost, 1e-9) {
		t.Errorf("ring day: active %.6f $%.6f; merged hours: active %.6f $%.6f",
			got.Totals.GPUHours.Active, got.Totals.TotalCost, want.Totals.GPUHours.Active, want.Totals.TotalCost)
	}
	ring.Evict(day.Start)
	if ring.Len() != 4 {
		t.Errorf("after evicting before the last day: %d segments, want 4", ring.Len())
	}
	if err := ring.Add(&rolling.Span{Window: cluster.Window{Start: day.Start.Add(5 * time.Hour), End: day.Start.Add(7 * time.Hour)}}); err == nil {
		t.Error("a span across a segment boundary was accepted")
	}
}

// Hourly reports add up to the week's for every GPU quantity; CPU and
// memory are priced at max(request, usage) per hour, which is at least the
// week's max(request, mean usage).
func TestHourlyReportsAddUpToTheWeek(t *testing.T) {
	t.Parallel()
	snap, spans := demoSpans(t)
	want := report(t, snap)
	var alloc, active, idle, gpuUSD, cpuUSD float64
	for _, s := range spans {
		r := report(t, rolling.Attach(snap, s.Window, s))
		alloc += r.Totals.GPUHours.Allocated
		active += r.Totals.GPUHours.Active
		idle += r.Totals.GPUHours.Idle
		c := r.Totals.GPUCost
		gpuUSD += c.Active + c.AllocatedIdle + c.Unmeasured + c.Unallocated
		cpuUSD += r.Totals.CPUCost
	}
	w := want.Totals
	wc := w.GPUCost
	for _, c := range []struct {
		name      string
		got, want float64
	}{
		{"allocated", alloc, w.GPUHours.Allocated}, {"active", active, w.GPUHours.Active},
		{"idle", idle, w.GPUHours.Idle}, {"gpu $", gpuUSD, wc.Active + wc.AllocatedIdle + wc.Unmeasured + wc.Unallocated},
	} {
		if !near(c.got, c.want, 1e-9) {
			t.Errorf("%s: hours sum to %.9f, the week says %.9f", c.name, c.got, c.want)
		}
	}
	if cpuUSD < w.CPUCost-1e-6 {
		t.Errorf("hourly CPU $ %.6f below the week's %.6f", cpuUSD, w.CPUCost)
	}
}

// A pod with no usage in the span stays unmeasured, never 0% busy.
func TestAttachLeavesUnmeasuredNil(t *testing.T) {
	t.Parallel()
	snap, _ := demoSpans(t)
	s := rolling.Attach(snap, snap.Window, &rolling.Span{Window: snap.Window})
	for _, p := range s.Pods {
		for _, h := range p.GPUs {
			if h.Activity != nil {
				t.Fatalf("pod %s holding %s has activity with no span usage", p.Key(), h.UnitID)
			}
		}
	}
	if r := report(t, s); r.Totals.GPUHours.Active != 0 || r.Totals.GPUHours.Unmeasured != r.Totals.GPUHours.Allocated {
		t.Errorf("active %.3f, unmeasured %.3f of %.3f allocated", r.Totals.GPUHours.Active, r.Totals.GPUHours.Unmeasured, r.Totals.GPUHours.Allocated)
	}
}

// Usage of a unit the inventory does not give the pod goes to the pod's
// holding left without usage; usage with no holding left is counted out
// in a note, and a pod outside the window is dropped.
func TestAttachMatchesUnitsByIDThenOrder(t *testing.T) {
	t.Parallel()
	w := clustertest.Window(2)
	node := clustertest.Node("n1").GPUs(2, "H100-80GB").Obj()
	p := clustertest.Pod("ml", "train").On("n1").Holds("n1/gpu0", 0.5, 3600).Holds("n1/gpu1", 0.5, 3600).Obj()
	old := clustertest.Pod("ml", "old").On("n1").Life(clustertest.At(-3), clustertest.At(-1)).Obj()
	inv := &cluster.Snapshot{Window: w, Nodes: []cluster.Node{node}, Pods: []cluster.Pod{p, old}}
	act := func(v float64) *rolling.GPUUsage {
		a := &usage.Activity{}
		a.Add(v, 600)
		return &rolling.GPUUsage{Activity: a}
	}
	span := &rolling.Span{Window: w, Pods: map[string]*rolling.PodUsage{
		rolling.PodKey(&p): {GPUs: map[string]*rolling.GPUUsage{"n1/gpu1": act(0.9), "n1/gpu7": act(0.2), "n1/gpu9": act(0.3)}},
	}}
	got := rolling.Attach(inv, w, span)
	if len(got.Pods) != 1 {
		t.Fatalf("%d pods, want the one that lived in the window", len(got.Pods))
	}
	hs := got.Pods[0].GPUs
	if m := hs[1].Activity.Mean(); m != 0.9 {
		t.Errorf("gpu1 mean %v, want 0.9 (matched by ID)", m)
	}
	if m := hs[0].Activity.Mean(); m != 0.2 {
		t.Errorf("gpu0 mean %v, want 0.2 (the first unmatched series by ID)", m)
	}
	if len(got.Notes) == 0 || !strings.Contains(got.Notes[len(got.Notes)-1], "1 GPU usage series") {
		t.Errorf("notes %q lack the left-out series", got.Notes)
	}
	if inv.Pods[0].GPUs[0].Activity.Mean() != 0.5 {
		t.Error("Attach changed the inventory's holdings")
	}
}

// A usage source that knows pods by name only still finds them, and a
// name with two lives in the span is matched by neither.
func TestAttachFallsBackToNames(t *testing.T) {
	t.Parallel()
	w := clustertest.Window(2)
	node := clustertest.Node("n1").GPUs(2, "H100-80GB").Obj()
	a := clustertest.Pod("ml", "a").On("n1").Holds("n1/gpu0", -1, 0).Obj()
	a.UID = "uid-a"
	b := clustertest.Pod("ml", "b").On("n1").Holds("n1/gpu1", -1, 0).Obj()
	b.UID = "uid-b"
	act := &usage.Activity{}
	act.Add(0.7, 600)
	gpu := func(id string) *rolling.PodUsage {
		return &rolling.PodUsage{GPUs: map[string]*rolling.GPUUsage{id: {Activity: act}}}
	}
	span := &rolling.Span{Window: w, Pods: map[string]*rolling.PodUsage{
		"ml/a": gpu("n1/gpu0"), "ml/b/old-uid": gpu("n1/gpu1"), "ml/b/other-uid": gpu("n1/gpu1"),
	}}
	got := rolling.Attach(&cluster.Snapshot{Window: w, Nodes: []cluster.Node{node}, Pods: []cluster.Pod{a, b}}, w, span)
	if got.Pods[0].GPUs[0].Activity == nil {
		t.Error("pod ml/a (UID in the inventory, none in the usage) found no usage")
	}
	if got.Pods[1].GPUs[0].Activity != nil {
		t.Error("pod ml/b took the usage of one of two other lives of its name")
	}
}

// A DRA device the exporter attributes to its pod gets the pod's usage
// (by the pod, as any unit the inventory named otherwise); one it cannot
// attribute stays unmeasured, with a note, never idle.
func TestAttachDRAUnattributedIsUnmeasured(t *testing.T) {
	t.Parallel()
	w := clustertest.Window(2)
	node := clustertest.Node("n1").GPUs(2, "H100-80GB").Obj()
	for i := range node.GPUs {
		node.GPUs[i].Allocator = cluster.DRA
	}
	seen := clustertest.Pod("ml", "seen").On("n1").Holds("n1/gpu0", 0, 0).Obj()
	dark := clustertest.Pod("ml", "dark").On("n1").Holds("n1/gpu1", 0, 0).Obj()
	a := &usage.Activity{}
	a.Add(0.7, 7200)
	inv := &cluster.Snapshot{Window: w, Nodes: []cluster.Node{node}, Pods: []cluster.Pod{seen, dark},
		DRA: &cluster.DRAInfo{Drivers: []cluster.DRADriver{{Name: cluster.DRAGPUDriver, Devices: 2}}}}
	span := &rolling.Span{Window: w, Pods: map[string]*rolling.PodUsage{
		rolling.PodKey(&seen): {GPUs: map[string]*rolling.GPUUsage{"n1/gpu-exporter-0": {Activity: a}}}}}
	got := rolling.Attach(inv, w, span)
	if got.DRA == nil {
		t.Error("Attach dropped the DRA section")
	}
	if m := got.Pods[0].GPUs[0].Activity; m == nil || m.Mean() != 0.7 {
		t.Errorf("attributed DRA unit's activity %v, want 0.7", m)
	}
	if got.Pods[1].GPUs[0].Activity != nil {
		t.Error("unattributed DRA unit got activity")
	}
	if !strings.Contains(strings.Join(got.Notes, "\n"), "1 DRA GPU unit(s) held through ResourceClaims have no usage series (the first: ml/dark on n1/gpu1)") {
		t.Errorf("notes %q lack the unattributed DRA unit", got.Notes)
	}
	r := report(t, got)
	if r.Totals.GPUHours.Unmeasured != 2 || r.Totals.GPUHours.Idle != 0 {
		t.Errorf("unmeasured %v idle %v GPU-hours, want 2 and 0", r.Totals.GPUHours.Unmeasured, r.Totals.GPUHours.Idle)
	}
}

// The window's snapshot keeps the inventory's controls and its partial
// list (what the inventory could not read), as it keeps DRA and Kueue.
func TestAttachKeepsControlsAndPartial(t *testing.T) {
	t.Parallel()
	w := clustertest.Window(2)
	ctl := &cluster.Controls{Read: []string{cluster.ResourceHPA}, Autoscalers: []cluster.Autoscaler{{Kind: cluster.KindHPA, Namespace: "ml", Name: "chat"}}}
	inv := &cluster.Snapshot{Window: w, Controls: ctl, Partial: []string{"watching nodepools.karpenter.sh is forbidden"}}
	got := rolling.Attach(inv, w, &rolling.Span{Window: w})
	if got.Controls != ctl {
		t.Errorf("controls %+v, want the inventory's", got.Controls)
	}
	if len(got.Partial) != 1 || got.Partial[0] != inv.Partial[0] {
		t.Errorf("partial %q, want the inventory's %q", got.Partial, inv.Partial)
	}
	got.Partial[0] = "changed"
	if inv.Partial[0] == "changed" {
		t.Error("the window's partial list shares the inventory's")
	}
}
