package pricing

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
			got, _ := ModelFromProduct(tt.product, tt.memMiB)
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("ModelFromProduct(%q, %d) (-want +got):\n%s", tt.product, tt.memMiB, diff)
			}
		})
	}
}
