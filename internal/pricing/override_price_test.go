package pricing

import (
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// testOverrides are the rules the tests below price with. File order is
// deliberately not specificity order.
const testOverrides = `
prices:
  - match: {cloud: aws}
    discount: 0.15
  - match: {gpuModel: A100-80GB}
    gpuUSDPerHour: 1.25
  - match: {instanceType: p5.48xlarge, region: us-east-1}
    nodeUSDPerHour: 40.0
  - match: {instanceType: p5.48xlarge, capacityType: spot}
    nodeUSDPerHour: 20.0
  - match: {nodeLabel: "gpuwise.io/pool=onprem-a100"}
    gpuUSDPerHour: 1.10
  - match: {gpuModel: L40S, cloud: onprem}
    gpuUSDPerHour: 0.8
    cpuUSDPerCoreHour: 0.01
    memoryUSDPerGiBHour: 0.001
  - match: {instanceType: Standard_NC40ads_H100_v5, region: eastus}
    nodeUSDPerHour: 5.0
  - match: {instanceType: x9.48xlarge}
    nodeUSDPerHour: 0
  - match: {cloud: azure}
    discount: 0.5
`

func TestPriceWithOverrides(t *testing.T) {
	t.Parallel()
	o, err := ParseOverrides("prices.yaml", []byte(testOverrides))
	if err != nil {
		t.Fatal(err)
	}
	c := Embedded().WithOverrides(o)
	const p4de = 27.44705 // aws us-east-1 p4de.24xlarge on-demand
	tests := []struct {
		name string
		node NodeSpec
		want NodePrice
	}{{
		name: "instance type and region rule splits the whole-node price",
		node: p5().spec(),
		want: NodePrice{
			NodeUSDPerHour: 40, GPUUSDPerHour: (40 - p5R) / 8, CPUUSDPerCoreHour: cpuRef, MemoryUSDPerGiBHour: memRef,
			Source: "override prices.yaml prices[2] (instanceType=p5.48xlarge, region=us-east-1)", Origin: OriginOverride,
		},
	}, {
		name: "capacity-qualified rule in another region; a low price caps CPU and memory at half",
		node: node("p5").aws("us-west-2", "p5.48xlarge").capacity(Spot).gpus(8, "H100-80GB").cores(192).mem(2048).spec(),
		want: NodePrice{
			NodeUSDPerHour: 20, GPUUSDPerHour: 10.0 / 8, CPUUSDPerCoreHour: cpuRef * 10 / p5R, MemoryUSDPerGiBHour: memRef * 10 / p5R,
			Source: "override prices.yaml prices[3] (instanceType=p5.48xlarge, capacityType=spot)", Origin: OriginOverride,
		},
	}, {
		name: "node label beats instance type",
		node: p5().label("gpuwise.io/pool", "onprem-a100").spec(),
		want: NodePrice{
			NodeUSDPerHour: 8*1.10 + 192*cpuRef + 2048*memRef, GPUUSDPerHour: 1.10, CPUUSDPerCoreHour: cpuRef,
			MemoryUSDPerGiBHour: memRef, Source: "override prices.yaml prices[4] (nodeLabel=gpuwise.io/pool=onprem-a100)", Origin: OriginOverride,
		},
	}, {
		name: "GPU model beats a cloud discount",
		node: node("p4de").aws("us-east-1", "p4de.24xlarge").gpus(8, "A100-80GB").cores(96).mem(1152).spec(),
		want: NodePrice{
			NodeUSDPerHour: 8*1.25 + 96*cpuRef + 1152*memRef, GPUUSDPerHour: 1.25, CPUUSDPerCoreHour: cpuRef,
			MemoryUSDPerGiBHour: memRef, Source: "override prices.yaml prices[1] (gpuModel=A100-80GB)", Origin: OriginOverride,
		},
	}, {
		name: "on-prem GPU model rule with its own CPU and memory rates",
		node: node("dgx").gpus(8, "L40S").cores(64).mem(512).spec(),
		want: NodePrice{
			NodeUSDPerHour: 8*0.8 + 64*0.01 + 512*0.001, GPUUSDPerHour: 0.8, CPUUSDPerCoreHour: 0.01,
			MemoryUSDPerGiBHour: 0.001, Source: "override prices.yaml prices[5] (gpuModel=L40S, cloud=onprem)", Origin: OriginOverride,
		},
	}, {
		name: "cloud discount scales the catalog price and keeps its date",
		node: node("p4d").aws("us-east-1", "p4de.24xlarge").gpus(8, "A100-40GB").cores(96).mem(1152).spec(),
		want: NodePrice{
			NodeUSDPerHour: p4de * 0.85, GPUUSDPerHour: (p4de - 96*cpuRef - 1152*memRef) / 8 * 0.85,
			CPUUSDPerCoreHour: cpuRef * 0.85, MemoryUSDPerGiBHour: memRef * 0.85, AsOf: "2026-01-21", Origin: OriginDiscount,
			Source: "catalog aws us-east-1 p4de.24xlarge on-demand (as of 2026-01-21); 15% discount by " +
				"override prices.yaml prices[0] (cloud=aws)",
		},
	}, {
		name: "override region matches an azure slug through its ARM name",
		node: node("nc40").azure("us-east", "Standard_NC40ads_H100_v5").gpus(1, "H100-94GB").cores(40).mem(320).spec(),
		want: NodePrice{
			NodeUSDPerHour: 5, GPUUSDPerHour: 2.5, CPUUSDPerCoreHour: cpuRef * 2.5 / (40*cpuRef + 320*memRef),
			MemoryUSDPerGiBHour: memRef * 2.5 / (40*cpuRef + 320*memRef),
			Source:              "override prices.yaml prices[6] (instanceType=Standard_NC40ads_H100_v5, region=eastus)", Origin: OriginOverride,
		},
	}, {
		name: "an explicit zero price is the user's choice",
		node: node("x9").aws("us-east-1", "x9.48xlarge").gpus(8, "X9").cores(8).mem(8).spec(),
		want: NodePrice{Source: "override prices.yaml prices[7] (instanceType=x9.48xlarge)", Origin: OriginOverride},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := c.Price(tt.node)
			if err != nil {
				t.Fatalf("Price: %v", err)
			}
			if diff := cmp.Diff(tt.want, got, approx); diff != "" {
				t.Errorf("Price mismatch (-want +got):\n%s", diff)
			}
			checkSplit(t, tt.node, got)
		})
	}
}

