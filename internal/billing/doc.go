// Package billing reads cloud billing exports — FinOps FOCUS 1.0–1.2 (CSV,
// gzip CSV, Parquet) and AWS CUR 2.0 (gzip CSV, Parquet) — into one row
// model, matches their compute charges to the cluster's nodes and prices
// the matched node-hours at the bill's effective rates.
//
// # Rows
//
// Every reader streams: a row is decoded, checked and folded into the
// Bill's per-resource charge buckets (one bucket per resource and charge
// period), so memory grows with resources × periods, never with rows.
// FOCUS's EffectiveCost is the amortized cost (commitment purchases
// spread over the usage they cover, spot at its actual price); CUR 2.0's
// amortized cost is derived per line-item type as AWS's own CUR 2.0 views
// do (SavingsPlanCoveredUsage → savings_plan_savings_plan_effective_cost,
// DiscountedUsage → reservation_effective_cost, negations and upfront fees
// → 0, recurring fees → unused commitment). A bad value is a *RowError
// naming the file, the row and the column; unknown extra columns are
// ignored; a missing required column is named.
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
// The standard library, internal/cluster and internal/pricing only (and
// the Parquet reader's library): no Kubernetes, Prometheus, HTTP, CLI or
// os packages — files are opened by the caller. It never reads the clock.
package billing
