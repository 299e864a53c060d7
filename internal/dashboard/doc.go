// Package dashboard is the web page `gpuwise serve` answers at /: plain
// HTML, CSS and JavaScript embedded in the binary (no CDN, no build step,
// works offline), drawing every figure from the service's JSON API — the
// CLI's JSON, so the page shows exactly what `gpuwise … -o json` prints —
// and its trend charts as its own small SVG from /api/v1/history.
//
// Each figure on the page carries the API URL it came from (data-src) and
// its place in that answer (data-path); the browser tier (build tag
// browser, `make integration-browser`) loads every view in headless
// Chromium and checks each shown figure against the answer.
//
// It owns only files; it must not import the service, app, engines or
// adapters (the service imports it).
package dashboard
