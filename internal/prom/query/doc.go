// Package query plans and runs the requests of a Prometheus read: it cuts
// a window into spans no request exceeds (a day of steps, never more than
// Prometheus' 11,000 points) and nodes into shards (one regular
// expression per group of nodes), merges a remote read's days into one
// request, runs tasks on the client's pool, and routes every answer's
// series to a Batch, committed only once its whole answer was read (a
// retried request never counts twice).
//
// It turns samples into weighted points: a query_range point stands for
// one step; a raw sample (instant query of a range vector, or remote
// read) for the time to its series' next sample, at most a cap; a missing
// step is a gap, never a zero. The usage accumulators (internal/usage)
// take them directly, with no call through a func value per sample.
//
// It imports the API client (api), the decoders (wire) and usage; it knows
// no metric names and builds no snapshot (that is package prom's).
package query
