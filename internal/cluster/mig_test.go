package cluster_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/gpuwise/gpuwise/internal/cluster"
)

func TestParseMIGProfile(t *testing.T) {
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
			c, m, ok := cluster.ParseMIGProfile(tt.profile, tt.model, tt.totalGB)
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
