// Package pricing owns node prices: the embedded GPU instance catalog
// (AWS and Azure on-demand and spot list prices with their as-of dates),
// user overrides (negotiated discounts, on-prem amortized cost), and how a
// node's hourly price splits into GPU, CPU and memory rates.
//
// # Lookup
//
// A node is priced by the first override rule that matches it, in order of
// specificity (node label, then instance type, then GPU model, then cloud;
// file order within a kind), else by the catalog row for its cloud, region
// and instance type. Spot nodes use the row's spot price, or on-demand when
// the row has none; reserved and unknown capacity use on-demand (commitments
// are not modelled yet). Every price says where it came from in
// NodePrice.Source. A node nothing prices gets an *UnpricedError, never $0.
//
// # Split
//
// The catalog has one price per instance, so the GPU share is inferred.
// CPU and memory are charged at reference rates, OpenCost's published
// defaults of $0.031611 per vCPU-hour and $0.004237 per GiB-hour, giving a
// non-GPU reference cost R = cores*0.031611 + GiB*0.004237 at the on-demand
// price P. On a GPU node R is capped at P/2, so the GPU part is never below
// half of the node's price; the GPU part P-R is divided evenly per physical
// GPU. Spot and discounted prices reuse the on-demand fractions. A node
// without GPUs puts all of its price on CPU and memory in the reference
// ratio. Counts are the node's own (NodeSpec), so that
//
//	GPUUSDPerHour*GPUCount + CPUUSDPerCoreHour*CPUCores + MemoryUSDPerGiBHour*MemoryGiB == NodeUSDPerHour
//
// holds for every priced node with any capacity; cost allocation relies on it.
//
// # Interface
//
// Pricer (Price a NodeSpec) is the one price-lookup interface every engine
// takes; *Catalog is the implementation. HoursPerMonth (730) turns every
// hourly dollar figure into a monthly one.
//
// # Imports
//
// Pure core: the standard library, sigs.k8s.io/yaml and go.yaml.in/yaml/v3
// (to check numbers as the file writes them) only. It must not
// import Kubernetes, Prometheus, HTTP or CLI packages, and it never reads the
// clock: as-of dates are data.
package pricing
