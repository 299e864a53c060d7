// Package serve holds the integration tier of gpuwise serve (build tag
// integration; make integration-serve): the Helm chart against the real
// control-plane tier (helm lint, helm template | kubectl apply
// --dry-run=server, its pod admitted under the restricted Pod Security
// Standard, the plain manifests current), serve itself run against that
// tier with the chart's ServiceAccount token, and a central Prometheus
// federating two serve instances and summing them.
package serve
