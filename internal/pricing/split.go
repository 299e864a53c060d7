package pricing

// Reference rates for the non-GPU part of a node: OpenCost's published
// default prices. See the package documentation for how they split a price.
const (
	RefCPUUSDPerCoreHour   = 0.031611
	RefMemoryUSDPerGiBHour = 0.004237
)

// maxNonGPUShare caps the CPU and memory part of a GPU node's price, so the
// GPUs carry at least half of it.
const maxNonGPUShare = 0.5

// shares are the fractions of a node's price that go to its GPUs, CPU and
// memory; they sum to 1 unless the node has no capacity at all.
type shares struct{ gpu, cpu, mem float64 }

// splitShares computes the split of an on-demand (reference) price for a
// node with the given capacity.
func splitShares(refPrice float64, n NodeSpec) shares {
	cpu := n.CPUCores * RefCPUUSDPerCoreHour
	mem := n.MemoryGiB * RefMemoryUSDPerGiBHour
	nonGPU := cpu + mem
	switch {
	case refPrice <= 0 || (n.GPUCount <= 0 && nonGPU <= 0):
		return shares{}
	case n.GPUCount <= 0:
		return shares{cpu: cpu / nonGPU, mem: mem / nonGPU}
	case nonGPU <= 0:
		return shares{gpu: 1}
	}
	if limit := maxNonGPUShare * refPrice; nonGPU > limit {
		cpu, mem = cpu*limit/nonGPU, mem*limit/nonGPU
	}
	s := shares{cpu: cpu / refPrice, mem: mem / refPrice}
	s.gpu = 1 - s.cpu - s.mem
	return s
}

// apply turns shares into per-unit rates for a node costing price per hour.
func (s shares) apply(price float64, n NodeSpec) NodePrice {
	p := NodePrice{NodeUSDPerHour: price}
	if n.GPUCount > 0 {
		p.GPUUSDPerHour = s.gpu * price / float64(n.GPUCount)
	}
	if n.CPUCores > 0 {
		p.CPUUSDPerCoreHour = s.cpu * price / n.CPUCores
	}
	if n.MemoryGiB > 0 {
		p.MemoryUSDPerGiBHour = s.mem * price / n.MemoryGiB
	}
	return p
}

// splitPrice prices a node at price per hour, split by the fractions of its
// reference (on-demand) price.
func splitPrice(price, refPrice float64, n NodeSpec) NodePrice {
	return splitShares(refPrice, n).apply(price, n)
}

// componentPrice prices a node from per-unit rates; the node price is
// their sum, so the split is exact by construction.
func componentPrice(gpu, cpu, mem float64, n NodeSpec) NodePrice {
	return NodePrice{
		NodeUSDPerHour:      gpu*float64(n.GPUCount) + cpu*n.CPUCores + mem*n.MemoryGiB,
		GPUUSDPerHour:       gpu,
		CPUUSDPerCoreHour:   cpu,
		MemoryUSDPerGiBHour: mem,
	}
}

// SplitPrice prices a node at price per hour split by its own reference
// fractions: for a price that comes from outside the catalog (a bill's
// effective rate) when no catalog price is there to reuse.
func SplitPrice(price float64, n NodeSpec) NodePrice { return splitPrice(price, price, n) }

// Rescale is p at another node price, keeping p's split fractions.
func Rescale(p NodePrice, price float64) NodePrice {
	if p.NodeUSDPerHour <= 0 {
		return NodePrice{NodeUSDPerHour: price}
	}
	f := price / p.NodeUSDPerHour
	return NodePrice{NodeUSDPerHour: price, GPUUSDPerHour: p.GPUUSDPerHour * f,
		CPUUSDPerCoreHour: p.CPUUSDPerCoreHour * f, MemoryUSDPerGiBHour: p.MemoryUSDPerGiBHour * f}
}
