package nodeprice

import (
	"sync"

	"github.com/gpuwise/gpuwise/internal/cluster"
	"github.com/gpuwise/gpuwise/internal/pricing"
)

// Spec converts a node to what the price catalog needs.
func Spec(n *cluster.Node) pricing.NodeSpec {
	return pricing.NodeSpec{
		Name: n.Name, Cloud: n.Cloud, Region: n.Region, InstanceType: n.InstanceType,
		Capacity: pricing.CapacityType(n.Capacity), Labels: n.Labels, GPUModel: n.GPUModel,
		GPUCount: len(n.GPUs), CPUCores: n.CPUCores(), MemoryGiB: n.MemoryGiB(),
	}
}

// Memo prices the nodes of one snapshot, each node (by name) once. It is a
// pricing.Pricer itself (specs it does not remember: catalog offers,
// what-if nodes), so one Memo can be handed to every engine of a use case.
// Safe for concurrent use.
type Memo struct {
	prices pricing.Pricer
	mu     sync.Mutex
	seen   map[string]answer
}

type answer struct {
	price pricing.NodePrice
	err   error
}

// New returns a Memo over p; when p already is a *Memo it is returned, so
// engines wrap whatever they are given without losing a shared memo.
func New(p pricing.Pricer) *Memo {
	if m, ok := p.(*Memo); ok {
		return m
	}
	return &Memo{prices: p, seen: map[string]answer{}}
}

// Node returns n's price; an error (the catalog's, naming the node and what
// to add) means unpriced.
func (m *Memo) Node(n *cluster.Node) (pricing.NodePrice, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if a, ok := m.seen[n.Name]; ok {
		return a.price, a.err
	}
	p, err := m.prices.Price(Spec(n))
	m.seen[n.Name] = answer{p, err}
	return p, err
}

// Price prices a spec without remembering it.
func (m *Memo) Price(s pricing.NodeSpec) (pricing.NodePrice, error) { return m.prices.Price(s) }
