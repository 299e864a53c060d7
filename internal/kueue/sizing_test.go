package kueue

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/gpuwise/gpuwise/internal/cluster"
	"github.com/gpuwise/gpuwise/internal/cluster/clustertest"
	"github.com/gpuwise/gpuwise/internal/quota"
)

func sizeOptions() SizeOptions {
	return SizeOptions{Quota: quota.DefaultOptions([]string{"kube-system"}), BatchNamespaces: []string{"batch"}, Cohort: "gpuwise-batch"}
}

// sizingSnapshot: one A100 node (labelled by GFD) and a 10-hour window.
// Team a runs two Jobs of one GPU each, [0, 5h) and [0, 2h); team b one
// of two GPUs, [5h, 10h); a Deployment in "batch" runs on a second,
// unlabelled L4 node [0, 10h); a service in "serving" is not batch work.
func sizingSnapshot(t *testing.T) *cluster.Prepared {
	gpuPod := func(ns, name, kind, node, unit string, from, to float64, gpus int) cluster.Pod {
		b := clustertest.Pod(ns, name).Owner(kind, name).On(node).Requests(1000, 4).Life(clustertest.At(from), clustertest.At(to))
		for range gpus {
			b = b.Holds(unit, 0.5, (to-from)*3600)
			unit += "x" // distinct unit ids below
		}
		return b.Obj()
	}
	a100 := clustertest.Node("a100-0").Resources(96, 1024).GPUs(4, "A100-80GB").Label(ProductLabel, "NVIDIA-A100-SXM4-80GB").Obj()
	l4 := clustertest.Node("l4-0").Resources(32, 128).GPUs(1, "L4").Obj()
	pods := []cluster.Pod{
		gpuPod("a", "j1", "Job", "a100-0", "a100-0/gpu0", 0, 5, 1),
		gpuPod("a", "j2", "Job", "a100-0", "a100-0/gpu1", 0, 2, 1),
		gpuPod("b", "k", "Job", "a100-0", "a100-0/gpu2", 5, 10, 1),
		gpuPod("batch", "worker", "Deployment", "l4-0", "l4-0/gpu0", 0, 10, 1),
		gpuPod("serving", "api", "Deployment", "a100-0", "a100-0/gpu3", 0, 10, 1),
	}
	// b/k asks two GPUs (the second unit is not modelled on the node: the
	// sizing reads requests, as ResourceQuota counts them).
	pods[2].Containers[0].GPURequests["nvidia.com/gpu"] = 2
	pods[2].GPUs = pods[2].GPUs[:1]
	return clustertest.Prepare(t, &cluster.Snapshot{Window: clustertest.Window(10), Nodes: []cluster.Node{a100, l4}, Pods: pods})
}

// TestSizeHandComputed, time-weighted over 10 h at p95 + 20%:
//
//	a on a100, GPUs: 2 units 2 h, 1 unit 3 h, 0 for 5 h -> p95 2, peak 2,
//	  nominal ceil(2 × 1.2) = 3; p50 0 (idle half the window): lends all 3
//	b on a100, GPUs: 2 units 5 h, 0 for 5 h -> p95 2, peak 2, nominal 3,
//	  p50 0: lends 3
//	the cohort on a100: 2 for 2 h, 1 for 3 h, 2 for 5 h -> p95 2, peak 2,
//	  nominal 3: each may borrow 3 - 3 = 0; separate peaks 2 + 2 = 4
//	  against a combined peak of 2: pooling frees 2 GPUs
//	a's CPU: 2000m for 2 h, 1000m for 3 h -> p95 2000m, nominal 2400m
//	batch on l4 (its node has no product label: named after the model)
func TestSizeHandComputed(t *testing.T) {
	t.Parallel()
	got, err := Size(sizingSnapshot(t), sizeOptions())
	if err != nil {
		t.Fatal(err)
	}
	wantFlavors := []Flavor{
		{Name: "l4", GPUModel: "L4", Resources: []string{"cpu", "memory", "nvidia.com/gpu"}},
		{Name: "nvidia-a100-sxm4-80gb", GPUModel: "A100-80GB", NodeLabels: map[string]string{ProductLabel: "NVIDIA-A100-SXM4-80GB"}, Resources: []string{"cpu", "memory", "nvidia.com/gpu"}},
	}
	if diff := cmp.Diff(wantFlavors, got.Flavors); diff != "" {
		t.Errorf("flavors (-want +got):\n%s", diff)
	}
	gpu := func(team string) TeamQuota {
		for _, tm := range got.Teams {
			for _, q := range tm.Quotas {
				if tm.Namespace == team && q.Flavor == "nvidia-a100-sxm4-80gb" && q.Resource == "nvidia.com/gpu" {
					return q
				}
			}
		}
		t.Fatalf("no a100 GPU quota for team %s in %+v", team, got.Teams)
		return TeamQuota{}
	}
	for team, want := range map[string]TeamQuota{
		"a": {Flavor: "nvidia-a100-sxm4-80gb", Resource: "nvidia.com/gpu", Percentile: 2, Peak: 2, Nominal: 3, LendingLimit: 3},
		"b": {Flavor: "nvidia-a100-sxm4-80gb", Resource: "nvidia.com/gpu", Percentile: 2, Peak: 2, Nominal: 3, LendingLimit: 3},
	} {
		if diff := cmp.Diff(want, gpu(team)); diff != "" {
			t.Errorf("team %s (-want +got):\n%s", team, diff)
		}
	}
	var teams []string
	for _, tm := range got.Teams {
		teams = append(teams, tm.Namespace)
	}
	if !cmp.Equal(teams, []string{"a", "b", "batch"}) {
		t.Errorf("teams %v, want a, b and batch (serving is no batch work)", teams)
	}
	cpu := got.Teams[0].Quotas[0]
	if cpu.Resource != "cpu" || cpu.Flavor != "l4" || cpu.Nominal != 0 {
		t.Errorf("team a's first quota %+v, want l4 cpu 0 (it never ran there)", cpu)
	}
	if q := got.Teams[0].Quotas[3]; q.Resource != "cpu" || q.Percentile != 2000 || q.Nominal != 2400 {
		t.Errorf("team a's a100 cpu %+v, want p95 2000m, nominal 2400m", q)
	}
	wantPools := []Pool{
		{Flavor: "l4", Resource: "nvidia.com/gpu", SeparatePeaks: 1, CombinedPeak: 1, SeparateNominal: 2, CombinedNominal: 2},
		{Flavor: "nvidia-a100-sxm4-80gb", Resource: "nvidia.com/gpu", SeparatePeaks: 4, CombinedPeak: 2, FreedUnits: 2, SeparateNominal: 6, CombinedNominal: 3},
	}
	if diff := cmp.Diff(wantPools, got.Pools); diff != "" {
		t.Errorf("pools (-want +got):\n%s", diff)
	}
	if got.FreedGPUs() != 2 {
		t.Errorf("freed %d GPUs, want 2", got.FreedGPUs())
	}
	if len(got.Notes) != 1 {
		t.Errorf("notes %q, want one naming the unlabelled l4 flavor", got.Notes)
	}
}

func TestSizeOptionsValidate(t *testing.T) {
	t.Parallel()
	o := sizeOptions()
	o.Cohort, o.Quota.Percentile = "", 2
	if err := o.Validate(); err == nil {
		t.Fatal("an empty cohort and a percentile of 2 pass")
	}
}
