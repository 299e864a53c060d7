package pricing

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestEmbeddedLoads(t *testing.T) {
	t.Parallel()
	c := Embedded()
	if c.loadErr != nil {
		t.Fatal(c.loadErr)
	}
	// 1,733 rows from ../shared/data/prices (AWS 941, Azure 792) and 51
	// GCP rows (data/gcp.csv: 10 A2/A3 types in up to 3 regions, 8 G2
	// types in 3) and 64 AWS accelerator rows (data/accelerators.csv:
	// trn1, trn1n, trn2, inf2 and dl1 types in every region listed).
	if got, want := len(c.entries), 1733+51+64; got != want {
		t.Errorf("embedded catalog has %d rows, want %d", got, want)
	}
	for _, e := range c.entries {
		if e.GPUModel == "" || e.GPUCount <= 0 || e.VCPUs <= 0 || e.MemoryGiB <= 0 || e.OnDemandAsOf == "" {
			t.Errorf("incomplete row %+v", e)
		}
	}
	if Embedded() != c {
		t.Error("Embedded parses the data again")
	}
}

func TestLookup(t *testing.T) {
	t.Parallel()
	want := Entry{
		Cloud: "aws", Region: "us-east-1", InstanceType: "p5.48xlarge", GPUModel: "H100-80GB", GPUCount: 8,
		VCPUs: 192, MemoryGiB: 2048, OnDemandUSDPerHour: 55.04, SpotUSDPerHour: 27.056483,
		OnDemandAsOf: "2026-01-21", SpotAsOf: "2025-05-28", Source: "ec2instances.info; on-demand tsaol/aws-gpu",
	}
	got, ok := Embedded().Lookup("AWS", "us-east-1", "P5.48xlarge")
	if !ok {
		t.Fatal("p5.48xlarge us-east-1 not found")
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Lookup mismatch (-want +got):\n%s", diff)
	}
	if _, ok := Embedded().Lookup("oci", "us-ashburn-1", "BM.GPU.H100.8"); ok {
		t.Error("found an OCI row; the catalog has none")
	}
}

// TestAcceleratorLookup checks one row of each accelerator family against
// the source data (ec2instances.info, 2025-05-28) by hand.
func TestAcceleratorLookup(t *testing.T) {
	t.Parallel()
	tests := []struct {
		cloud, region, typ, model string
		count                     float64
		onDemand                  float64
	}{
		{"aws", "us-east-1", "trn1.32xlarge", "Trainium", 16, 21.5},
		{"aws", "us-east-2", "trn2.48xlarge", "Trainium2", 16, 85.964},
		{"aws", "us-east-1", "inf2.48xlarge", "Inferentia2", 12, 12.98127},
		{"aws", "us-east-1", "dl1.24xlarge", "Gaudi-HL205", 8, 13.10904},
		{"azure", "us-east-2", "Standard_ND96isr_MI300X_v5", "MI300X", 8, 48},
	}
	for _, tt := range tests {
		e, ok := Embedded().Lookup(tt.cloud, tt.region, tt.typ)
		if !ok {
			t.Errorf("%s %s not in the catalog", tt.typ, tt.region)
			continue
		}
		if e.GPUModel != tt.model || e.GPUCount != tt.count || e.OnDemandUSDPerHour != tt.onDemand {
			t.Errorf("%s %s: %s ×%v $%v/h, want %s ×%v $%v/h", tt.typ, tt.region, e.GPUModel, e.GPUCount, e.OnDemandUSDPerHour,
				tt.model, tt.count, tt.onDemand)
		}
	}
}

func TestSources(t *testing.T) {
	t.Parallel()
	want := []SourceInfo{
		{Cloud: "aws", Price: "on-demand", AsOf: "2025-05-28", Source: "ec2instances.info", Rows: 64},
		{Cloud: "aws", Price: "on-demand", AsOf: "2026-01-21", Source: "ec2instances.info; on-demand tsaol/aws-gpu", Rows: 869},
		{Cloud: "aws", Price: "on-demand", AsOf: "2026-01-21", Source: "tsaol/aws-gpu", Rows: 72},
		{Cloud: "aws", Price: "spot", AsOf: "2025-05-28", Source: "ec2instances.info", Rows: 672 + 63, Note: caveats["aws spot"]},
		{Cloud: "azure", Price: "on-demand", AsOf: "2025-05-28", Source: "ec2instances.info", Rows: 792},
		{Cloud: "azure", Price: "spot", AsOf: "2025-05-28", Source: "ec2instances.info", Rows: 769, Note: caveats["azure spot"]},
		{Cloud: "gcp", Price: "on-demand", AsOf: "2025-03-06", Source: "Cyclenerd/google-cloud-pricing-cost-calculator pricing.yml", Rows: 51},
		{Cloud: "gcp", Price: "spot", AsOf: "2025-03-06", Source: "Cyclenerd/google-cloud-pricing-cost-calculator pricing.yml", Rows: 51},
	}
	if diff := cmp.Diff(want, Embedded().Sources()); diff != "" {
		t.Errorf("Sources mismatch (-want +got):\n%s", diff)
	}
}

