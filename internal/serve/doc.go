// Package serve is `gpuwise serve`: the long-running, read-only service.
// It owns the cycle (keep the inventory current, read the new interval's
// usage, record it in the history, rebuild the rolling window and run the
// use cases on it), the state it publishes (the last good result, marked
// partial when a source fails, never replaced by zeros), and the HTTP
// front end: /healthz, /readyz, /metrics, the JSON API under /api/v1 (the
// CLI's JSON, from the same app use cases and the same renderer), its
// OpenAPI document, optional bearer/basic auth and TLS, and / (the
// dashboard's hook: an embedded file system served as is).
//
// Sources are small interfaces defined here (Inventory, UsageReader) with
// the adapters behind them (kube's shared informers, Prometheus reads of
// one interval, the simulator for --demo); the engines run only through
// app. It must not import cli; the CLI's serve command builds Options and
// calls Run.
package serve
