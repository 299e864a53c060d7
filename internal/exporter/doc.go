// Package exporter owns gpuwise's domain metrics on /metrics: a
// prometheus.Collector that emits constant metrics from the Frame the
// service's collector (internal/collector) published last (the
// writing-exporters pattern: the numbers are computed once per cycle, swapped in atomically and read by every scrape;
// series of workloads that vanish simply stop being emitted); an Exposition
// keeps a frame's metrics encoded once per format, so that a scrape writes
// bytes instead of rebuilding thousands of series. Metric names,
// help, labels and cardinality live in one table (metrics.go), from which
// docs/metrics.md is generated.
//
// Two kinds of numbers: counters that add up each recorded cycle
// (GPU-seconds, dollars and OOM kills per workload since the process
// started; PromQL's increase() turns them into any period), and gauges
// over the service's rolling window (utilization, coverage, audit
// findings, savings), the same numbers /api/v1/report answers.
//
// Cardinality is bounded: workloads beyond MaxWorkloads are summed into
// workload="__other__" of their namespace (a workload, once exported under
// its name, keeps it, so every counter stays monotonic); pod-level series
// exist only when Options.Pods is set. Missing data is never exported as
// zero: an unmeasured ratio has no sample.
//
// It reads engine results (cost, audit, kueue, ledger, tracker) and tally values; it
// must not import app, the service, the CLI or adapters, and it never
// registers on the global registry.
package exporter
