// Package api is the client of the Prometheus HTTP API (also served by
// Thanos, Mimir and VictoriaMetrics): it sends form-encoded POSTs and
// remote-read requests and hands the body of a 200 answer to the caller's
// decoder. It owns everything about talking to the server and nothing
// about what is asked: authentication (bearer token, basic auth, headers),
// TLS, gzip, the limit on requests in flight, timeouts, retries with
// backoff and Retry-After, a retry budget and a circuit breaker shared by
// all requests, redirects that keep the method and never carry
// credentials to another origin, a bound on answer size, and the
// classification of failures (Kind) that the CLI maps to exit codes.
//
// URLs are shown only through Display: passwords redacted, query strings
// left out. Secrets (token, password, header values) never appear in an
// error.
//
// It imports only the standard library; it must not import the decoders
// (wire), the query planner (query) or gpuwise's core.
package api
