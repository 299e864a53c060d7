package pricing

import "sort"

// Offers returns the catalog rows for one cloud and region (names as
// Lookup takes them), sorted by instance type: what a node there could be
// replaced with. Overrides are not applied here; price a row with
// OfferSpec and Price to get the caller's negotiated price.
func (c *Catalog) Offers(cloud, region string) []Entry {
	if c.loadErr != nil {
		return nil
	}
	k := c.key(cloud, region, "")
	var out []Entry
	for ek, e := range c.entries {
		if ek.cloud == k.cloud && ek.region == k.region {
			out = append(out, e)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].InstanceType < out[j].InstanceType })
	return out
}

// OfferSpec describes a catalog row as a node of the given capacity type,
// so that Price prices it exactly as it would price such a node (overrides
// first, then the row). Fractional-GPU rows give GPUCount 0.
func OfferSpec(e Entry, capacity CapacityType) NodeSpec {
	return NodeSpec{
		Name:         e.InstanceType,
		Cloud:        e.Cloud,
		Region:       e.Region,
		InstanceType: e.InstanceType,
		Capacity:     capacity,
		GPUModel:     e.GPUModel,
		GPUCount:     int(e.GPUCount),
		CPUCores:     float64(e.VCPUs),
		MemoryGiB:    e.MemoryGiB,
	}
}

// GPUInstanceType says whether any catalog row of the cloud names the
// instance type with GPUs (in any region): how a bill line is told to be
// GPU capacity.
func (c *Catalog) GPUInstanceType(cloud, instanceType string) bool {
	cloud, it := normalizeName(cloud), normalizeName(instanceType)
	for k, e := range c.entries {
		if k.cloud == cloud && k.instanceType == it && e.GPUCount > 0 {
			return true
		}
	}
	return false
}
