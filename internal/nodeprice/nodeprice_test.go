package nodeprice

import (
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/gpuwise/gpuwise/internal/cluster"
	"github.com/gpuwise/gpuwise/internal/pricing"
)

// countingPricer prices every node at $1/h except "onprem", and counts
// lookups.
type countingPricer struct{ calls map[string]int }

func (c *countingPricer) Price(s pricing.NodeSpec) (pricing.NodePrice, error) {
	c.calls[s.Name]++
	if s.Name == "onprem" {
		return pricing.NodePrice{}, errors.New("node onprem: no price")
	}
	return pricing.NodePrice{NodeUSDPerHour: 1}, nil
}

func TestMemoLooksUpEachNodeOnce(t *testing.T) {
	t.Parallel()
	c := &countingPricer{calls: map[string]int{}}
	m := New(c)
	a, b := &cluster.Node{Name: "a"}, &cluster.Node{Name: "onprem"}
	for range 3 {
		if p, err := m.Node(a); err != nil || p.NodeUSDPerHour != 1 {
			t.Fatalf("Node(a) = %v, %v", p, err)
		}
		if _, err := m.Node(b); err == nil {
			t.Fatal("Node(onprem): no error, want unpriced")
		}
	}
	if diff := cmp.Diff(map[string]int{"a": 1, "onprem": 1}, c.calls); diff != "" {
		t.Errorf("lookups (-want +got):\n%s", diff)
	}
	if New(m) != m {
		t.Error("New(memo) wrapped the memo again: engines would not share it")
	}
}

func TestSpec(t *testing.T) {
	t.Parallel()
	n := &cluster.Node{Name: "g", Cloud: "aws", Region: "us-east-1", InstanceType: "p5.48xlarge", Capacity: cluster.Spot,
		GPUModel: "H100-80GB", CPUMilli: 192000, MemoryBytes: 2048 << 30, GPUs: make([]cluster.GPU, 8)}
	want := pricing.NodeSpec{Name: "g", Cloud: "aws", Region: "us-east-1", InstanceType: "p5.48xlarge", Capacity: pricing.Spot,
		GPUModel: "H100-80GB", GPUCount: 8, CPUCores: 192, MemoryGiB: 2048}
	if diff := cmp.Diff(want, Spec(n)); diff != "" {
		t.Errorf("Spec (-want +got):\n%s", diff)
	}
}
