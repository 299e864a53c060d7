package ledger

import (
	"fmt"
	"strings"
	"testing"

	"github.com/gpuwise/gpuwise/internal/cluster"
	"github.com/gpuwise/gpuwise/internal/cluster/clustertest"
	"github.com/gpuwise/gpuwise/internal/ledger/lever"
	"github.com/gpuwise/gpuwise/internal/nodeprice"
	"github.com/gpuwise/gpuwise/internal/pricing"
)

// notebookIdle: a notebook (StatefulSet in "notebooks") on its own H100
// node ($4/h) all week, busy 10:00–14:00 and idle (1%) the other 20 hours
// a day. Given back in its idle stretches, its node runs 4 h a day plus
// 10 minutes ahead of 10:00 and 10 minutes after 14:00: 7 × (4 + 1/3) h a
// week, × 730 ÷ 168; it saves the rest of the month at $4/h.
func notebookIdle(t *testing.T) *cluster.Prepared {
	t.Helper()
	return notebookIdleFor(t, weekHours)
}

// notebookIdleFor is notebookIdle over a window of hours.
func notebookIdleFor(t *testing.T, hours int) *cluster.Prepared {
	t.Helper()
	nodes := []cluster.Node{node("h1", h100x1, 1, "H100-80GB", 8, 64)}
	pods := []cluster.Pod{clustertest.Pod("notebooks", "lab-0").Owner("StatefulSet", "lab").On("h1").Requests(1000, 8).
		Holds("h1/gpu0", 0.2, float64(hours)*3600).Obj()}
	wh := cluster.WorkloadHours{Workload: "notebooks/StatefulSet/lab"}
	for h := range hours {
		act := float32(0.01)
		if hd := h % 24; hd >= 10 && hd < 14 {
			act = 0.9
		}
		wh.Pods, wh.GPUHeld, wh.GPUMeasured = append(wh.Pods, 1), append(wh.GPUHeld, 1), append(wh.GPUMeasured, 1)
		wh.GPUActive, wh.GPUIdle = append(wh.GPUActive, act), append(wh.GPUIdle, 0)
	}
	return prepareTest(t, &cluster.Snapshot{Window: clustertest.Window(hours), Source: "fixture", Nodes: nodes, Pods: pods,
		Hourly: &cluster.Hourly{IdleThreshold: cluster.DefaultIdleThreshold, Workloads: []cluster.WorkloadHours{wh}}})
}

func TestReclaimNotebookIdle20HoursADay(t *testing.T) {
	t.Parallel()
	l := build(t, notebookIdle(t), options(LeverReclaim))
	runs := 7 * (4 + 1.0/3) * HoursPerMonth / weekHours
	want := CentsOf(4*HoursPerMonth) - CentsOf(4*runs)
	if l.Saving() != want || len(l.Actions) != 1 || l.Actions[0].Kind != lever.KindReclaim || len(l.Actions[0].Items) != 1 {
		t.Errorf("reclaim saves %s in %d action(s), want %s in one with the notebook", l.Saving(), len(l.Actions), want)
	}
	// Autoscale first: the notebook holds one replica (its floor), so the
	// money is reclaim's, and it requires the node pool's action.
	both := build(t, notebookIdle(t), options(LeverAutoscale, LeverReclaim))
	if both.Saving() != want {
		t.Errorf("autoscale + reclaim save %s, want %s", both.Saving(), want)
	}
}

// TestReclaimIsNoSurerThanThePoolScaling (issue 31's fault-mode
// property): reclaim's freed node-hours rest on the pool scaling with the
// hourly GPU demand, so on two days of history (low for scale-nodes) a
// reclaim is low too, with the autoscale lever's action to inherit from
// or without it (the lever off, or, on a partial read, a service's
// autoscale action gone); on a week it keeps its own medium.
func TestReclaimIsNoSurerThanThePoolScaling(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		hours  int
		levers []string
		want   Level
	}{{48, []string{LeverReclaim}, Low}, {48, []string{LeverAutoscale, LeverReclaim}, Low}, {weekHours, []string{LeverReclaim}, Medium}} {
		l := build(t, notebookIdleFor(t, c.hours), options(c.levers...))
		var got *Action
		for i := range l.Actions {
			if l.Actions[i].Kind == lever.KindReclaim {
				got = &l.Actions[i]
			}
		}
		if got == nil {
			t.Fatalf("%d h, %v: no reclaim action", c.hours, c.levers)
		}
		if got.Confidence != c.want || c.want == Low && !strings.Contains(got.ConfidenceReason, "over only 48 h") {
			t.Errorf("%d h, %v: reclaim %s (%q), want %s", c.hours, c.levers, got.Confidence, got.ConfidenceReason, c.want)
		}
	}
}

// Quantization candidates are never money: on the demo-like service they
// are not counted, carry the mark, and the total is the same without the
// lever.
func TestQuantizeIsNeverSummed(t *testing.T) {
	t.Parallel()
	s := diurnalService(t)
	s.Hourly().Workloads[0].Server = cluster.ServerTriton
	for i := range s.Pods() {
		s.Pods()[i].GPUs[0].FramebufferMiB = gauge(6 * 1024)
	}
	with := build(t, s, options(LeverAutoscale, LeverQuantize))
	without := build(t, s, options(LeverAutoscale))
	found := 0
	for _, nc := range with.NotCounted {
		if nc.Lever == LeverQuantize && strings.Contains(nc.Reason, QuantizeMark) && strings.Contains(nc.Reason, "FP8") {
			found++
		}
	}
	if found != 1 || with.Saving() != without.Saving() {
		t.Errorf("%d marked candidates; saving %s with the lever, %s without: want 1 and equal", found, with.Saving(), without.Saving())
	}
}

