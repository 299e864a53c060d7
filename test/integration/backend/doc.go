//go:build integration

// Package backend holds what the tiers that read a real metrics backend
// (Prometheus, VictoriaMetrics) share: where the backend's up.sh left its
// state (URL and the simulator's ground truth) and running `gpuwise report`
// in-process for a JSON cost report. Test helpers only; no backend is
// started here (the tiers' hack/*/up.sh scripts do that).
package backend
