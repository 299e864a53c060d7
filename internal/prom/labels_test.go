package prom

import (
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/gpuwise/gpuwise/internal/cluster"
	"github.com/gpuwise/gpuwise/internal/pricing"
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
	got := objectLabels(map[string]string{
		"node": "n1", "label_team": "search", "label_node_kubernetes_io_instance_type": "p5.48xlarge",
		"label_nvidia_com_gpu_product": "NVIDIA-H100-80GB-HBM3", "label_custom_thing": "x", "label_empty": "",
	})
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
}

func TestUnitID(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		labels map[string]string
		want   string
	}{
		{map[string]string{"gpu": "3"}, "n1/gpu3"},
		{map[string]string{"gpu": "0", "GPU_I_PROFILE": "3g.40gb", "GPU_I_ID": "1"}, "n1/gpu0/mig-3g.40gb-1"},
		{map[string]string{"gpu": "2", "vgpu": "3"}, "n1/gpu2/ts-3"},
	} {
		if got := unitID("n1", atoi(tt.labels["gpu"]), tt.labels); got != tt.want {
			t.Errorf("unitID(%v) = %q, want %q", tt.labels, got, tt.want)
		}
	}
}

// TestCPUCounterRates checks that counter points become rates over the
// time since the previous point, that a drop counts as a reset, and that
// points before the span only seed.
func TestCPUCounterRates(t *testing.T) {
	t.Parallel()
	b := &builder{ctrs: &ctrUsage{ctrs: map[string]*ctrSeries{}}}
	batch := b.newCPUBatch(300)
	add := batch.Series(map[string]string{"namespace": "ns", "pod": "p", "container": "c"})
	for _, p := range [][2]float64{{0, 100}, {300, 400}, {600, 700}, {900, 150}, {1500, 750}} {
		add(p[0], p[1])
	}
	batch.Commit()
	got := b.ctrs.ctrs["ns/p/c"]
	want := usage.Gauge{}
	want.Add(1, 300)   // 300 s over 300 s
	want.Add(1, 300)   // again
	want.Add(0.5, 300) // reset: 150 s since the reset
	want.Add(1, 600)   // a gap of one step: 600 s over 600 s
	if got.resets != 1 || got.cpu.Seconds != want.Seconds || got.cpu.Integral != want.Integral || got.cpu.Samples != want.Samples {
		t.Errorf("cpu %+v resets %d; want %+v and 1 reset", got.cpu, got.resets, want)
	}
}

// TestDecodeLabelSetOf checks the inline label reading against the
// general one: short and long (two-byte length) values, an empty value
// left out as Prometheus leaves it out, fields in the other order, and
// the keep filter.
func TestDecodeLabelSetOf(t *testing.T) {
	long := strings.Repeat("x", 300)
	pair := func(name, value string) []byte {
		var p []byte
		p = appendBytesField(p, 1, []byte(name))
		if value != "" {
			p = appendBytesField(p, 2, []byte(value))
		}
		return p
	}
	var b []byte
	b = appendBytesField(b, 1, pair("Hostname", "node-1"))
	b = appendBytesField(b, 1, pair("UUID", long))
	b = appendBytesField(b, 1, pair("empty", ""))
	rev := appendBytesField(appendBytesField(nil, 2, []byte("p-0")), 1, []byte("pod")) // value first
	b = appendBytesField(b, 1, rev)
	b = appendBytesField(b, 1, pair(long, "v"))
	want := labelSet{{"Hostname", "node-1"}, {"UUID", long}, {"empty", ""}, {"pod", "p-0"}, {long, "v"}}
	c := labelCache{strs: interned{}}
	for range 2 { // the second time from the previous series' strings
		got, err := decodeLabelSetOf(b, &c, nil)
		if err != nil || !slices.Equal(got, want) {
			t.Fatalf("got %q, %v; want %q", got, err, want)
		}
	}
	keep := func(n []byte) bool { return string(n) == "pod" || string(n) == "UUID" }
	got, err := decodeLabelSetOf(b, &c, keep)
	if want := (labelSet{{"UUID", long}, {"pod", "p-0"}}); err != nil || !slices.Equal(got, want) {
		t.Fatalf("with keep: got %q, %v; want %q", got, err, want)
	}
}
