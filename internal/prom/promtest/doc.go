// Package promtest is a fake Prometheus for tests: it serves a small
// cluster's history (kube-state-metrics, DCGM-exporter and cAdvisor
// series) the way gpuwise reads it — /api/v1/series listings and remote
// read (streamed XOR chunks), with matchers evaluated as Prometheus
// evaluates them — and lets a test inject faults: failing, slow or empty
// answers, redirects, missing or NaN series, a server that dies
// mid-read. JSON queries (query_range, query) answer an empty matrix
// unless a test says otherwise, so tests read with --prometheus-read
// remote. Test support only: no production code imports it.
package promtest
