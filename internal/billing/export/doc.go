// Package export reads cloud billing exports into internal/billing's row
// model: FinOps FOCUS 1.0–1.2 (CSV, gzip CSV, Parquet) and AWS CUR 2.0
// (gzip CSV, Parquet), told apart by content (gzip and Parquet magic
// bytes, then the header's columns).
//
// Readers stream: each row is decoded, checked and handed to
// billing.Bill.Add, so memory is bounded by the bill's sums, never by
// the file's rows. Nulls are empty cells or the literal NULL (both occur
// in real exports); enum values compare case-insensitively; timestamps
// may lack the T and the zone (read as UTC). FOCUS's EffectiveCost is the
// amortized cost; CUR 2.0's is derived per line-item type as AWS's own
// CUR 2.0 views do (SavingsPlanCoveredUsage →
// savings_plan_savings_plan_effective_cost, DiscountedUsage →
// reservation_effective_cost, negations and upfront fees → 0, recurring
// fees → unused commitment). A bad value is a *RowError naming the file,
// the row and the column; NaN and infinities are refused, and negative
// values where a column cannot be negative; unknown extra columns are
// ignored; a missing required column is named; Limits bound rows, bytes
// and line length.
//
// # Imports
//
// The standard library, internal/billing and the Parquet library: no
// Kubernetes, Prometheus, HTTP, CLI or os packages (files are opened by
// the caller).
package export
