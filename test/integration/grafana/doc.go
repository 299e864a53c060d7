// Package grafana holds the integration tier of the Grafana dashboard
// (build tag integration; make integration-grafana): a real Prometheus
// (Debian's) scrapes a running `gpuwise serve --demo` and every panel's
// and variable's query of deploy/grafana/gpuwise.json returns data; the
// Helm chart's ConfigMap carries exactly that dashboard.
package grafana
