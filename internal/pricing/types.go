package pricing

import "fmt"

// CapacityType is how a node is bought.
type CapacityType string

// Capacity types, as clouds and Karpenter name them.
const (
	OnDemand        CapacityType = "on-demand"
	Spot            CapacityType = "spot"
	Reserved        CapacityType = "reserved"
	UnknownCapacity CapacityType = ""
)

// NodeSpec is what pricing needs to know about a node.
type NodeSpec struct {
	Name  string
	Cloud string // "aws", "azure", "gcp", "" (on-prem or unknown)
	// Region is as the cloud names it: "us-east-1" on AWS; on Azure the ARM
	// name ("eastus") or the catalog's slug ("us-east").
	Region       string
	InstanceType string
	Capacity     CapacityType
	Labels       map[string]string
	// GPUModel is the normalized model name, e.g. "H100-80GB"; see
	// NormalizeGPUModel.
	GPUModel  string
	GPUCount  int // physical GPUs
	CPUCores  float64
	MemoryGiB float64
}

// NodePrice is a node's hourly price and how it splits. For every priced
// node with any capacity, GPUUSDPerHour*GPUCount +
// CPUUSDPerCoreHour*CPUCores + MemoryUSDPerGiBHour*MemoryGiB equals
// NodeUSDPerHour, with the node's own counts.
type NodePrice struct {
	NodeUSDPerHour      float64
	GPUUSDPerHour       float64 // per physical GPU
	CPUUSDPerCoreHour   float64
	MemoryUSDPerGiBHour float64
	// Source says where the price came from, for people: "catalog aws
	// us-east-1 p5.48xlarge on-demand (as of 2026-01-21)".
	Source string
	// AsOf is the date of the catalog price used; empty for user prices.
	AsOf string
	// Origin says which kind of source priced the node: OriginCatalog,
	// OriginOverride (a user rule's own price) or OriginDiscount (a user
	// rule's discount on the catalog price).
	Origin string
}

// Price origins (NodePrice.Origin).
const (
	OriginCatalog  = "catalog"
	OriginOverride = "override"
	OriginDiscount = "catalog-discount"
	// OriginBill: the effective (amortized) rate a cloud bill charged for
	// the node's hours (internal/billing).
	OriginBill = "bill"
)

// Entry is one raw catalog row: an instance type's list prices in a region.
type Entry struct {
	Cloud        string
	Region       string
	InstanceType string
	GPUModel     string // normalized
	// GPUCount is GPUs per instance; below 1 for fractional GPU sizes.
	GPUCount           float64
	VCPUs              int
	MemoryGiB          float64
	OnDemandUSDPerHour float64
	SpotUSDPerHour     float64 // 0 when the catalog has no spot price
	OnDemandAsOf       string
	SpotAsOf           string
	Source             string
}

// SourceInfo describes one body of prices the catalog holds, for the
// report's data notes.
type SourceInfo struct {
	Cloud  string // empty for an override file
	Price  string // "on-demand", "spot" or "override"
	AsOf   string
	Source string
	Rows   int
	Note   string // caveat, if any
}

// UnpricedError says that nothing priced a node: no override matched and
// the catalog has no row for it.
type UnpricedError struct {
	Node string
	// Reason says what was looked up and how to fix it.
	Reason string
}

func (e *UnpricedError) Error() string {
	return fmt.Sprintf("node %s is unpriced: %s", e.Node, e.Reason)
}