func TestPriceDiscountWithoutCatalogRow(t *testing.T) {
	t.Parallel()
	o, err := ParseOverrides("prices.yaml", []byte(testOverrides))
	if err != nil {
		t.Fatal(err)
	}
	_, err = Embedded().WithOverrides(o).Price(node("nv").azure("eastus", "Standard_Unknown_v9").spec())
	var ue *UnpricedError
	if !errors.As(err, &ue) {
		t.Fatalf("Price error = %v, want an *UnpricedError", err)
	}
	want := "node nv is unpriced: override prices.yaml prices[8] (cloud=azure) gives a discount, but no " +
		`catalog price for azure instance type Standard_Unknown_v9 in region "eastus"; add an override ` +
		"for instance type Standard_Unknown_v9, see docs/pricing.md"
	if diff := cmp.Diff(want, err.Error()); diff != "" {
		t.Errorf("error mismatch (-want +got):\n%s", diff)
	}
}

func TestWithOverridesLeavesCatalogAlone(t *testing.T) {
	t.Parallel()
	o, err := ParseOverrides("prices.yaml", []byte(testOverrides))
	if err != nil {
		t.Fatal(err)
	}
	base := Embedded()
	_ = base.WithOverrides(o)
	got, err := base.Price(p5().spec())
	if err != nil {
		t.Fatal(err)
	}
	if got.NodeUSDPerHour != 55.04 {
		t.Errorf("base catalog price = %v after WithOverrides, want 55.04", got.NodeUSDPerHour)
	}
	if n := len(base.WithOverrides(o).Sources()) - len(base.Sources()); n != 1 {
		t.Errorf("overrides add %d sources, want 1", n)
	}
}
