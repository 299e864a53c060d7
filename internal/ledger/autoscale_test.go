package ledger

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/gpuwise/gpuwise/internal/cluster"
	"github.com/gpuwise/gpuwise/internal/cluster/clustertest"
	"github.com/gpuwise/gpuwise/internal/ledger/lever"
)

// batchBurst: two 4-GPU A100 nodes ($10/h, $7,300/month each); a
// training job holds a1 all week, a second one holds a2's four GPUs for
// the first 42 h and ends. At the window's end a2 is empty, so
// consolidation alone removes it ($7,300) though the week's peak (8 GPUs)
// needed it. With the autoscale lever, consolidation keeps a2 for the peak
// and the node pool runs it 42 h a week plus the 10 minutes it waits
// empty before going: (42 + 1/6) × 730 ÷ 168 = 183.22 h, $1,832.24 a month;
// the lever saves $7,300 − $1,832.24 = $5,467.76.
func batchBurst(t *testing.T) *cluster.Prepared {
	t.Helper()
	w := clustertest.Window(weekHours)
	nodes := []cluster.Node{node("a1", a100x4, 4, "A100-80GB", 32, 256), node("a2", a100x4, 4, "A100-80GB", 32, 256)}
	var pods []cluster.Pod
	for g := range 4 {
		pods = append(pods, clustertest.Pod("train", fmt.Sprintf("long-%d", g)).Owner("Job", "long").On("a1").Requests(1000, 8).
			Holds(fmt.Sprintf("a1/gpu%d", g), 0.9, weekHours*3600).Obj())
		pods = append(pods, clustertest.Pod("train", fmt.Sprintf("burst-%d", g)).Owner("Job", "burst").On("a2").Requests(1000, 8).
			Life(w.Start, w.Start.Add(42*time.Hour)).Holds(fmt.Sprintf("a2/gpu%d", g), 0.9, 42*3600).Obj())
	}
	for i := range pods {
		if pods[i].Owner.Name == "burst" {
			pods[i].Phase = "Succeeded"
		}
	}
	return prepareTest(t, &cluster.Snapshot{Window: w, Source: "fixture", Nodes: nodes, Pods: pods})
}

func TestAutoscaleKeepsThePeakAndScalesTheTrough(t *testing.T) {
	t.Parallel()
	s := batchBurst(t)
	alone := build(t, s, options(LeverConsolidate))
	if got := alone.Saving(); got != CentsOf(7300) {
		t.Errorf("consolidation alone saves %s, want $7,300.00 (a2 removed for good)", got)
	}
	l := build(t, s, options(LeverConsolidate, LeverAutoscale))
	want := CentsOf(7300 - 10*(42+1.0/6)*HoursPerMonth/weekHours)
	if l.Saving() != want {
		t.Errorf("consolidate + autoscale save %s, want %s", l.Saving(), want)
	}
	byLever := map[string]Cents{}
	for _, lr := range l.Levers {
		byLever[lr.Name] = lr.Saving()
	}
	if byLever[LeverConsolidate] != 0 || byLever[LeverAutoscale] != want {
		t.Errorf("levers %v: want consolidation $0 (a2 kept for the peak) and autoscale %s", byLever, want)
	}
	if len(l.Actions) != 1 || l.Actions[0].Kind != lever.KindScaleNodes || l.Actions[0].Confidence != High {
		t.Errorf("actions %+v, want one high-confidence scale-nodes action", l.Actions)
	}
}

