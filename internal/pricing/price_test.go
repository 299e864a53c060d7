package pricing

import (
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

// approx compares prices to 1e-12 relative: the wants below are written as
// the arithmetic of the split rule, not as rounded numbers.
var approx = cmpopts.EquateApprox(1e-12, 0)

const (
	cpuRef = RefCPUUSDPerCoreHour
	memRef = RefMemoryUSDPerGiBHour
	// p5R is the non-GPU reference cost of p5.48xlarge: 192 vCPUs, 2048 GiB.
	p5R = 192*cpuRef + 2048*memRef
)

func TestPriceFromCatalog(t *testing.T) {
	t.Parallel()
	const (
		p5Spot     = 27.056483
		p4dMumbai  = 26.3444
		g4dn16     = 4.352
		g4dn16R    = 64*cpuRef + 256*memRef
		g4dnXL     = 0.526
		g4dnXLR    = 4*cpuRef + 16*memRef
		azureH100  = 6.98
		azureH100R = 40*cpuRef + 320*memRef
	)
	p5Source := "catalog aws us-east-1 p5.48xlarge on-demand (as of 2026-01-21)"
	azureSource := "catalog azure us-east Standard_NC40ads_H100_v5 on-demand (as of 2025-05-28)"
	azureH100Price := NodePrice{
		NodeUSDPerHour: azureH100, GPUUSDPerHour: azureH100 - azureH100R, CPUUSDPerCoreHour: cpuRef,
		MemoryUSDPerGiBHour: memRef, Source: azureSource, AsOf: "2025-05-28", Origin: OriginCatalog,
	}
	azureNode := func(region string) NodeSpec {
		return node("nc40").azure(region, "Standard_NC40ads_H100_v5").gpus(1, "H100-94GB").cores(40).mem(320).spec()
	}
	tests := []struct {
		name string
		node NodeSpec
		want NodePrice
	}{{
		name: "p5.48xlarge on-demand is $55.04 with CPU and memory at reference rates",
		node: p5().spec(),
		want: NodePrice{
			NodeUSDPerHour: 55.04, GPUUSDPerHour: (55.04 - p5R) / 8, CPUUSDPerCoreHour: cpuRef,
			MemoryUSDPerGiBHour: memRef, Source: p5Source, AsOf: "2026-01-21", Origin: OriginCatalog,
		},
	}, {
		name: "spot uses the spot price split by the on-demand fractions",
		node: p5().capacity(Spot).spec(),
		want: NodePrice{
			NodeUSDPerHour: p5Spot, GPUUSDPerHour: (55.04 - p5R) / 8 * p5Spot / 55.04,
			CPUUSDPerCoreHour: cpuRef * p5Spot / 55.04, MemoryUSDPerGiBHour: memRef * p5Spot / 55.04,
			Source: "catalog aws us-east-1 p5.48xlarge spot (as of 2025-05-28)", AsOf: "2025-05-28", Origin: OriginCatalog,
		},
	}, {
		name: "spot without a spot price falls back to on-demand and says so",
		node: node("p4d").aws("ap-south-1", "p4d.24xlarge").capacity(Spot).gpus(8, "A100-40GB").cores(96).mem(1152).spec(),
		want: NodePrice{
			NodeUSDPerHour: p4dMumbai, GPUUSDPerHour: (p4dMumbai - 96*cpuRef - 1152*memRef) / 8,
			CPUUSDPerCoreHour: cpuRef, MemoryUSDPerGiBHour: memRef, AsOf: "2026-01-21", Origin: OriginCatalog,
			Source: "catalog aws ap-south-1 p4d.24xlarge on-demand (as of 2026-01-21); spot price unknown; on-demand used",
		},
	}, {
		name: "reserved is priced at on-demand with a note",
		node: p5().capacity(Reserved).spec(),
		want: NodePrice{
			NodeUSDPerHour: 55.04, GPUUSDPerHour: (55.04 - p5R) / 8, CPUUSDPerCoreHour: cpuRef,
			MemoryUSDPerGiBHour: memRef, AsOf: "2026-01-21", Origin: OriginCatalog,
			Source: p5Source + "; reserved capacity priced at on-demand (commitments are not modelled)",
		},
	}, {
		name: "unknown capacity is priced at on-demand with a note",
		node: p5().capacity(UnknownCapacity).spec(),
		want: NodePrice{
			NodeUSDPerHour: 55.04, GPUUSDPerHour: (55.04 - p5R) / 8, CPUUSDPerCoreHour: cpuRef,
			MemoryUSDPerGiBHour: memRef, AsOf: "2026-01-21", Origin: OriginCatalog,
			Source: p5Source + "; capacity type unknown; on-demand used",
		},
	}, {
		name: "CPU and memory are capped at half the price of a GPU node",
		node: node("g4dn").aws("us-east-1", "g4dn.16xlarge").gpus(1, "T4").cores(64).mem(256).spec(),
		want: NodePrice{
			NodeUSDPerHour: g4dn16, GPUUSDPerHour: g4dn16 / 2,
			CPUUSDPerCoreHour: cpuRef * (g4dn16 / 2) / g4dn16R, MemoryUSDPerGiBHour: memRef * (g4dn16 / 2) / g4dn16R,
			Source: "catalog aws us-east-1 g4dn.16xlarge on-demand (as of 2026-01-21)", AsOf: "2026-01-21", Origin: OriginCatalog,
		},
	}, {
		name: "a GPU instance reporting no GPUs puts the price on CPU and memory",
		node: node("g4dn").aws("us-east-1", "g4dn.xlarge").cores(4).mem(16).spec(),
		want: NodePrice{
			NodeUSDPerHour: g4dnXL, CPUUSDPerCoreHour: cpuRef * g4dnXL / g4dnXLR, MemoryUSDPerGiBHour: memRef * g4dnXL / g4dnXLR,
			Source: "catalog aws us-east-1 g4dn.xlarge on-demand (as of 2026-01-21)", AsOf: "2026-01-21", Origin: OriginCatalog,
		},
	}, {
		name: "azure catalog slug",
		node: azureNode("us-east"),
		want: azureH100Price,
	}, {
		name: "azure ARM region name",
		node: azureNode("eastus"),
		want: azureH100Price,
	}, {
		name: "azure display region name and lowercase instance type",
		node: node("nc40").azure("East US", "standard_nc40ads_h100_v5").gpus(1, "H100-94GB").cores(40).mem(320).spec(),
		want: azureH100Price,
	}}
	c := Embedded()
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

func TestPriceUnpriced(t *testing.T) {
	t.Parallel()
	const fix = "see docs/pricing.md"
	tests := []struct {
		name string
		node NodeSpec
		want string
	}{{
		name: "unknown instance type",
		node: node("x").aws("us-east-1", "x9.48xlarge").gpus(8, "X9").spec(),
		want: `node x is unpriced: no catalog price for aws instance type x9.48xlarge in region "us-east-1"; ` +
			"add an override for instance type x9.48xlarge, " + fix,
	}, {
		name: "known instance type in a region the catalog lacks",
		node: node("p5").aws("mars-north-1", "p5.48xlarge").spec(),
		want: `node p5 is unpriced: no catalog price for aws p5.48xlarge in region "mars-north-1" (the catalog ` +
			"prices it in 15 other regions); check the node's region or add an override for instance type " +
			"p5.48xlarge, " + fix,
	}, {
		name: "cloud without catalog prices",
		node: node("a2").cloud("oci", "us-ashburn-1", "BM.GPU.H100.8").spec(),
		want: `node a2 is unpriced: the catalog has no prices for cloud "oci" (it covers aws, azure, gcp); ` +
			"add an override for instance type BM.GPU.H100.8, " + fix,
	}, {
		name: "on-prem node without an override",
		node: node("dgx").gpus(8, "A100-80GB").spec(),
		want: "node dgx is unpriced: no instance type and no override matches; add an override for gpuModel " +
			"A100-80GB or for a node label, " + fix,
	}, {
		name: "node with nothing to go on",
		node: node("bare").spec(),
		want: "node bare is unpriced: no instance type, GPU model or matching override; add an override for " +
			"a node label, " + fix,
	}, {
		name: "negative capacity",
		node: p5().cores(-1).spec(),
		want: "node p5 is unpriced: node reports an invalid capacity (gpus 8, cores -1, memory 2048 GiB)",
	}}
	c := Embedded()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := c.Price(tt.node)
			var ue *UnpricedError
			if !errors.As(err, &ue) {
				t.Fatalf("Price = %+v, %v; want an *UnpricedError", got, err)
			}
			if diff := cmp.Diff(tt.want, err.Error()); diff != "" {
				t.Errorf("error mismatch (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(NodePrice{}, got); diff != "" {
				t.Errorf("an unpriced node must get no price (-want +got):\n%s", diff)
			}
		})
	}
}
