package lever

import (
	"cmp"
	"fmt"
	"slices"

	"github.com/gpuwise/gpuwise/internal/capacity"
	"github.com/gpuwise/gpuwise/internal/cluster"
	"github.com/gpuwise/gpuwise/internal/pricing"
)

// regionLever moves an on-demand GPU node pool to the cheapest other
// region of the same cloud and geography that offers its instance type
// (docs/capacity.md). The monthly saving is the price difference times
// the pool's node-hours left by the levers before; the one-time cost is
// the data the move takes (policy) times the cloud's inter-region $/GB.
// It counts the move only when that pays back within the policy's limit;
// otherwise, or without a data size, the candidate is not counted, with
// the numbers. Spot nodes are not moved: their price follows the market.
type regionLever struct{}

func (regionLever) Name() string { return LeverRegion }

const keyRegion = LeverRegion + ":" + KindRegion + ":"

// regionPrices is what the lever needs from the price source besides
// node prices: the catalog's rows of an instance type in every region.
// *pricing.Catalog has it.
type regionPrices interface {
	RegionOffers(cloud, instanceType string) []pricing.Entry
	CanonicalRegion(cloud, region string) string
}

// regionPool is the model's nodes of one pool, cloud, region and
// instance type, and the cheapest region found for them.
type regionPool struct {
	pool, cloud, region, instanceType string
	nodes                             []*Node
	to                                string
	toUSD, perGB, saving              float64
	toDate                            string // the other region's price source and date
}

func (regionLever) Propose(m *Model, env *Env) (Proposal, error) {
	var prop Proposal
	rp, ok := env.Prices.(regionPrices)
	if !ok {
		prop.Notes = append(prop.Notes, "region: the price source cannot list other regions' prices; no region move is weighed")
		return prop, nil
	}
	for _, p := range regionPools(m, env.Snapshot, rp) {
		if !cheapestRegion(&p, env.Prices, rp) {
			continue
		}
		c, nc := regionOutcome(p, env.Region)
		if nc != nil {
			prop.NotCounted = append(prop.NotCounted, *nc)
			continue
		}
		prop.Changes = append(prop.Changes, c)
	}
	return prop, nil
}

// regionPools groups the model's kept, priced, non-spot GPU nodes by
// pool, cloud, region and instance type, in a stable order.
func regionPools(m *Model, s *cluster.Prepared, rp regionPrices) []regionPool {
	nodes := map[string]*cluster.Node{}
	for i := range s.Nodes() {
		nodes[s.Nodes()[i].Name] = &s.Nodes()[i]
	}
	byKey := map[string]*regionPool{}
	var keys []string
	for i := range m.Nodes {
		n := &m.Nodes[i]
		cn := nodes[n.Name]
		if !n.Kept || !n.Priced || n.Capacity == cluster.Spot || cn == nil || cn.Cloud == "" || cn.Region == "" || cn.InstanceType == "" {
			continue
		}
		region := rp.CanonicalRegion(cn.Cloud, cn.Region)
		k := n.Pool + "/" + cn.Cloud + "/" + region + "/" + cn.InstanceType
		if byKey[k] == nil {
			byKey[k] = &regionPool{pool: n.Pool, cloud: cn.Cloud, region: region, instanceType: cn.InstanceType}
			keys = append(keys, k)
		}
		byKey[k].nodes = append(byKey[k].nodes, n)
	}
	slices.Sort(keys)
	out := make([]regionPool, 0, len(keys))
	for _, k := range keys {
		out = append(out, *byKey[k])
	}
	return out
}

// cheapestRegion finds the other region of the pool's cloud and geography
// with the lowest on-demand price for its instance type that saves money
// on every node (the saving sums each node's own difference); false when
// there is none. Ties go to the region that sorts first.
func cheapestRegion(p *regionPool, prices Prices, rp regionPrices) bool {
	for _, e := range rp.RegionOffers(p.cloud, p.instanceType) {
		perGB, ok := pricing.TransferUSDPerGB(p.cloud, p.region, e.Region)
		if e.Region == p.region || !ok || pricing.Zonal(p.cloud, e.Region) {
			continue
		}
		np, err := prices.Price(pricing.OfferSpec(e, pricing.OnDemand))
		if err != nil || (p.to != "" && np.NodeUSDPerHour >= p.toUSD) || !cheaperOnAll(p.nodes, np.NodeUSDPerHour) {
			continue
		}
		p.to, p.toUSD, p.perGB, p.toDate = e.Region, np.NodeUSDPerHour, perGB, priceDate(np)
	}
	if p.to == "" {
		return false
	}
	for _, n := range p.nodes {
		p.saving += (n.USDPerHour - p.toUSD) * n.Hours
	}
	return p.saving > 0
}