// diurnalService: a Deployment of four replicas, one whole H100 each
// ($4/h, one node apiece), busy by day: per day 12 h need 1 replica at a
// 65% target, 6 h need 3 and 6 h need 4 (package capacity's fixture). The
// pods run all week, so the node pool alone frees nothing; autoscaling the
// service frees per day 12 h of two nodes and 18 h of the fourth, less
// the start-up and consolidateAfter of the four changes (1/6 h each per
// node): nodes 2 and 3 run 12⅓ h a day, node 4 6⅓ h. 287 node-hours a
// week, × 730 ÷ 168 × $4 = $4,988.33 a month.
func diurnalService(t *testing.T) *cluster.Prepared {
	t.Helper()
	var nodes []cluster.Node
	var pods []cluster.Pod
	for r := range 4 {
		n := fmt.Sprintf("h%d", r+1)
		nodes = append(nodes, node(n, h100x1, 1, "H100-80GB", 8, 64))
		pods = append(pods, clustertest.Pod("inference", fmt.Sprintf("asr-%d", r)).Owner("Deployment", "asr").On(n).Requests(1000, 8).
			Holds(n+"/gpu0", 0.4, weekHours*3600).Obj())
	}
	wh := cluster.WorkloadHours{Workload: "inference/Deployment/asr"}
	for h := range weekHours {
		load := 0.5
		switch hd := h % 24; {
		case hd >= 12 && hd < 18:
			load = 2.6
		case hd >= 8 && hd < 20:
			load = 1.5
		}
		wh.Pods, wh.GPUHeld, wh.GPUMeasured = append(wh.Pods, 4), append(wh.GPUHeld, 4), append(wh.GPUMeasured, 4)
		wh.GPUActive, wh.GPUIdle = append(wh.GPUActive, float32(load)), append(wh.GPUIdle, 0)
	}
	s := &cluster.Snapshot{Window: clustertest.Window(weekHours), Source: "fixture", Nodes: nodes, Pods: pods,
		Hourly: &cluster.Hourly{IdleThreshold: cluster.DefaultIdleThreshold, Workloads: []cluster.WorkloadHours{wh}}}
	return prepareTest(t, s)
}

func TestAutoscaleDiurnalService(t *testing.T) {
	t.Parallel()
	o := options(LeverAutoscale)
	o.Autoscale.Stabilization, o.Autoscale.Startup = 0, 0
	l := build(t, diurnalService(t), o)
	want := CentsOf(287.0 * HoursPerMonth / weekHours * 4)
	if l.Saving() != want {
		t.Errorf("autoscale saves %s, want %s", l.Saving(), want)
	}
	if len(l.Actions) != 2 {
		t.Fatalf("%d actions, want the node pool (a prerequisite) and the service", len(l.Actions))
	}
	pool, svc := l.Actions[0], l.Actions[1]
	if pool.Kind != lever.KindScaleNodes || pool.Saving() != 0 || svc.Kind != lever.KindAutoscale || svc.Saving() != want {
		t.Errorf("actions %s %s and %s %s; want scale-nodes $0 then autoscale-workloads %s", pool.Kind, pool.Saving(), svc.Kind, svc.Saving(), want)
	}
	if len(svc.Prerequisites) != 1 || svc.Prerequisites[0] != pool.ID || len(svc.Items) != 1 {
		t.Errorf("service action needs %v with %d items; want %s and one item", svc.Prerequisites, len(svc.Items), pool.ID)
	}
	ev := map[string]float64{}
	for _, e := range svc.Items[0].Evidence {
		ev[e.Name] = e.Value
	}
	if ev["trough_replicas"] != 1 || ev["peak_replicas"] != 4 {
		t.Errorf("evidence %v: want trough 1 and peak 4 replicas", ev)
	}
}

// Stabilization and start-up cost node-hours: the default policy saves
// less than the zero-delay one, and more than nothing.
func TestAutoscaleDelaysCost(t *testing.T) {
	t.Parallel()
	s := diurnalService(t)
	zero := options(LeverAutoscale)
	zero.Autoscale.Stabilization, zero.Autoscale.Startup = 0, 0
	fast, slow := build(t, s, zero), build(t, s, options(LeverAutoscale))
	if !(slow.Saving() > 0 && slow.Saving() < fast.Saving()) {
		t.Errorf("default delays save %s, zero delays %s: want 0 < default < zero", slow.Saving(), fast.Saving())
	}
}

func TestAutoscalePolicyRefused(t *testing.T) {
	t.Parallel()
	o := DefaultOptions()
	o.Autoscale.TargetActivity = 0
	if _, err := Build(Input{Snapshot: diurnalService(t), Prices: testPrices()}, o); err == nil || !strings.Contains(err.Error(), "autoscaling.targetActivity") {
		t.Errorf("Build with target activity 0: %v, want the field named", err)
	}
}
