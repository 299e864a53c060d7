// Package grafana builds the Grafana dashboard gpuwise ships
// (deploy/grafana/gpuwise.json, and the Helm chart's ConfigMap for the
// Grafana sidecar) with the Grafana foundation SDK, from the metrics the
// service exports (docs/metrics.md): datasource, cluster and namespace
// variables; the rolling window's headline; trends of utilization, cost
// and idle cost per namespace; the top workloads by idle dollars; GPU
// sharing, spot nodes, OOM kills, audit findings and the service's cycles.
//
// The JSON is generated, never edited: `go test ./internal/grafana
// -update` rewrites it, and the test fails when it is stale or when the
// SDK's strict decoder refuses it. It knows metric names only; it must not
// import the service, app, engines or adapters.
package grafana