func TestAzureRegionNames(t *testing.T) {
	t.Parallel()
	tests := []struct{ slug, arm string }{
		{"us-east", "eastus"}, {"us-east-2", "eastus2"}, {"us-west-2", "westus2"}, {"us-west-central", "westcentralus"},
		{"us-north-central", "northcentralus"}, {"us-central", "centralus"}, {"europe-west", "westeurope"},
		{"europe-north", "northeurope"}, {"asia-pacific-east", "eastasia"}, {"asia-pacific-southeast", "southeastasia"},
		{"united-kingdom-south", "uksouth"}, {"australia-central-2", "australiacentral2"},
		{"germany-west-central", "germanywestcentral"}, {"central-india", "centralindia"}, {"usgov-virginia", "usgovvirginia"},
	}
	ix := Embedded().regionIx
	for _, tt := range tests {
		if got := azureARMName(tt.slug); got != tt.arm {
			t.Errorf("azureARMName(%q) = %q, want %q", tt.slug, got, tt.arm)
		}
		if got := ix.canonical("azure", tt.arm); got != tt.slug {
			t.Errorf("canonical(azure, %q) = %q, want %q", tt.arm, got, tt.slug)
		}
	}
	// Every slug in the data has its own ARM name.
	slugs := map[string]bool{}
	for k := range Embedded().entries {
		if k.cloud == "azure" {
			slugs[k.region] = true
		}
	}
	if len(ix.azureARM) != len(slugs) {
		t.Errorf("%d azure slugs map to %d ARM names", len(slugs), len(ix.azureARM))
	}
}

func TestNormalizeGPUModel(t *testing.T) {
	t.Parallel()
	tests := []struct {
		model  string
		memory float64
		want   string
	}{
		{"H100", 80, "H100-80GB"}, {"A100", 40, "A100-40GB"}, {"A100", 80, "A100-80GB"}, {"H200", 141, "H200-141GB"},
		{"V100", 16, "V100-16GB"}, {"L4", 24, "L4"}, {"L4", 3, "L4"}, {"T4", 16, "T4"}, {"A10G", 24, "A10G"},
		{"L40S", 48, "L40S"}, {"H100", 0, "H100"}, {"H100-80GB", 80, "H100-80GB"}, {"NVIDIA H100", 79.6, "H100-80GB"},
		{"B200 Blackwell", 179, "B200"}, {"RTX PRO 6000 Blackwell", 96, "RTX-PRO-6000"},
		{"Radeon Pro V520", 8, "Radeon-Pro-V520"}, {" a100 ", 40, "A100-40GB"}, {"", 0, ""},
	}
	for _, tt := range tests {
		if got := NormalizeGPUModel(tt.model, tt.memory); got != tt.want {
			t.Errorf("NormalizeGPUModel(%q, %v) = %q, want %q", tt.model, tt.memory, got, tt.want)
		}
	}
}

func TestParseCatalogCSVReportsEveryBadRow(t *testing.T) {
	t.Parallel()
	data := strings.Join([]string{
		strings.Join(catalogHeader, ","),
		"aws,us-east-1,p5.48xlarge,H100-80GB,8,192,2048,55.04,,2026-01-21,,src",
		"aws,us-east-1,bad.one,X,8,192,2048,0,1,2026-01-21,,src",
		"aws,,bad.two,X,eight,192,2048,1,,21/01/2026,,src",
	}, "\n")
	_, err := parseCatalogCSV([]byte(data))
	want := "line 3: on_demand_usd_hr: on-demand price must be positive (got \"0\")\n" +
		"line 3: spot_as_of: spot price without an as-of date (got \"\")\n" +
		"line 4: region: must not be empty (got \"\")\n" +
		"line 4: gpu_count: want a non-negative number (got \"eight\")\n" +
		"line 4: on_demand_as_of: want a YYYY-MM-DD date (got \"21/01/2026\")"
	if err == nil || err.Error() != want {
		t.Errorf("parseCatalogCSV error:\n%v\nwant:\n%s", err, want)
	}
}

func TestNewCatalogLaterRowWins(t *testing.T) {
	t.Parallel()
	row := Entry{Cloud: "aws", Region: "r", InstanceType: "t", GPUCount: 1, VCPUs: 1, MemoryGiB: 1, OnDemandUSDPerHour: 1}
	row2 := row
	row2.OnDemandUSDPerHour = 2
	got, _ := NewCatalog([]Entry{row, row2}).Lookup("aws", "r", "t")
	if got.OnDemandUSDPerHour != 2 {
		t.Errorf("price = %v, want the later row's 2", got.OnDemandUSDPerHour)
	}
}

// GCP's A2, A3 and G2 GPU instances price from the embedded catalog with
// their source's date (docs/pricing.md), on demand and spot.
func TestEmbeddedGCP(t *testing.T) {
	c := Embedded()
	for _, tt := range []struct {
		it       string
		gpus     int
		od, spot float64
	}{{"a2-highgpu-1g", 1, 3.673385, 1.293355}, {"a3-highgpu-8g", 8, 88.4899999025753, 35.3957496986301},
		{"g2-standard-4", 1, 0.706832255, 0.279932}, {"g2-standard-24", 2, 2.000832574, 0.787192}, {"g2-standard-96", 8, 8.003330296, 3.148768}} {
		n := NodeSpec{Name: "g", Cloud: "gcp", Region: "us-central1", InstanceType: tt.it, Capacity: OnDemand, GPUCount: tt.gpus, CPUCores: 12, MemoryGiB: 85}
		p, err := c.Price(n)
		if err != nil || p.NodeUSDPerHour != tt.od || p.AsOf != "2025-03-06" {
			t.Errorf("%s on demand: %+v, %v", tt.it, p, err)
		}
		n.Capacity = Spot
		if p, err := c.Price(n); err != nil || p.NodeUSDPerHour != tt.spot {
			t.Errorf("%s spot: %+v, %v", tt.it, p, err)
		}
	}
	if !c.GPUInstanceType("gcp", "a3-highgpu-8g") || !c.GPUInstanceType("gcp", "g2-standard-48") || c.GPUInstanceType("gcp", "n2-standard-8") {
		t.Error("GPUInstanceType on GCP")
	}
}
