package inventory

import (
	"sort"

	"github.com/gpuwise/gpuwise/internal/pricing"
)

type groupKey struct{ model, vendor, sharing string }

// summarize groups the nodes' GPUs by model and sharing mode. A node's
// price is shared over its groups by GPU count, so the groups' prices sum
// to the priced nodes'; a node advertising no GPU is one "not advertised"
// group of the GPUs its hardware should have.
func summarize(nodes []Node) []Group {
	groups := map[groupKey]*Group{}
	for i := range nodes {
		n := &nodes[i]
		for key, part := range shares(n) {
			g := groups[key]
			if g == nil {
				g = &Group{GPUModel: key.model, Vendor: key.vendor, Sharing: key.sharing}
				groups[key] = g
			}
			g.add(n, part)
		}
	}
	out := make([]Group, 0, len(groups))
	for _, g := range groups {
		out = append(out, *g)
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].GPUModel != out[j].GPUModel {
			return out[i].GPUModel < out[j].GPUModel
		}
		if out[i].Vendor != out[j].Vendor {
			return out[i].Vendor < out[j].Vendor
		}
		return out[i].Sharing < out[j].Sharing
	})
	return out
}

// part is one node's share of a group.
type part struct {
	gpus, units, inUse int
	// fraction of the node's GPUs (and so of its price) in the group.
	fraction float64
}

// shares splits a node over its groups.
func shares(n *Node) map[groupKey]part {
	model := n.GPUModel
	if model == "" {
		model = "unknown"
	}
	out := map[groupKey]part{}
	if len(n.Layout) == 0 {
		gpus := 0
		if n.ExpectedGPUs != nil {
			gpus = *n.ExpectedGPUs
		}
		out[groupKey{model, n.Vendor, NotAdvertised}] = part{gpus: gpus, fraction: 1}
		return out
	}
	for _, l := range n.Layout {
		k := groupKey{model, n.Vendor, l.Sharing}
		p := out[k]
		p.gpus++
		p.units += l.Units
		p.inUse += l.UnitsInUse
		p.fraction += 1 / float64(len(n.Layout))
		out[k] = p
	}
	return out
}

func (g *Group) add(n *Node, p part) {
	g.Nodes++
	g.GPUs += p.gpus
	g.Units += p.units
	g.UnitsInUse += p.inUse
	if n.Price == nil {
		g.UnpricedNodes++
		return
	}
	g.USDPerHour = addUSD(g.USDPerHour, n.Price.NodeUSDPerHour*p.fraction)
}

func addUSD(sum *float64, v float64) *float64 {
	if sum == nil {
		return &v
	}
	s := *sum + v
	return &s
}

// total sums the nodes and findings into inv.Totals.
func total(inv *Inventory) {
	t := &inv.Totals
	t.Nodes, t.Findings = len(inv.Nodes), len(inv.Findings)
	for i := range inv.Nodes {
		n := &inv.Nodes[i]
		t.GPUs += n.GPUs
		t.Units += n.Units
		t.UnitsInUse += n.UnitsInUse
		if n.GPUs == 0 && n.ExpectedGPUs != nil {
			t.UnadvertisedGPUs += *n.ExpectedGPUs
		}
		if n.Price == nil {
			t.UnpricedNodes++
			continue
		}
		t.PricedNodes++
		t.USDPerHour = addUSD(t.USDPerHour, n.Price.NodeUSDPerHour)
	}
	if t.USDPerHour != nil {
		m := *t.USDPerHour * pricing.HoursPerMonth
		t.USDPerMonth = &m
	}
}