// cheaperOnAll: the price is at least a cent an hour below every node's
// (a price that differs only in rounding is the same price).
func cheaperOnAll(ns []*Node, usd float64) bool {
	return !slices.ContainsFunc(ns, func(n *Node) bool { return CentsOf(usd) >= CentsOf(n.USDPerHour) })
}

// regionOutcome counts a move whose transfer pays back within the
// policy's limit; anything else is not counted, with the numbers.
func regionOutcome(p regionPool, pol capacity.RegionPolicy) (Change, *NotCounted) {
	target := p.pool + " (" + p.region + ")"
	cheaper := fmt.Sprintf("%s is $%.2f/h in %s, %s/month less for %d node(s)", p.instanceType, p.toUSD, p.to, CentsOf(p.saving), len(p.nodes))
	if pol.DataGB <= 0 {
		return Change{}, &NotCounted{Lever: LeverRegion, Target: target,
			Reason: fmt.Sprintf("%s; give the data the move takes (--region-data-gb) to weigh its transfer at $%.2f/GB", cheaper, p.perGB)}
	}
	be := capacity.Breakeven(p.saving, pol.DataGB, p.perGB)
	if be.PaybackMonths > pol.MaxPaybackMonths {
		return Change{}, &NotCounted{Lever: LeverRegion, Target: target,
			Reason: fmt.Sprintf("usually not worth it: %s, but moving %g GB at $%.2f/GB costs %s once and pays back in %.1f months (limit %g)",
				cheaper, pol.DataGB, p.perGB, CentsOf(be.OneTimeUSD), be.PaybackMonths, pol.MaxPaybackMonths)}
	}
	return regionChange(p, target, be, pol), nil
}

// regionChange moves the pool's nodes to the other region's price.
func regionChange(p regionPool, target string, be capacity.RegionMove, pol capacity.RegionPolicy) Change {
	slices.SortFunc(p.nodes, func(a, b *Node) int { return cmp.Compare(a.Name, b.Name) })
	var names []string
	var from float64
	for _, n := range p.nodes {
		names, from = append(names, n.Name), from+n.USDPerHour
	}
	a := Action{Key: keyRegion + p.pool + "/" + p.region + "/" + p.instanceType, Kind: KindRegion, Target: target,
		Targets: append([]Target{{Kind: "pool", Name: p.pool}}, nodeTargets(names)...),
		Title:   fmt.Sprintf("Move GPU pool %s (%d × %s) from %s to %s", p.pool, len(p.nodes), p.instanceType, p.region, p.to),
		Why: fmt.Sprintf("%s; moving %g GB of data at $%.2f/GB costs %s once and pays back in %.1f months (limit %g)",
			fmt.Sprintf("%s is $%.2f/h in %s against $%.2f/h a node here", p.instanceType, p.toUSD, p.to, from/float64(len(p.nodes))),
			pol.DataGB, p.perGB, CentsOf(be.OneTimeUSD), be.PaybackMonths, pol.MaxPaybackMonths),
		EffortHours: effortAction + effortRegion,
		Evidence: []Evidence{
			{Name: "nodes", Value: float64(len(p.nodes)), Unit: "nodes"},
			{Name: "from_usd_per_hour", Value: round2(from), Unit: "USD/hour"},
			{Name: "to_usd_per_hour", Value: round2(p.toUSD * float64(len(p.nodes))), Unit: "USD/hour"},
			{Name: "data_gb", Value: pol.DataGB, Unit: "GB"},
			{Name: "transfer_usd_per_gb", Value: p.perGB, Unit: "USD/GB"},
			{Name: "one_time_transfer_usd", Value: round2(be.OneTimeUSD), Unit: "USD"},
			{Name: "transfer_payback_months", Value: round2(be.PaybackMonths), Unit: "months"},
		},
		Artefacts: []Artefact{},
	}
	a.Confidence, a.ConfidenceReason = Medium, "catalog list prices in both regions ("+p.to+": "+p.toDate+") and a list $/GB for the transfer (docs/pricing.md); capacity and quota for the instance type in "+p.to+" are not checked"
	a.Risk, a.RiskReason = Medium, "latency to users and data, data residency and quotas change with the region; the one-time transfer is not in the monthly saving"
	to, nodes := p.toUSD, names
	return Change{Action: a, Apply: func(m *Model) {
		for _, name := range nodes {
			if mn := m.Node(name); mn != nil {
				mn.USDPerHour = to
			}
		}
	}}
}
