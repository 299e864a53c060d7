package kube

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/gpuwise/gpuwise/internal/cluster"
)

func TestConvertNodeMetadata(t *testing.T) {
	t.Parallel()
	type meta struct{ Cloud, Region, Zone, Instance, Capacity string }
	tests := []struct {
		name       string
		providerID string
		labels     map[string]string
		want       meta
	}{
		{"EKS spot via managed node group", "aws:///us-east-1a/i-0abc", map[string]string{
			labelRegion: "us-east-1", labelZone: "us-east-1a", labelInstance: "p5.48xlarge", labelEKSCap: "SPOT"},
			meta{"aws", "us-east-1", "us-east-1a", "p5.48xlarge", cluster.Spot}},
		{"Karpenter on-demand", "aws:///us-west-2b/i-1", map[string]string{
			labelRegion: "us-west-2", labelInstance: "g6.xlarge", labelKarpenterCap: "on-demand"},
			meta{"aws", "us-west-2", "", "g6.xlarge", cluster.OnDemand}},
		{"AKS spot scale set", "azure:///subscriptions/x/vm/0", map[string]string{
			labelRegion: "eastus", labelInstance: "Standard_NC24ads_A100_v4", labelAzurePrio: "spot"},
			meta{"azure", "eastus", "", "Standard_NC24ads_A100_v4", cluster.Spot}},
		{"GKE spot", "gce://proj/us-central1-a/n1", map[string]string{
			labelRegion: "us-central1", labelInstance: "a3-highgpu-8g", labelGKESpot: "true"},
			meta{"gcp", "us-central1", "", "a3-highgpu-8g", cluster.Spot}},
		{"GKE preemptible, beta labels", "gce://proj/z/n2", map[string]string{
			labelRegionBeta: "europe-west4", labelInstanceBeta: "g2-standard-4", labelGKEPreempt: "true"},
			meta{"gcp", "europe-west4", "", "g2-standard-4", cluster.Spot}},
		{"on-prem: nothing known", "", map[string]string{}, meta{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			n := node("n1", tt.labels, "cpu", "8", "memory", "32Gi")
			n.Spec.ProviderID = tt.providerID
			got, _, _ := convertNode(n)
			if diff := cmp.Diff(tt.want, meta{got.Cloud, got.Region, got.Zone, got.InstanceType, got.Capacity}); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

// gpuShape is what a test asserts about a node's GPUs: per GPU its
// sharing and unit IDs, plus the pools and the notes.
type gpuShape struct {
	Model    string
	Strategy string
	GPUs     []string
	Units    [][]string
	Pools    map[string][]string
	Notes    []string
}

func shapeOf(n cluster.Node, pools map[string][]string, notes []string) gpuShape {
	s := gpuShape{Model: n.GPUModel, Strategy: n.MIGStrategy, Pools: pools, Notes: notes}
	for _, g := range n.GPUs {
		s.GPUs = append(s.GPUs, string(g.Sharing))
		var ids []string
		for _, u := range g.Units {
			ids = append(ids, u.ID)
		}
		s.Units = append(s.Units, ids)
	}
	return s
}

func TestConvertNodeGPUs(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		labels map[string]string
		res    []string
		ann    map[string]string
		want   gpuShape
	}{
		{
			name:   "two exclusive H100s",
			labels: map[string]string{lblProduct: "NVIDIA-H100-80GB-HBM3", lblMemory: "81559", lblCount: "2"},
			res:    []string{"nvidia.com/gpu", "2"},
			want: gpuShape{Model: "H100-80GB", GPUs: []string{"exclusive", "exclusive"},
				Units: [][]string{{"n/gpu0"}, {"n/gpu1"}},
				Pools: map[string][]string{"nvidia.com/gpu": {"n/gpu0", "n/gpu1"}}},
		},
		{
			name: "time-sliced L4, not renamed",
			labels: map[string]string{lblProduct: "NVIDIA-L4-SHARED", lblMemory: "23034", lblCount: "1",
				lblReplicas: "4", lblSharing: "time-slicing"},
			res: []string{"nvidia.com/gpu", "4"},
			want: gpuShape{Model: "L4", GPUs: []string{"time-slicing"},
				Units: [][]string{{"n/gpu0/ts-0", "n/gpu0/ts-1", "n/gpu0/ts-2", "n/gpu0/ts-3"}},
				Pools: map[string][]string{"nvidia.com/gpu": {"n/gpu0/ts-0", "n/gpu0/ts-1", "n/gpu0/ts-2", "n/gpu0/ts-3"}}},
		},
		{
			name:   "renamed shared resource, replicas from count",
			labels: map[string]string{lblProduct: "NVIDIA-L4", lblCount: "2", lblSharing: "time-slicing"},
			res:    []string{"nvidia.com/gpu.shared", "4"},
			want: gpuShape{Model: "L4", GPUs: []string{"time-slicing", "time-slicing"},
				Units: [][]string{{"n/gpu0/ts-0", "n/gpu0/ts-1"}, {"n/gpu1/ts-0", "n/gpu1/ts-1"}},
				Pools: map[string][]string{"nvidia.com/gpu.shared": {"n/gpu0/ts-0", "n/gpu0/ts-1", "n/gpu1/ts-0", "n/gpu1/ts-1"}}},
		},
		{
			name:   "mixed MIG on A100-80GB plus one whole GPU",
			labels: map[string]string{lblProduct: "NVIDIA-A100-SXM4-80GB", lblMemory: "81920", lblStrategy: "mixed"},
			res:    []string{"nvidia.com/gpu", "1", "nvidia.com/mig-3g.40gb", "2", "nvidia.com/mig-1g.10gb", "3"},
			want: gpuShape{Model: "A100-80GB", Strategy: "mixed", GPUs: []string{"exclusive", "mig", "mig"},
				Units: [][]string{{"n/gpu0"}, {"n/gpu1/3g.40gb-0", "n/gpu1/3g.40gb-1"}, {"n/gpu2/1g.10gb-0", "n/gpu2/1g.10gb-1", "n/gpu2/1g.10gb-2"}},
				Pools: map[string][]string{
					"nvidia.com/gpu":         {"n/gpu0"},
					"nvidia.com/mig-3g.40gb": {"n/gpu1/3g.40gb-0", "n/gpu1/3g.40gb-1"},
					"nvidia.com/mig-1g.10gb": {"n/gpu2/1g.10gb-0", "n/gpu2/1g.10gb-1", "n/gpu2/1g.10gb-2"}}},
		},
		{
			name:   "MIG single: 14 1g devices on two GPUs",
			labels: map[string]string{lblProduct: "NVIDIA-A100-SXM4-40GB-MIG-1g.5gb", lblMemory: "4864", lblStrategy: "single"},
			res:    []string{"nvidia.com/gpu", "8"},
			want: gpuShape{Model: "A100-40GB", Strategy: "single", GPUs: []string{"mig", "mig"},
				Units: [][]string{
					{"n/gpu0/1g.5gb-0", "n/gpu0/1g.5gb-1", "n/gpu0/1g.5gb-2", "n/gpu0/1g.5gb-3", "n/gpu0/1g.5gb-4", "n/gpu0/1g.5gb-5", "n/gpu0/1g.5gb-6"},
					{"n/gpu1/1g.5gb-0"}},
				Pools: map[string][]string{"nvidia.com/gpu": {"n/gpu0/1g.5gb-0", "n/gpu0/1g.5gb-1", "n/gpu0/1g.5gb-2",
					"n/gpu0/1g.5gb-3", "n/gpu0/1g.5gb-4", "n/gpu0/1g.5gb-5", "n/gpu0/1g.5gb-6", "n/gpu1/1g.5gb-0"}}},
		},
		{
			name:   "MIG single invalid layout",
			labels: map[string]string{lblProduct: "NVIDIA-A100-SXM4-40GB-MIG-INVALID", lblStrategy: "single"},
			res:    []string{"nvidia.com/gpu", "2"},
			want: gpuShape{Model: "A100-40GB", Strategy: "single", Pools: map[string][]string{},
				Notes: []string{`node n: MIG single strategy with product "NVIDIA-A100-SXM4-40GB-MIG-INVALID" (invalid or mixed layout); 2 devices not modelled`}},
		},
		{
			name:   "HAMi vGPUs on two physical GPUs",
			labels: map[string]string{lblProduct: "NVIDIA-A10", lblCount: "2", "gpu": "on"},
			ann:    map[string]string{annHAMi: "GPU-1,10,24576,100,NVIDIA-A10,0,true:"},
			res:    []string{"nvidia.com/gpu", "4"},
			// A pod's vGPUs land on distinct GPUs: the pool alternates them.
			want: gpuShape{Model: "A10", GPUs: []string{"hami", "hami"},
				Units: [][]string{{"n/gpu0/ts-0", "n/gpu0/ts-1"}, {"n/gpu1/ts-0", "n/gpu1/ts-1"}},
				Pools: map[string][]string{"nvidia.com/gpu": {"n/gpu0/ts-0", "n/gpu1/ts-0", "n/gpu0/ts-1", "n/gpu1/ts-1"}}},
		},
		{
			name:   "garbage labels and resources are notes, not panics",
			labels: map[string]string{lblCount: "lots", lblMemory: "-3", lblReplicas: "x", lblSharing: "time-slicing"},
			res:    []string{"nvidia.com/gpu", "500m", "nvidia.com/mig-huge", "1"},
			want: gpuShape{Strategy: "mixed", Pools: map[string][]string{}, Notes: []string{
				`node n: resource nvidia.com/gpu has invalid quantity "500m"; ignored`,
				`node n: label nvidia.com/gpu.memory="-3" is not a count; ignored`,
				"node n: no nvidia.com/gpu.product label (is GPU feature discovery running?); GPU model unknown, pricing by instance type only",
				`node n: label nvidia.com/gpu.replicas="x" is not a count; ignored`,
				`node n: resource nvidia.com/mig-huge is not a MIG profile gpuwise understands; ignored`,
			}},
		},
		{
			name:   "labels without resources",
			labels: map[string]string{lblProduct: "NVIDIA-L4", lblCount: "1"},
			want: gpuShape{Pools: map[string][]string{}, Notes: []string{
				"node n: GPU feature discovery labels 1 GPUs (nvidia.com/gpu.count) but the node advertises no nvidia.com resource; is the device plugin running?"}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			n := node("n", tt.labels, append([]string{"cpu", "8", "memory", "64Gi"}, tt.res...)...)
			n.Annotations = tt.ann
			got, pools, notes := convertNode(n)
			if diff := cmp.Diff(tt.want, shapeOf(got, pools, notes), cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
			for i := range got.GPUs {
				if err := got.GPUs[i].Normalize(); err != nil {
					t.Errorf("GPU %d does not normalize: %v", i, err)
				}
			}
		})
	}
}

// Allocatable CPU, memory and pods are what pods may get; the planner
// needs the pod count (the scheduler's "Too many pods").
func TestConvertNodeAllocatable(t *testing.T) {
	t.Parallel()
	n := node("n1", map[string]string{}, "cpu", "7910m", "memory", "30Gi", "pods", "29")
	got, _, _ := convertNode(n)
	want := [3]int64{7910, 30 << 30, 29}
	if diff := cmp.Diff(want, [3]int64{got.CPUMilli, got.MemoryBytes, int64(got.Pods)}); diff != "" {
		t.Errorf("CPU, memory, pods (-want +got):\n%s", diff)
	}
}
