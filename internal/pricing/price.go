package pricing

import (
	"fmt"
	"math"
	"strings"
)

// Price prices a node: by the first override rule that matches it, else by
// the catalog row for its cloud, region and instance type. When nothing
// prices it, the error is an *UnpricedError saying what to add.
func (c *Catalog) Price(n NodeSpec) (NodePrice, error) {
	if reason := badSpec(n); reason != "" {
		return NodePrice{}, &UnpricedError{Node: n.Name, Reason: reason}
	}
	if c.loadErr != nil {
		return NodePrice{}, &UnpricedError{Node: n.Name, Reason: c.loadErr.Error()}
	}
	if r := c.overrides.match(n, c.regionIx); r != nil {
		return c.priceByRule(n, r)
	}
	p, reason := c.catalogPrice(n)
	if reason != "" {
		return NodePrice{}, &UnpricedError{Node: n.Name, Reason: reason}
	}
	return p, nil
}

// badSpec rejects capacities that would make a price meaningless.
func badSpec(n NodeSpec) string {
	for _, v := range []float64{float64(n.GPUCount), n.CPUCores, n.MemoryGiB} {
		if !(v >= 0) || math.IsInf(v, 0) {
			return fmt.Sprintf("node reports an invalid capacity (gpus %d, cores %v, memory %v GiB)",
				n.GPUCount, n.CPUCores, n.MemoryGiB)
		}
	}
	return ""
}

func (c *Catalog) priceByRule(n NodeSpec, r *rule) (NodePrice, error) {
	var p NodePrice
	switch {
	case r.nodeUSD != nil:
		p = splitPrice(*r.nodeUSD, *r.nodeUSD, n)
	case r.gpuUSD != nil:
		p = componentPrice(*r.gpuUSD, orDefault(r.cpuUSD, RefCPUUSDPerCoreHour),
			orDefault(r.memUSD, RefMemoryUSDPerGiBHour), n)
	default:
		return c.discounted(n, r)
	}
	p.Source, p.Origin = r.describe(), OriginOverride
	return p, nil
}

func orDefault(v *float64, def float64) float64 {
	if v == nil {
		return def
	}
	return *v
}

// discounted applies a rule's discount to the node's catalog price.
func (c *Catalog) discounted(n NodeSpec, r *rule) (NodePrice, error) {
	p, reason := c.catalogPrice(n)
	if reason != "" {
		return NodePrice{}, &UnpricedError{Node: n.Name, Reason: r.describe() + " gives a discount, but " + reason}
	}
	keep := 1 - *r.discount
	p.NodeUSDPerHour *= keep
	p.GPUUSDPerHour *= keep
	p.CPUUSDPerCoreHour *= keep
	p.MemoryUSDPerGiBHour *= keep
	p.Source += fmt.Sprintf("; %.4g%% discount by %s", *r.discount*100, r.describe())
	p.Origin = OriginDiscount
	return p, nil
}

// catalogPrice prices a node by its catalog row and capacity type, or
// says why it cannot.
func (c *Catalog) catalogPrice(n NodeSpec) (NodePrice, string) {
	e, ok := c.Lookup(n.Cloud, n.Region, n.InstanceType)
	if !ok {
		return NodePrice{}, c.missingReason(n)
	}
	price, asOf, kind, note := chooseCapacity(e, n.Capacity)
	p := splitPrice(price, e.OnDemandUSDPerHour, n)
	p.AsOf, p.Origin = asOf, OriginCatalog
	p.Source = fmt.Sprintf("catalog %s %s %s %s (as of %s)%s", e.Cloud, e.Region, e.InstanceType, kind, asOf, note)
	return p, ""
}

// chooseCapacity picks the row's price for a capacity type, the price's
// date and kind, and a note when it is not the price asked for.
func chooseCapacity(e Entry, c CapacityType) (price float64, asOf, kind, note string) {
	switch effectiveCapacity(c) {
	case OnDemand:
		if c == UnknownCapacity {
			note = "; capacity type unknown; on-demand used"
		}
	case Spot:
		if e.SpotUSDPerHour > 0 {
			return e.SpotUSDPerHour, e.SpotAsOf, string(Spot), ""
		}
		note = "; spot price unknown; on-demand used"
	case Reserved:
		note = "; reserved capacity priced at on-demand (commitments are not modelled)"
	default:
		note = fmt.Sprintf("; capacity type %q unknown; on-demand used", c)
	}
	return e.OnDemandUSDPerHour, e.OnDemandAsOf, string(OnDemand), note
}

// missingReason says why the catalog has no row for a node and what to do.
func (c *Catalog) missingReason(n NodeSpec) string {
	const fix = "see docs/pricing.md"
	cloud, it := normalizeName(n.Cloud), strings.TrimSpace(n.InstanceType)
	switch {
	case it == "" && n.GPUModel != "":
		return fmt.Sprintf("no instance type and no override matches; add an override for gpuModel %s "+
			"or for a node label, %s", n.GPUModel, fix)
	case it == "":
		return "no instance type, GPU model or matching override; add an override for a node label, " + fix
	case cloud == "" || !c.hasCloud(cloud):
		return fmt.Sprintf("the catalog has no prices for cloud %q (it covers %s); add an override for "+
			"instance type %s, %s", n.Cloud, strings.Join(c.clouds, ", "), it, fix)
	}
	if k := c.key(cloud, n.Region, it); c.regions[k.cloud+"/"+k.instanceType] > 0 {
		return fmt.Sprintf("no catalog price for %s %s in region %q (the catalog prices it in %d other "+
			"regions); check the node's region or add an override for instance type %s, %s",
			cloud, it, n.Region, c.regions[k.cloud+"/"+k.instanceType], it, fix)
	}
	return fmt.Sprintf("no catalog price for %s instance type %s in region %q; add an override for "+
		"instance type %s, %s", cloud, it, n.Region, it, fix)
}

func (c *Catalog) hasCloud(cloud string) bool {
	for _, have := range c.clouds {
		if have == cloud {
			return true
		}
	}
	return false
}
