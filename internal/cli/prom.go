package cli

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/spf13/pflag"

	"github.com/gpuwise/gpuwise/internal/cluster"
	"github.com/gpuwise/gpuwise/internal/prom"
)

// promFlags are the flags of reading history from Prometheus.
type promFlags struct {
	url          string
	tokenFile    string
	user         string
	passwordFile string
	caFile       string
	insecure     bool
	headers      []string
	timeout      time.Duration
	retries      int
	concurrency  int
	step         time.Duration
	end          string
	shardSize    int
	gzip         string
	read         string
}

func (f *promFlags) register(fs *pflag.FlagSet) {
	fs.StringVar(&f.url, "prometheus", "", "read the whole snapshot from this Prometheus (or Thanos, Mimir, VictoriaMetrics) URL")
	fs.StringVar(&f.tokenFile, "prometheus-bearer-token-file", "", "file holding a bearer token for Prometheus")
	fs.StringVar(&f.user, "prometheus-user", "", "basic-auth user for Prometheus")
	fs.StringVar(&f.passwordFile, "prometheus-password-file", "", "file holding the basic-auth password")
	fs.StringVar(&f.caFile, "prometheus-ca-file", "", "PEM CA bundle that signs Prometheus' certificate")
	fs.BoolVar(&f.insecure, "prometheus-insecure-skip-verify", false, "do not verify Prometheus' TLS certificate")
	fs.StringArrayVar(&f.headers, "prometheus-header", nil, "extra header KEY=VALUE on every request, e.g. X-Scope-OrgID=team-a (repeatable)")
	fs.DurationVar(&f.timeout, "prometheus-timeout", 2*time.Minute, "timeout of one Prometheus request")
	fs.IntVar(&f.retries, "prometheus-retries", 3, "retries of a request that timed out or got a 5xx, with exponential backoff")
	fs.IntVar(&f.concurrency, "prometheus-concurrency", 4, "Prometheus requests in flight at once")
	fs.DurationVar(&f.step, "step", 5*time.Minute, "resolution of usage series from Prometheus; at least the scrape interval")
	fs.StringVar(&f.end, "end", "", "window end for --prometheus, RFC 3339 (default: now, rounded down to --step)")
	fs.IntVar(&f.shardSize, "prometheus-shard-size", 16, "nodes per usage query")
	fs.StringVar(&f.read, "prometheus-read", prom.ReadAuto, "how usage series are read: remote (raw samples by remote read, /api/v1/read with streamed XOR chunks), raw (raw samples by instant queries of range vectors; no per-step evaluation in Prometheus), range (query_range at --step), or auto: raw samples where they come about once a --step (by remote read when the server supports it), range where they are denser")
	fs.StringVar(&f.gzip, "prometheus-gzip", "auto", "ask for gzip answers: auto (on unless Prometheus is on a loopback address), on, off")
}

// config checks the flags and builds the client config, listing every
// problem at once.
func (f *promFlags) config() (prom.Config, error) {
	cfg := prom.Config{URL: f.url, BearerTokenFile: f.tokenFile, Username: f.user, CAFile: f.caFile,
		Insecure: f.insecure, Timeout: f.timeout, Retries: f.retries, Concurrency: f.concurrency, Gzip: f.gzip, Headers: map[string]string{}}
	var probs []string
	for _, h := range f.headers {
		k, v, ok := strings.Cut(h, "=")
		if !ok || strings.TrimSpace(k) == "" {
			probs = append(probs, fmt.Sprintf("prometheus-header: %q is not KEY=VALUE", h))
			continue
		}
		cfg.Headers[strings.TrimSpace(k)] = v
	}
	if f.step < time.Second {
		probs = append(probs, fmt.Sprintf("step: %s is shorter than 1s", f.step))
	}
	if f.read != prom.ReadAuto && f.read != prom.ReadRemote && f.read != prom.ReadRaw && f.read != prom.ReadRange {
		probs = append(probs, fmt.Sprintf("prometheus-read: %q is not auto, remote, raw or range", f.read))
	}
	if f.retries < 0 || f.concurrency < 1 || f.shardSize < 1 {
		probs = append(probs, "prometheus-retries must be ≥ 0, prometheus-concurrency and prometheus-shard-size ≥ 1")
	}
	if len(probs) > 0 {
		return cfg, usageErrorf("%s", strings.Join(probs, "; "))
	}
	if f.passwordFile != "" {
		b, err := os.ReadFile(f.passwordFile)
		if err != nil {
			return cfg, inputError(fmt.Errorf("reading prometheus password: %w", err))
		}
		cfg.Password = strings.TrimSpace(string(b))
	}
	return cfg, nil
}

// window is the analysis window ending at --end (or now).
func (f *promFlags) promWindow(length time.Duration, now time.Time) (cluster.Window, error) {
	end := now.UTC().Truncate(f.step)
	if f.end != "" {
		t, err := time.Parse(time.RFC3339, f.end)
		if err != nil {
			return cluster.Window{}, usageErrorf("end: %q is not an RFC 3339 time (e.g. 2026-11-15T00:00:00Z)", f.end)
		}
		end = t.UTC()
	}
	return cluster.Window{Start: end.Add(-length), End: end}, nil
}

// fromPrometheus builds the snapshot from Prometheus history. A partial
// read returns the snapshot and an error carrying ExitPartial.
func (f *promFlags) fromPrometheus(ctx context.Context, length time.Duration) (*cluster.Snapshot, error) {
	cfg, err := f.config()
	if err != nil {
		return nil, err
	}
	w, err := f.promWindow(length, time.Now())
	if err != nil {
		return nil, err
	}
	c, err := prom.New(cfg)
	if err != nil {
		return nil, inputError(err)
	}
	snap, err := prom.Build(ctx, c, prom.Options{Window: w, Step: f.step, ShardSize: f.shardSize, Read: f.read})
	var partial *prom.PartialError
	switch {
	case err == nil:
		return snap, nil
	case errors.As(err, &partial) && snap != nil:
		return snap, withCode(ExitPartial, fmt.Errorf("report is partial: %w", err))
	}
	return nil, promError(err)
}

// promError maps a Prometheus failure to its exit code.
func promError(err error) error {
	kind, ok := prom.KindOf(err)
	switch {
	case !ok:
		return err
	case kind == prom.Unreachable:
		return withCode(ExitUnreachable, err)
	case kind == prom.Denied:
		return withCode(ExitDenied, err)
	}
	return inputError(err)
}
