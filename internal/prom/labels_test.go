package prom

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/gpuwise/gpuwise/internal/cluster"
	"github.com/gpuwise/gpuwise/internal/pricing"
	"github.com/gpuwise/gpuwise/internal/prom/wire"
	"github.com/gpuwise/gpuwise/internal/usage"
)

func TestResourceName(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"nvidia_com_gpu":         "nvidia.com/gpu",
		"nvidia_com_gpu_shared":  "nvidia.com/gpu.shared",
		"nvidia_com_mig_3g_40gb": "nvidia.com/mig-3g.40gb",
		"nvidia_com_mig_1g_10gb": "nvidia.com/mig-1g.10gb",
		"nvidia.com/gpu":         "nvidia.com/gpu",
		"cpu":                    "cpu",
	} {
		if got := resourceName(in); got != want {
			t.Errorf("resourceName(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestObjectLabels(t *testing.T) {
	t.Parallel()
	got := objectLabels(labels("node", "n1", "label_team", "search", "label_node_kubernetes_io_instance_type", "p5.48xlarge",
		"label_nvidia_com_gpu_product", "NVIDIA-H100-80GB-HBM3", "label_custom_thing", "x", "label_empty", ""))
	want := map[string]string{
		"team": "search", "node.kubernetes.io/instance-type": "p5.48xlarge",
		"nvidia.com/gpu.product": "NVIDIA-H100-80GB-HBM3", "custom_thing": "x",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

func TestNodeFacts(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, product string
		memMiB        int
		want          string
	}{
		{"H100 SXM", "NVIDIA-H100-80GB-HBM3", 81559, "H100-80GB"},
		{"A100 40GB", "NVIDIA-A100-SXM4-40GB", 40960, "A100-40GB"},
		{"A100 PCIe 80GB", "NVIDIA-A100-80GB-PCIe", 81920, "A100-80GB"},
		{"L4", "NVIDIA-L4", 23034, "L4"},
	}
	for _, tt := range tests {
		if got, _ := pricing.ModelFromProduct(tt.product, int64(tt.memMiB)); got != tt.want {
			t.Errorf("%s: ModelFromProduct = %q, want %q", tt.name, got, tt.want)
		}
	}
	for prof, want := range map[string][2]int{"1g.10gb": {1, 1}, "3g.40gb": {3, 4}, "7g.80gb": {7, 8}, "1g.20gb": {1, 2}} {
		c, m, _ := cluster.ParseMIGProfile(prof, "A100-80GB", 80)
		if c != want[0] || m != want[1] {
			t.Errorf("ParseMIGProfile(%q) = %d, %d; want %v", prof, c, m, want)
		}
	}
	if got := cloudOf("aws:///us-east-1a/i-0abc"); got != "aws" {
		t.Errorf("cloudOf = %q", got)
	}
	n := &cluster.Node{Name: "n", Labels: map[string]string{"nvidia.com/gpu.count": "999999999", "nvidia.com/gpu.replicas": "999999"}}
	if gpus := buildGPUs(n, nil, nil); len(gpus) != maxGPUs || len(gpus[0].Units) != maxReplicas {
		t.Errorf("absurd GPU count and replicas: %d GPUs, %d units; want them bounded", len(gpus), len(gpus[0].Units))
	}
}

func TestUnitID(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		labels wire.Labels
		want   string
	}{
		{labels("gpu", "3"), "n1/gpu3"},
		{labels("gpu", "0", "GPU_I_PROFILE", "3g.40gb", "GPU_I_ID", "1"), "n1/gpu0/mig-3g.40gb-1"},
		{labels("gpu", "2", "vgpu", "3"), "n1/gpu2/ts-3"},
	} {
		if got := string(appendUnitID(nil, "n1", atoi(tt.labels.Get("gpu")), tt.labels)); got != tt.want {
			t.Errorf("unit ID of %v = %q, want %q", tt.labels, got, tt.want)
		}
	}
}

// TestCPUCounterRates checks that counter samples become rates over the
// time since the previous sample, that a drop counts as a reset, and that
// samples before the cut only seed.
func TestCPUCounterRates(t *testing.T) {
	t.Parallel()
	u := newCtrUsage()
	batch := u.cpuBatch(300)()
	sink := batch.Series(labels("namespace", "ns", "pod", "p", "container", "c")).Sink
	for _, p := range [][2]float64{{0, 100}, {300, 400}, {600, 700}, {900, 150}, {1500, 750}} {
		sink.Samples([]wire.Sample{{T: int64(p[0] * 1000), V: p[1]}})
	}
	batch.Commit()
	got := u.ctrs["ns/p/c"]
	want := usage.Gauge{}
	want.Add(1, 300)   // 300 s over 300 s
	want.Add(1, 300)   // again
	want.Add(0.5, 300) // reset: 150 s since the reset
	want.Add(1, 600)   // a gap of one step: 600 s over 600 s
	if got.resets != 1 || got.cpu.Seconds != want.Seconds || got.cpu.Integral != want.Integral || got.cpu.Samples != want.Samples {
		t.Errorf("cpu %+v resets %d; want %+v and 1 reset", got.cpu, got.resets, want)
	}
}
