// Package prom builds a cluster.Snapshot from Prometheus history alone:
// DCGM-exporter, cAdvisor and kube-state-metrics series read over the
// Prometheus HTTP API (also Thanos, Mimir and VictoriaMetrics). It owns
// the snapshot building: which metrics to read and how (Options, with
// their defaults and Validate), the stages of a build and how they
// overlap, kube-state-metrics facts to nodes, GPUs, units and pods, DCGM
// and cAdvisor series to usage accumulators, the data-quality notes, and
// what a partial read lacks (Snapshot.Partial, PartialError).
//
// Its concepts live in sub-packages: api (the HTTP client: auth,
// retries, circuit breaker, redirects, limits, failure kinds), wire (the
// decoders: JSON lexer, remote-read frames, XOR chunks), query (planning
// and running requests: spans, shards, tasks, batches, weighing), and
// promtest (a fake Prometheus with fault injection, for tests).
//
// Each query_range point stands for one step, each raw sample for the
// time to its series' next one (at most a step); missing steps are gaps,
// never zeros, and missing series are said, never read as zeros.
//
// It converts Prometheus label sets to core types at this boundary; core
// packages must not import it or its sub-packages.
package prom
