package app

import (
	"context"
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/gpuwise/gpuwise/internal/cluster"
	"github.com/gpuwise/gpuwise/internal/prom"
)

// This file is the one place gpuwise calls the Prometheus adapter.

// PromSource reads the whole snapshot (nodes, GPUs, pods, owners, usage)
// from Prometheus (or Thanos, Mimir, VictoriaMetrics) history.
type PromSource struct {
	URL string
	// BearerTokenFile and PasswordFile are read at use; the secrets never
	// appear in output or errors.
	BearerTokenFile string
	User            string
	PasswordFile    string
	CAFile          string
	Insecure        bool
	// Headers are sent with every request (X-Scope-OrgID for Mimir).
	Headers map[string]string
	// Timeout bounds one request; Retries retries a timeout or 5xx with
	// backoff; Concurrency is requests in flight.
	Timeout     time.Duration
	Retries     int
	Concurrency int
	// Step is the usage series' resolution (at least the scrape interval).
	Step time.Duration
	// End is the window's end; zero means now, rounded down to Step.
	End time.Time
	// ShardSize is nodes per usage query.
	ShardSize int
	// Gzip is auto, on or off; Read is auto, remote, raw or range.
	Gzip string
	Read string
}

// DefaultPromSource returns the documented defaults (front ends show them
// in help text).
func DefaultPromSource() PromSource {
	return PromSource{Timeout: 2 * time.Minute, Retries: 3, Concurrency: 4, Step: 5 * time.Minute,
		ShardSize: 16, Gzip: "auto", Read: prom.ReadAuto}
}

// defaultPromWindow is the window read when none is asked for.
const defaultPromWindow = 7 * 24 * time.Hour

var promReads = []string{prom.ReadAuto, prom.ReadRemote, prom.ReadRaw, prom.ReadRange}

func (s *PromSource) validate(p *problems) {
	if s.Step < time.Second {
		p.add(fmt.Errorf("step: %s is shorter than 1s", s.Step))
	}
	if !slices.Contains(promReads, s.Read) {
		p.add(fmt.Errorf("prometheus-read: %q is not auto, remote, raw or range", s.Read))
	}
	if s.Retries < 0 || s.Concurrency < 1 || s.ShardSize < 1 {
		p.add(errors.New("prometheus-retries must be ≥ 0, prometheus-concurrency and prometheus-shard-size ≥ 1"))
	}
}

// config builds the client config, reading the password file.
func (s *PromSource) config() (prom.Config, error) {
	cfg := prom.Config{URL: s.URL, BearerTokenFile: s.BearerTokenFile, Username: s.User, CAFile: s.CAFile,
		Insecure: s.Insecure, Timeout: s.Timeout, Retries: s.Retries, Concurrency: s.Concurrency, Gzip: s.Gzip, Headers: s.Headers}
	if s.PasswordFile != "" {
		b, err := os.ReadFile(s.PasswordFile)
		if err != nil {
			return cfg, withKind(Input, fmt.Errorf("reading prometheus password: %w", err))
		}
		cfg.Password = strings.TrimSpace(string(b))
	}
	return cfg, nil
}

// window is the analysis window of the given length ending at End (or
// now, rounded down to Step).
func (s *PromSource) window(length time.Duration, now time.Time) cluster.Window {
	end := now.UTC().Truncate(s.Step)
	if !s.End.IsZero() {
		end = s.End.UTC()
	}
	return cluster.Window{Start: end.Add(-length), End: end}
}

// fromPrometheus builds the snapshot from Prometheus history. A partial
// read returns the snapshot and partial (the output is still written).
func (a *App) fromPrometheus(ctx context.Context, s *PromSource, length time.Duration) (snap *cluster.Snapshot, partial, err error) {
	if length == 0 {
		length = defaultPromWindow
	}
	cfg, err := s.config()
	if err != nil {
		return nil, nil, err
	}
	c, err := prom.New(cfg)
	if err != nil {
		return nil, nil, withKind(Input, err)
	}
	snap, err = prom.Build(ctx, c, prom.Options{Window: s.window(length, a.now()), Step: s.Step, ShardSize: s.ShardSize, Read: s.Read})
	var pe *prom.PartialError
	switch {
	case err == nil:
		return snap, nil, nil
	case errors.As(err, &pe) && snap != nil:
		return snap, fmt.Errorf("report is partial: %w", err), nil
	}
	return nil, nil, promError(err)
}

// promError classifies a Prometheus failure.
func promError(err error) error {
	kind, ok := prom.KindOf(err)
	switch {
	case !ok:
		return err
	case kind == prom.Unreachable:
		return withKind(Unreachable, err)
	case kind == prom.Denied:
		return withKind(Denied, err)
	}
	return withKind(Input, err)
}
