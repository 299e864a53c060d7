package cli

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/spf13/pflag"

	"github.com/gpuwise/gpuwise/internal/cluster"
	"github.com/gpuwise/gpuwise/internal/prom"
)

// promFlags are the flags of reading history from Prometheus. Their
// defaults and every rule about them are prom.Options'.
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
	maxSeries    int
	maxLabel     int
	maxResponse  int64
}

func (f *promFlags) register(fs *pflag.FlagSet) {
	d := prom.Defaults()
	fs.StringVar(&f.url, "prometheus", "", "read the whole snapshot from this Prometheus (or Thanos, Mimir, VictoriaMetrics) URL; a password in it is never shown, a query string is refused")
	fs.StringVar(&f.tokenFile, "prometheus-bearer-token-file", "", "file holding a bearer token for Prometheus")
	fs.StringVar(&f.user, "prometheus-user", "", "basic-auth user for Prometheus")
	fs.StringVar(&f.passwordFile, "prometheus-password-file", "", "file holding the basic-auth password")
	fs.StringVar(&f.caFile, "prometheus-ca-file", "", "PEM CA bundle that signs Prometheus' certificate")
	fs.BoolVar(&f.insecure, "prometheus-insecure-skip-verify", false, "do not verify Prometheus' TLS certificate")
	fs.StringArrayVar(&f.headers, "prometheus-header", nil, "extra header KEY=VALUE on every request, e.g. X-Scope-OrgID=team-a (repeatable)")
	fs.DurationVar(&f.timeout, "prometheus-timeout", d.Client.Timeout, "timeout of one Prometheus request")
	fs.IntVar(&f.retries, "prometheus-retries", d.Client.Retries, fmt.Sprintf("retries of a request that timed out or got a 5xx/429, with exponential backoff or the Retry-After asked for (at most %d retries for all requests together; after %d failures to connect in a row no more requests are sent)", d.Client.RetryBudget, d.Client.BreakerFailures))
	fs.IntVar(&f.concurrency, "prometheus-concurrency", d.Client.Concurrency, "Prometheus requests in flight at once")
	fs.DurationVar(&f.step, "step", d.Step, "resolution of usage series from Prometheus; at least the scrape interval")
	fs.StringVar(&f.end, "end", "", "window end for --prometheus, RFC 3339 (default: now, rounded down to --step)")
	fs.IntVar(&f.shardSize, "prometheus-shard-size", d.ShardSize, "nodes per usage query")
	fs.StringVar(&f.read, "prometheus-read", d.Read, "how usage series are read: remote (raw samples by remote read, /api/v1/read with streamed XOR chunks), raw (raw samples by instant queries of range vectors; no per-step evaluation in Prometheus), range (query_range at --step), or auto: raw samples where they come about once a --step (by remote read when the server supports it), range where they are denser")
	fs.StringVar(&f.gzip, "prometheus-gzip", d.Client.Gzip, "ask for gzip answers: auto (on unless Prometheus is on a loopback address), on, off")
	fs.IntVar(&f.maxSeries, "prometheus-max-series", d.Limits.MaxSeries, "most series one Prometheus answer may hold")
	fs.IntVar(&f.maxLabel, "prometheus-max-label-bytes", d.Limits.MaxLabelBytes, "longest label name or value a Prometheus answer may hold")
	fs.Int64Var(&f.maxResponse, "prometheus-max-response-bytes", d.Client.MaxResponseBytes, "largest Prometheus answer, after decompression")
}

// options fills prom.Options from the flags and validates them, listing
// every problem at once (exit 2).
func (f *promFlags) options(now time.Time, length time.Duration) (prom.Options, error) {
	o := prom.Defaults()
	c := &o.Client
	c.URL, c.BearerTokenFile, c.Username, c.PasswordFile, c.CAFile = f.url, f.tokenFile, f.user, f.passwordFile, f.caFile
	c.Insecure, c.Timeout, c.Retries, c.Concurrency, c.Gzip = f.insecure, f.timeout, f.retries, f.concurrency, f.gzip
	c.MaxResponseBytes, o.Limits.MaxSeries, o.Limits.MaxLabelBytes = f.maxResponse, f.maxSeries, f.maxLabel
	o.Step, o.ShardSize, o.Read = f.step, f.shardSize, f.read
	var probs []string
	c.Headers, probs = parseHeaders(f.headers)
	w, err := f.promWindow(length, now)
	if err != nil {
		probs = append(probs, err.Error())
	}
	o.Window = w
	var oe prom.OptionsError
	if err := o.Validate(); errors.As(err, &oe) {
		probs = append(probs, oe...)
	}
	if len(probs) > 0 {
		return o, usageErrorf("%s", strings.Join(probs, "; "))
	}
	return o, nil
}

// parseHeaders reads KEY=VALUE flags; prom.Options checks names and
// values.
func parseHeaders(flags []string) (map[string]string, []string) {
	headers := map[string]string{}
	var probs []string
	for _, h := range flags {
		k, v, ok := strings.Cut(h, "=")
		if !ok || strings.TrimSpace(k) == "" {
			probs = append(probs, fmt.Sprintf("prometheus-header: %q is not KEY=VALUE", h))
			continue
		}
		headers[strings.TrimSpace(k)] = v
	}
	return headers, probs
}

// promWindow is the analysis window ending at --end (or now).
func (f *promFlags) promWindow(length time.Duration, now time.Time) (cluster.Window, error) {
	end := now.UTC()
	if f.step > 0 {
		end = end.Truncate(f.step)
	}
	if f.end != "" {
		t, err := time.Parse(time.RFC3339, f.end)
		if err != nil {
			return cluster.Window{}, fmt.Errorf("end: %q is not an RFC 3339 time (e.g. 2026-11-15T00:00:00Z)", f.end)
		}
		end = t.UTC()
	}
	return cluster.Window{Start: end.Add(-length), End: end}, nil
}

// fromPrometheus builds the snapshot from Prometheus history. A partial
// read returns the snapshot and an error carrying ExitPartial.
func (f *promFlags) fromPrometheus(ctx context.Context, length time.Duration) (*cluster.Snapshot, error) {
	opts, err := f.options(time.Now(), length)
	if err != nil {
		return nil, err
	}
	snap, err := prom.Build(ctx, opts)
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
	var fe *prom.FileError
	if errors.As(err, &fe) {
		return inputError(err)
	}
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