// TestReclaimAloneIsNotCreditedWithPoolScaling: beside the notebook, a
// training Job holds a second H100 node for the first half of the week
// only, so the node pool scaling with demand alone saves that node's
// second half. Reclaim on its own counts only what the reclaimed notebook
// frees on top of that scaling — the same as reclaim after the autoscale
// lever — and the two levers alone add up to the two together.
func TestReclaimAloneIsNotCreditedWithPoolScaling(t *testing.T) {
	t.Parallel()
	s := func() *cluster.Prepared {
		p := notebookIdle(t)
		snap := *p.View()
		snap.Nodes = append(append([]cluster.Node(nil), snap.Nodes...), node("h2", h100x1, 1, "H100-80GB", 8, 64))
		job := clustertest.Pod("train", "job-0").Owner("Job", "job").On("h2").Requests(1000, 8).
			Life(clustertest.At(0), clustertest.At(weekHours/2)).Holds("h2/gpu0", 0.9, weekHours/2*3600).Obj()
		job.Phase = "Succeeded"
		snap.Pods = append(append([]cluster.Pod(nil), snap.Pods...), job)
		return prepareTest(t, &snap)
	}
	alone := build(t, s(), options(LeverReclaim))
	scaling := build(t, s(), options(LeverAutoscale))
	both := build(t, s(), options(LeverAutoscale, LeverReclaim))
	var after Cents
	for _, lr := range both.Levers {
		if lr.Name == LeverReclaim {
			after = lr.Saving()
		}
	}
	if scaling.Saving() <= 0 || alone.Saving() <= 0 {
		t.Fatalf("pool scaling saves %s, reclaim alone %s: the fixture should give both money", scaling.Saving(), alone.Saving())
	}
	if alone.Saving() != after || alone.Saving()+scaling.Saving() != both.Saving() {
		t.Errorf("reclaim alone saves %s, after autoscaling %s; autoscale alone %s, both %s: want reclaim alone = reclaim after autoscaling, and the two alone adding up to both",
			alone.Saving(), after, scaling.Saving(), both.Saving())
	}
}

// TestQuantizeBoundAtTheGPUsOwnRate: the service's four H100s are on
// $4/h nodes; four idle H100 nodes of a cheaper type ($1/h) are in the
// cluster too. The bound prices the service's GPUs at the rate the report
// charges them ($4/h: the GPU share of their own nodes' price), not the
// fleet's mean ($2.50/h).
func TestQuantizeBoundAtTheGPUsOwnRate(t *testing.T) {
	t.Parallel()
	const cheap = "test.h100cheap"
	prices := pricing.NewCatalog(append(testEntries(), pricing.Entry{Cloud: "aws", Region: "us-east-1", InstanceType: cheap,
		GPUModel: "H100-80GB", GPUCount: 1, VCPUs: 8, MemoryGiB: 64, OnDemandUSDPerHour: 1, OnDemandAsOf: "2026-01-21", Source: "test"}))
	p := diurnalService(t)
	s := *p.View()
	s.Hourly = &cluster.Hourly{IdleThreshold: s.Hourly.IdleThreshold, Workloads: append([]cluster.WorkloadHours(nil), s.Hourly.Workloads...)}
	s.Hourly.Workloads[0].Server = cluster.ServerTriton
	s.Pods = append([]cluster.Pod(nil), s.Pods...)
	for i := range s.Pods {
		s.Pods[i].GPUs = append([]cluster.Holding(nil), s.Pods[i].GPUs...)
		s.Pods[i].GPUs[0].FramebufferMiB = gauge(6 * 1024)
	}
	s.Nodes = append([]cluster.Node(nil), s.Nodes...)
	for i := range 4 {
		s.Nodes = append(s.Nodes, node(fmt.Sprintf("cheap%d", i), cheap, 1, "H100-80GB", 8, 64))
	}
	l, err := Build(Input{Snapshot: prepareTest(t, &s), Prices: prices}, options(LeverQuantize))
	if err != nil {
		t.Fatal(err)
	}
	own, err := prices.Price(nodeprice.Spec(&s.Nodes[0]))
	if err != nil {
		t.Fatal(err)
	}
	var reason string
	for _, nc := range l.NotCounted {
		if nc.Lever == LeverQuantize {
			reason = nc.Reason
		}
	}
	// frees at most GPUs × (1 − slice share) × $/GPU-h × 730: the slice is
	// in the reason ("(14% of the GPU)"); find it by trying the bound.
	found := false
	for _, frac := range []float64{1.0 / 7, 2.0 / 7, 3.0 / 7, 4.0 / 7} {
		if strings.Contains(reason, "frees at most "+CentsOf(4*(1-frac)*own.GPUUSDPerHour*HoursPerMonth).String()+"/month") {
			found = true
		}
	}
	if !found {
		t.Errorf("quantize reason %q: want the bound at the service's own $%.2f/GPU-h", reason, own.GPUUSDPerHour)
	}
}
