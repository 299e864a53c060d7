// Package billing is the cloud bill as gpuwise uses it: one row model
// for FinOps FOCUS 1.0–1.2 and AWS CUR 2.0 billing lines (the readers are
// internal/billing/export), folded into per-resource charge buckets (one
// per resource and charge period, so memory grows with resources ×
// periods, never with rows), matched to the cluster's nodes, an
// effective-rate Pricer, the reconciliation of the bill against the cost
// engine's node cost, and the summary `bill inspect` prints.
//
// # Matching
//
// A node matches a bill resource by its spec.providerID: the AWS instance
// id (i-…), the Azure VM or VMSS resource id compared with ASCII case
// folding (Microsoft lower-cases the whole FOCUS ResourceId, the cloud
// provider lower-cases only the resource group), or the GCP
// project/zone/instance. A scale-set charge (Azure bills a VMSS as one
// resource) is shared between the scale set's nodes by node-hours. A
// charge counts for the part of its [ChargePeriodStart, ChargePeriodEnd)
// that overlaps the node's life inside the window (pro rata).
//
// # Imports
//
// The standard library and internal/pricing only: no Kubernetes,
// Prometheus, HTTP, CLI or os packages. It never reads the clock.
package billing
