package kube

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestModelName(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, product string
		memMiB        int64
		want          string
	}{
		{"H100 SXM with memory in the name", "NVIDIA-H100-80GB-HBM3", 81559, "H100-80GB"},
		{"A100 SXM4 80GB", "NVIDIA-A100-SXM4-80GB", 81920, "A100-80GB"},
		{"A100 40GB from the memory label", "NVIDIA-A100-SXM4", 40960, "A100-40GB"},
		{"H200 snapped to 141GB", "NVIDIA-H200", 143771, "H200-141GB"},
		{"L4 has one size", "NVIDIA-L4", 23034, "L4"},
		{"Tesla prefix", "Tesla-T4", 15360, "T4"},
		{"shared suffix dropped", "NVIDIA-L4-SHARED", 23034, "L4"},
		{"MIG single product", "NVIDIA-A100-SXM4-40GB-MIG-1g.5gb", 4864, "A100-40GB"},
		{"RTX PRO", "NVIDIA-RTX-PRO-6000-Blackwell-Server-Edition", 97887, "RTX-PRO-6000"},
		{"empty", "", 0, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, _ := modelName(tt.product, tt.memMiB)
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("modelName(%q, %d) (-want +got):\n%s", tt.product, tt.memMiB, diff)
			}
		})
	}
}

func TestParseProfile(t *testing.T) {
	t.Parallel()
	type slices struct {
		Compute, Memory int
		OK              bool
	}
	tests := []struct {
		name, profile, model string
		totalGB              float64
		want                 slices
	}{
		{"1g on 80GB", "1g.10gb", "A100-80GB", 80, slices{1, 1, true}},
		{"double-memory 1g", "1g.20gb", "H100-80GB", 80, slices{1, 2, true}},
		{"3g takes half the memory", "3g.40gb", "A100-80GB", 80, slices{3, 4, true}},
		{"7g whole", "7g.80gb", "A100-80GB", 80, slices{7, 8, true}},
		{"media extension", "1g.10gb.me", "A100-80GB", 80, slices{1, 1, true}},
		{"H200 3g", "3g.71gb", "H200-141GB", 141, slices{3, 4, true}},
		{"A30 geometry", "2g.12gb", "A30", 24, slices{2, 2, true}},
		{"unknown memory uses standard shapes", "3g.20gb", "", 0, slices{3, 4, true}},
		{"garbage", "big.slice", "A100-80GB", 80, slices{}},
		{"more compute than the GPU has", "9g.90gb", "A100-80GB", 80, slices{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, m, ok := parseProfile(tt.profile, tt.model, tt.totalGB)
			got := slices{c, m, ok}
			if !ok {
				got = slices{}
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("parseProfile(%q) (-want +got):\n%s", tt.profile, diff)
			}
		})
	}
}
