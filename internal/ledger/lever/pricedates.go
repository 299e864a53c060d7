package lever

import (
	"slices"
	"strings"

	"github.com/gpuwise/gpuwise/internal/cluster"
	"github.com/gpuwise/gpuwise/internal/nodeprice"
	"github.com/gpuwise/gpuwise/internal/pricing"
)

// priceDate says where one price came from and how old it is, for the
// confidence reasons that compare prices: "catalog as of 2026-01-21",
// "bill, charges up to 2026-11-07", "override".
func priceDate(p pricing.NodePrice) string {
	switch {
	case p.Origin == pricing.OriginBill:
		return "bill, charges up to " + p.AsOf
	case p.AsOf != "":
		return "catalog as of " + p.AsOf
	case p.Origin != "":
		return p.Origin
	}
	return "unpriced"
}

// priceDates lists the distinct sources and dates of the prices of the
// snapshot's GPU nodes that keep selects, as the lever's pricer gives
// them: "catalog as of 2026-01-21; bill, charges up to 2026-11-07".
func priceDates(env *Env, keep func(*cluster.Node) bool) string {
	var out []string
	for i := range env.Snapshot.Nodes() {
		n := &env.Snapshot.Nodes()[i]
		if !n.HasGPUs() || !keep(n) {
			continue
		}
		p, err := env.Prices.Price(nodeprice.Spec(n))
		if err != nil {
			continue
		}
		if d := priceDate(p); !slices.Contains(out, d) {
			out = append(out, d)
		}
	}
	slices.Sort(out)
	return strings.Join(out, "; ")
}

// targetPriceDates lists the sources and dates of the prices of the GPU
// nodes an action targets: its nodes, its pools' nodes, the nodes its
// workloads' pods run on at the window's end.
func targetPriceDates(env *Env, m *Model, targets []Target) string {
	nodes, pools, workloads := map[string]bool{}, map[string]bool{}, map[string]bool{}
	for _, t := range targets {
		switch t.Kind {
		case "node":
			nodes[t.Name] = true
		case "pool":
			pools[t.Name] = true
		case "workload":
			workloads[t.Name] = true
		}
	}
	for i := range m.Nodes {
		if pools[m.Nodes[i].Pool] {
			nodes[m.Nodes[i].Name] = true
		}
	}
	if len(workloads) > 0 {
		s := env.Snapshot
		for i := range s.Pods() {
			if p := &s.Pods()[i]; p.Node != "" && workloads[p.WorkloadKey()] {
				nodes[p.Node] = true
			}
		}
	}
	return priceDates(env, func(n *cluster.Node) bool { return nodes[n.Name] })
}

// DatePrices names in a money action's confidence the sources and dates
// of the node prices its saving is counted at; the levers that compare
// prices (spot, commitments) name the prices they compare themselves.
func (a *Action) DatePrices() {
	if a.priceDates == "" || a.Lever == LeverSpot || a.Lever == LeverCommit {
		return
	}
	a.ConfidenceReason += "; counted at the nodes' prices (" + a.priceDates + ")"
}
