package pricing

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestOffers(t *testing.T) {
	t.Parallel()
	c := NewCatalog([]Entry{
		{Cloud: "aws", Region: "us-east-1", InstanceType: "g6.xlarge", GPUModel: "L4", GPUCount: 1, VCPUs: 4, MemoryGiB: 16, OnDemandUSDPerHour: 0.8048},
		{Cloud: "aws", Region: "us-east-1", InstanceType: "p4de.24xlarge", GPUModel: "A100-80GB", GPUCount: 8, VCPUs: 96, MemoryGiB: 1152, OnDemandUSDPerHour: 27.44705},
		{Cloud: "aws", Region: "us-west-2", InstanceType: "g6.xlarge", GPUModel: "L4", GPUCount: 1, VCPUs: 4, MemoryGiB: 16, OnDemandUSDPerHour: 0.8048},
		{Cloud: "azure", Region: "us-east", InstanceType: "Standard_NC24ads_A100_v4", GPUModel: "A100-80GB", GPUCount: 1, VCPUs: 24, MemoryGiB: 220, OnDemandUSDPerHour: 3.673},
	})
	var got []string
	for _, e := range c.Offers("AWS", "US-EAST-1") {
		got = append(got, e.InstanceType)
	}
	if diff := cmp.Diff([]string{"g6.xlarge", "p4de.24xlarge"}, got); diff != "" {
		t.Errorf("aws us-east-1 offers (-want +got):\n%s", diff)
	}
	// Azure nodes carry ARM region names; the catalog uses slugs.
	if az := c.Offers("azure", "eastus"); len(az) != 1 || az[0].GPUModel != "A100-80GB" {
		t.Errorf("azure eastus offers = %+v", az)
	}
	if none := c.Offers("gcp", "us-central1"); len(none) != 0 {
		t.Errorf("unknown cloud gave offers %+v", none)
	}
}

func TestOfferSpecPricesLikeANode(t *testing.T) {
	t.Parallel()
	c := Embedded()
	for _, e := range c.Offers("aws", "us-east-1") {
		if e.InstanceType != "g6.xlarge" {
			continue
		}
		p, err := c.Price(OfferSpec(e, OnDemand))
		if err != nil {
			t.Fatal(err)
		}
		if p.NodeUSDPerHour != e.OnDemandUSDPerHour || p.GPUUSDPerHour <= 0 || p.GPUUSDPerHour >= p.NodeUSDPerHour {
			t.Errorf("g6.xlarge priced %+v from row %+v", p, e)
		}
		return
	}
	t.Fatal("g6.xlarge not offered in aws us-east-1")
}
