// Package serve is `gpuwise serve`'s HTTP front end: /healthz, /readyz,
// /metrics, the JSON API under /api/v1 (the CLI's JSON, from the same app
// use cases and the same renderer), its OpenAPI document (from the one
// route table), query parameters read and checked as the CLI reads its
// flags, optional bearer/basic auth and TLS (a rotated certificate is
// reloaded), gzip, secret scrubbing of every answer and log line, the
// result cache (an answer computed once per published state), and / (the
// dashboard's hook: an embedded file system served as is). Options holds
// every `gpuwise serve` flag and validates them, each problem naming its
// flag.
//
// The cycle is not here: internal/collector runs it (sources, the rolling
// ring, the history, the published State and the service's metrics), and
// the service answers requests over the collector's State and History.
// It reaches sources, engines and the history store only through app and
// collector (it imports none of them); it must not import cli, and the CLI's serve command builds
// Options and calls New and Serve.
package serve
