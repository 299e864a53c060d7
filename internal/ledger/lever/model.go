package lever

import (
	"cmp"
	"math"
	"slices"

	"github.com/gpuwise/gpuwise/internal/capacity"
	"github.com/gpuwise/gpuwise/internal/cluster"

	"github.com/gpuwise/gpuwise/internal/packing"
	"github.com/gpuwise/gpuwise/internal/pricing"
	"github.com/gpuwise/gpuwise/internal/rightsize"
)

// HoursPerMonth is the run-rate month (365 × 24 / 12), as the cost report
// uses it.
const HoursPerMonth = pricing.HoursPerMonth

// Node is one GPU node of the modelled cluster: what it costs an hour and
// for how many hours a month it runs. Levers change these fields (a node
// removed, fewer hours under autoscaling, a cheaper rate on spot or under a
// commitment); the model's cost follows from them alone.
type Node struct {
	Name     string `json:"name"`
	Pool     string `json:"pool"`
	GPUModel string `json:"gpu_model"`
	Capacity string `json:"capacity_type"`
	GPUs     int    `json:"gpus"`
	// USDPerHour is the node's price from the same pricer the cost engine
	// uses; Priced is false when there is none (the node then carries no
	// dollars, never $0).
	USDPerHour float64 `json:"usd_per_hour"`
	Priced     bool    `json:"priced"`
	// Hours is node-hours per month: HoursPerMonth for a node that runs
	// all month.
	Hours float64 `json:"hours_per_month"`
	Kept  bool    `json:"kept"`
}

// monthly is the node's run-rate in dollars (0 when removed or unpriced).
func (n *Node) monthly() float64 {
	if !n.Kept || !n.Priced {
		return 0
	}
	return n.USDPerHour * n.Hours
}

// WorkloadChange is a change a lever made to what a workload asks for —
// right-sized CPU and memory requests, a new GPU shape — with the key of
// the action that made it. Such changes cost nothing by themselves; a
// later lever (consolidation) turns them into nodes that go away.
type WorkloadChange struct {
	// Action is the key of this workload's part of the action (its item),
	// Group the key of the action itself.
	Action     string                   `json:"action"`
	Group      string                   `json:"group"`
	Lever      string                   `json:"lever"`
	Workload   string                   `json:"workload"`
	Containers []rightsize.ContainerRec `json:"-"`
	GPU        *rightsize.GPURec        `json:"-"`
}

// Model is the modelled cluster: the GPU nodes alive at the window's end,
// each at its monthly run-rate, and the workload changes the levers so far
// have made. Its cost is the money; every lever transforms it.
type Model struct {
	Nodes   []Node
	Changes []WorkloadChange
	// Plan is the consolidation plan the kept nodes come from; nil until a
	// consolidation lever ran. Later levers (autoscaling, capacity mix)
	// read where workloads run from it.
	Plan *packing.Plan
	// Commitment is a Savings Plan or reservation on the on-demand nodes
	// (the commitments lever); nil until it ran.
	Commitment *Commitment
	// Freed is the GPUs per window hour that scaled services and reclaimed
	// notebooks no longer hold, per GPU model: the later of the two
	// levers adds to what the earlier freed.
	Freed map[string][]float64
	index map[string]int
}

// setFreed records the GPUs freed per hour on a model.
func (m *Model) setFreed(model string, freed []float64) {
	if m.Freed == nil {
		m.Freed = map[string][]float64{}
	}
	m.Freed[model] = append([]float64(nil), freed...)
}

// Commitment commits LevelUSDPerHour of on-demand-equivalent use at a
// discount: Cost takes off what it saves on the model's on-demand curve.
type Commitment struct {
	LevelUSDPerHour float64 `json:"level_usd_per_hour"`
	Discount        float64 `json:"discount"`
	Term            string  `json:"term"`
}

// newModel builds the model of a packing problem's nodes, each kept and
// running all month.
func newModel(nodes []Node) *Model {
	m := &Model{Nodes: nodes, index: make(map[string]int, len(nodes))}
	for i := range m.Nodes {
		m.Nodes[i].Kept, m.Nodes[i].Hours = true, HoursPerMonth
		m.index[m.Nodes[i].Name] = i
	}
	return m
}

// Cost is the model's monthly run-rate over priced kept nodes, rounded
// once to the cent. Summing in node order keeps it deterministic.
func (m *Model) Cost() Cents {
	var usd float64
	for i := range m.Nodes {
		usd += m.Nodes[i].monthly()
	}
	if c := m.Commitment; c != nil {
		usd -= capacity.Saving(m.OnDemandCurve(), c.LevelUSDPerHour, c.Discount) * HoursPerMonth
	}
	return CentsOf(usd)
}

// OnDemandCurve is the hourly on-demand use of the priced kept nodes over
// a month: nodes that run fewer hours are taken to run inside the hours
// of those that run more (as an autoscaler adds and removes them), so at
// a share x of the month the use is the sum of the rates of the nodes that
// run more than x of it.
func (m *Model) OnDemandCurve() []capacity.Use {
	type nr struct{ share, rate float64 }
	var ns []nr
	for i := range m.Nodes {
		if n := &m.Nodes[i]; n.Kept && n.Priced && n.Capacity != cluster.Spot && n.Capacity != cluster.Reserved && n.Hours > 0 {
			ns = append(ns, nr{math.Min(n.Hours/HoursPerMonth, 1), n.USDPerHour})
		}
	}
	slices.SortFunc(ns, func(a, b nr) int { return cmp.Compare(b.share, a.share) })
	var out []capacity.Use
	rate := 0.0
	for i, n := range ns {
		rate += n.rate
		next := 0.0
		if i+1 < len(ns) {
			next = ns[i+1].share
		}
		if n.share > next {
			out = append(out, capacity.Use{Share: n.share - next, USDPerHour: rate})
		}
	}
	return out
}

// Node returns the named node, or nil.
func (m *Model) Node(name string) *Node {
	if i, ok := m.index[name]; ok {
		return &m.Nodes[i]
	}
	return nil
}

// Kept counts the kept nodes and their GPUs, and the kept nodes without a
// price.
func (m *Model) Kept() (nodes, gpus, unpriced int) {
	for i := range m.Nodes {
		if n := &m.Nodes[i]; n.Kept {
			nodes, gpus = nodes+1, gpus+n.GPUs
			if !n.Priced {
				unpriced++
			}
		}
	}
	return nodes, gpus, unpriced
}

// keepOnly keeps exactly the named nodes (a consolidation plan's).
func (m *Model) keepOnly(keep map[string]bool) {
	for i := range m.Nodes {
		m.Nodes[i].Kept = keep[m.Nodes[i].Name]
	}
}

// clone copies the model so that a lever can look without touching it.
func (m *Model) clone() *Model {
	c := *m
	c.Nodes = append([]Node(nil), m.Nodes...)
	c.Changes = append([]WorkloadChange(nil), m.Changes...)
	c.Freed = make(map[string][]float64, len(m.Freed))
	for k, v := range m.Freed {
		c.Freed[k] = v
	}
	if m.Commitment != nil {
		cm := *m.Commitment
		c.Commitment = &cm
	}
	return &c
}

// costOf prices a set of kept node names the way Cost prices the model.
func (m *Model) costOf(keep map[string]bool) Cents {
	var usd float64
	for i := range m.Nodes {
		n := m.Nodes[i]
		n.Kept = keep[n.Name]
		usd += n.monthly()
	}
	return CentsOf(usd)
}

// round2 rounds a float for evidence.
func round2(v float64) float64 { return math.Round(v*100) / 100 }
