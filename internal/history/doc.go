// Package history is the service's history store: hourly aggregates per
// workload, namespace, node and GPU model (GPU-hours allocated, active,
// idle, unmeasured and unallocated; the cost engine's dollars split the
// same way; OOM kills) and the GPU fleet by model and sharing mode at
// each bucket's latest cycle end (a count, replaced, not summed), and the
// savings plan the tracker keeps (internal/tracker: the baseline, the
// actions and what the cluster showed of them, as JSON, with the users'
// marks in their own table), never raw samples, in an embedded SQLite database
// on a volume (modernc.org/sqlite: pure Go, so the binary stays static).
//
// Why SQLite over bbolt: history is read by ad-hoc grouping (per period,
// per key, per kind), which SQL answers and a key-value store would need
// hand-written; a measured 13-month, 500-workload hourly table holds 4.75 M
// rows in 212 MiB and sums one workload's month in 0.4 ms
// (../shared/reference/service.md §3). Daily rollups are kept in the same
// transaction so that long ranges stay cheap.
//
// Durability: WAL journal with synchronous=FULL, one writer connection,
// IMMEDIATE transactions. One cycle is one transaction that also records
// the cycle in the cycles table: a cycle is either wholly in the store or
// not at all, and recording it twice is a no-op, so a process killed
// mid-write leaves a consistent store (tested by killing a writer
// process). The schema version is SQLite's user_version; migrations are
// the embedded migrations/NNN.sql files, each applied in one transaction;
// a store written by a newer gpuwise is refused, never rewritten.
//
// It is the store layer (internal/archtest): it converts cost reports into
// rows of tally.Values at this boundary and answers queries (series,
// totals, coverage, fleet); the use cases on it — a series with its
// coverage and fleet, comparing two periods — are app.History's, which the
// CLI and the service both call. Only use cases open it (app, and the
// service's collector, which records into it). It imports core and engine
// values only: never a source, a use case or a front end, and it never
// reads the clock (callers pass times).
package history
