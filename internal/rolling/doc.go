// Package rolling owns the service's time axis for usage: a Span is the
// measured usage of one stretch of time (per pod: GPU units by ID,
// containers by name, OOM kills), taken from a snapshot that covers only
// that stretch (Extract: a Prometheus read of the new interval, a
// simulated segment); a Ring keeps spans merged into fixed segments so
// that a rolling window is the merge of its segments, never a re-read;
// Attach puts a span's usage on an inventory snapshot for a window, giving
// the snapshot every engine computes on. Seen is the inventory inferred
// from interval reads alone (the service without API access): the latest
// view of each node and pod, a pod no later read shows ended when the last
// read showing it did, never after its unit's next holder started.
//
// Merging is exact: the usage accumulators are additive (seconds,
// integrals, histograms), so a window's usage is the same whether it was
// read at once or span by span. So are the hourly series: a span keeps
// its source's raw hourly sums (cluster.HourSums), merged like the rest,
// and Attach builds the window's series from them once. Missing usage stays missing: a holding or
// container no span measured keeps nil usage (unmeasured), never zeros.
//
// Pure core: it imports cluster, usage and the standard library only; no
// adapters, no I/O, no clock (times come in the spans and arguments).
package rolling
