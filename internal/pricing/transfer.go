package pricing

import (
	"sort"
	"strings"
)

// Inter-region data transfer list prices, USD per GB, for moving a
// workload's data (datasets, checkpoints, model weights) to another
// region of the same cloud. Public list prices as of 2026 (docs/pricing.md
// names the sources); they change, so a user who moves much data should
// check them. Only moves within one geography are priced: a move to another
// continent is not a like-for-like region change and has no rate here.
var transferUSDPerGB = map[string]map[string]float64{
	// AWS: data transfer out to another AWS region, $0.02/GB from US and
	// EU regions (us-east-1 to us-east-2 is $0.01; the higher figure is
	// used); Asia Pacific and the other geographies charge up to $0.09.
	"aws": {"us": 0.02, "ca": 0.02, "eu": 0.02, "*": 0.09},
	// GCP: inter-region within North America or Europe $0.02/GB; within
	// Asia and elsewhere up to $0.08.
	"gcp": {"us": 0.02, "northamerica": 0.02, "europe": 0.02, "*": 0.08},
	// Azure: inter-region within North America or Europe $0.02/GB; within
	// Asia and elsewhere up to $0.08.
	"azure": {"us": 0.02, "canada": 0.02, "europe": 0.02, "france": 0.02, "germany": 0.02,
		"united": 0.02, "norway": 0.02, "sweden": 0.02, "switzerland": 0.02, "*": 0.08},
}

// TransferUSDPerGB is the list price per GB of moving data from one region
// of a cloud to another of the same geography; false when the cloud has
// no rate here or the regions are in different geographies.
func TransferUSDPerGB(cloud, from, to string) (float64, bool) {
	rates := transferUSDPerGB[normalizeName(cloud)]
	gf, gt := Geo(cloud, from), Geo(cloud, to)
	if rates == nil || gf == "" || gf != gt {
		return 0, false
	}
	if r, ok := rates[gf]; ok {
		return r, true
	}
	return rates["*"], true
}

// europeAzure are Azure slug prefixes in Europe, one geography with
// "europe-west".
var europeAzure = map[string]bool{"europe": true, "france": true, "germany": true, "united": true,
	"norway": true, "sweden": true, "switzerland": true}

// Geo is a region's geography: its name's first word ("us", "eu",
// "europe", "asia"); Azure's European countries are "europe"; government
// regions are their own ("us-gov", "usgov"). Empty for no region.
func Geo(cloud, region string) string {
	r := normalizeName(region)
	if r == "" {
		return ""
	}
	if strings.HasPrefix(r, "us-gov") || strings.HasPrefix(r, "usgov") {
		return "usgov"
	}
	g, _, _ := strings.Cut(r, "-")
	if normalizeName(cloud) == "azure" && europeAzure[g] {
		return "europe"
	}
	return g
}

// Zonal reports whether an AWS region name is a Local Zone or Wavelength
// zone ("us-east-1-atl-1"), not a region a node pool moves to.
func Zonal(cloud, region string) bool {
	return normalizeName(cloud) == "aws" && strings.Count(region, "-") > 2
}

// RegionOffers returns the catalog rows of one instance type in every
// region of a cloud, sorted by region. Price a row with OfferSpec and
// Price to get the caller's negotiated price.
func (c *Catalog) RegionOffers(cloud, instanceType string) []Entry {
	if c.loadErr != nil {
		return nil
	}
	k := c.key(cloud, "", instanceType)
	var out []Entry
	for ek, e := range c.entries {
		if ek.cloud == k.cloud && ek.instanceType == k.instanceType {
			out = append(out, e)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Region < out[j].Region })
	return out
}

// CanonicalRegion is the catalog's name for a node's region (Azure ARM
// names become the catalog's slugs).
func (c *Catalog) CanonicalRegion(cloud, region string) string {
	return c.regionIx.canonical(cloud, region)
}
