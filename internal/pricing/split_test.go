package pricing

import (
	"math"
	"math/rand/v2"
	"testing"
)

// checkSplit asserts the split invariant: the parts add up to the node
// price (1e-9 relative), no rate is negative, and on a GPU node priced by
// the catalog or a whole-node price, the GPUs carry at least half.
func checkSplit(t *testing.T, n NodeSpec, p NodePrice) {
	t.Helper()
	sum := p.GPUUSDPerHour*float64(n.GPUCount) + p.CPUUSDPerCoreHour*n.CPUCores + p.MemoryUSDPerGiBHour*n.MemoryGiB
	if math.Abs(sum-p.NodeUSDPerHour) > 1e-9*math.Abs(p.NodeUSDPerHour) {
		t.Errorf("%s: parts sum to %v, node price is %v", n.Name, sum, p.NodeUSDPerHour)
	}
	if p.GPUUSDPerHour < 0 || p.CPUUSDPerCoreHour < 0 || p.MemoryUSDPerGiBHour < 0 {
		t.Errorf("%s: negative rate in %+v", n.Name, p)
	}
}

// Every embedded row, at on-demand and spot, splits exactly, with the GPUs
// carrying at least half; also when the node reports less memory than the
// instance's nominal size, as kubelet reservations make it.
func TestSplitInvariantAllRows(t *testing.T) {
	t.Parallel()
	c := Embedded()
	if len(c.entries) == 0 {
		t.Fatal("embedded catalog is empty")
	}
	for _, e := range c.entries {
		for _, capacity := range []CapacityType{OnDemand, Spot} {
			for _, memScale := range []float64{1, 0.97} {
				n := NodeSpec{
					Name: e.Cloud + "/" + e.Region + "/" + e.InstanceType, Cloud: e.Cloud, Region: e.Region,
					InstanceType: e.InstanceType, Capacity: capacity, GPUModel: e.GPUModel,
					GPUCount: int(math.Ceil(e.GPUCount)), CPUCores: float64(e.VCPUs), MemoryGiB: e.MemoryGiB * memScale,
				}
				p, err := c.Price(n)
				if err != nil {
					t.Fatalf("%s: %v", n.Name, err)
				}
				checkSplit(t, n, p)
				if p.NodeUSDPerHour <= 0 {
					t.Errorf("%s: price %v", n.Name, p.NodeUSDPerHour)
				}
				if gpu := p.GPUUSDPerHour * float64(n.GPUCount); gpu < 0.5*p.NodeUSDPerHour*(1-1e-12) {
					t.Errorf("%s: GPUs carry %v of %v", n.Name, gpu, p.NodeUSDPerHour)
				}
			}
		}
	}
}

// The split holds for arbitrary nodes and prices, not only catalog rows.
func TestSplitInvariantRandom(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(1, 2))
	for i := 0; i < 20000; i++ {
		n := NodeSpec{
			Name:      "random",
			GPUCount:  rng.IntN(17),
			CPUCores:  float64(rng.IntN(4)) * rng.Float64() * 256,
			MemoryGiB: float64(rng.IntN(4)) * rng.Float64() * 4096,
		}
		ref := rng.Float64() * 100
		price := ref * rng.Float64()
		p := splitPrice(price, ref, n)
		if n.GPUCount == 0 && n.CPUCores == 0 && n.MemoryGiB == 0 || ref == 0 {
			continue // nothing to split the price over
		}
		checkSplit(t, n, p)
	}
}

func TestSplitNoCapacity(t *testing.T) {
	t.Parallel()
	p := splitPrice(3, 3, NodeSpec{})
	if p != (NodePrice{NodeUSDPerHour: 3}) {
		t.Errorf("splitPrice with no capacity = %+v, want the node price and zero rates", p)
	}
}
