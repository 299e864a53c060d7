// Package prom is the Prometheus adapter: it reads DCGM-exporter, cAdvisor
// and kube-state-metrics history over the Prometheus HTTP API
// (/api/v1/query_range, /api/v1/query for raw samples of range vectors,
// /api/v1/read for the same samples as streamed XOR chunks, /api/v1/series;
// also Thanos, Mimir and VictoriaMetrics) and builds a
// cluster.Snapshot from it alone.
//
// Queries are split by time (at most a day of steps, and never more than
// Prometheus' 11,000 points, per request; a remote read takes the whole
// window, which Prometheus streams series by series) and by node shards,
// so that no single query is heavy; responses are decoded as a stream straight into
// usage accumulators, so memory grows with the number of series, not
// samples. Each query_range point stands for one query step, each raw
// sample for the time to its series' next one (at most a step); missing
// steps are gaps, never zeros.
//
// It converts Prometheus label sets to core types at this boundary; core
// packages must not import it.
package prom
