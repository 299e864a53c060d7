package pricing

import "testing"

func TestTransferUSDPerGB(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		cloud, from, to string
		want            float64
		ok              bool
	}{
		{"aws", "us-east-1", "us-west-2", 0.02, true},
		{"aws", "ap-south-1", "ap-northeast-1", 0.09, true},
		{"aws", "us-east-1", "eu-west-1", 0, false},     // another continent
		{"aws", "us-east-1", "us-gov-west-1", 0, false}, // GovCloud is its own
		{"gcp", "us-central1", "us-east4", 0.02, true},
		{"gcp", "asia-east1", "asia-south1", 0.08, true},
		{"azure", "europe-west", "germany-west-central", 0.02, true},
		{"azure", "us-east", "usgov-virginia", 0, false},
		{"oci", "us-ashburn-1", "us-phoenix-1", 0, false}, // no rate
	} {
		got, ok := TransferUSDPerGB(tc.cloud, tc.from, tc.to)
		if got != tc.want || ok != tc.ok {
			t.Errorf("%s %s→%s: %v %v, want %v %v", tc.cloud, tc.from, tc.to, got, ok, tc.want, tc.ok)
		}
	}
}

// RegionOffers lists one instance type in every region of a cloud, and
// CanonicalRegion maps an Azure ARM name to the catalog's slug.
func TestRegionOffers(t *testing.T) {
	t.Parallel()
	c := NewCatalog([]Entry{
		{Cloud: "azure", Region: "us-east", InstanceType: "nc24", OnDemandUSDPerHour: 3},
		{Cloud: "azure", Region: "us-west-2", InstanceType: "nc24", OnDemandUSDPerHour: 2},
		{Cloud: "azure", Region: "us-east", InstanceType: "nc48", OnDemandUSDPerHour: 6},
		{Cloud: "aws", Region: "us-east-1", InstanceType: "nc24", OnDemandUSDPerHour: 1},
	})
	got := c.RegionOffers("Azure", "NC24")
	if len(got) != 2 || got[0].Region != "us-east" || got[1].Region != "us-west-2" {
		t.Errorf("RegionOffers = %+v, want nc24 in us-east and us-west-2", got)
	}
	if r := c.CanonicalRegion("azure", "eastus"); r != "us-east" {
		t.Errorf("CanonicalRegion(eastus) = %q, want us-east", r)
	}
	if !Zonal("aws", "us-east-1-atl-1") || Zonal("aws", "us-east-1") {
		t.Error("Zonal: want a Local Zone zonal and a region not")
	}
}
