package app

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/gpuwise/gpuwise/internal/cluster"
	"github.com/gpuwise/gpuwise/internal/prom"
)

// This file is the one place gpuwise calls the Prometheus adapter.

// PromSource reads the whole snapshot (nodes, GPUs, pods, owners, usage)
// from Prometheus (or Thanos, Mimir, VictoriaMetrics) history.
type PromSource struct {
	// Options are the adapter's, with their defaults (prom.Defaults) and
	// every rule (Options.Validate) kept there; the window is set here
	// from the request's length and End. Credential files are read at
	// use; secrets never appear in output or errors.
	prom.Options
	// End is the window's end; zero means now, rounded down to Step.
	End time.Time
}

// DefaultPromSource returns the documented defaults (front ends show them
// in help text).
func DefaultPromSource() PromSource { return PromSource{Options: prom.Defaults()} }

// MaxPromRetries is the most retries of one Prometheus request (more is
// a usage error).
const MaxPromRetries = prom.MaxRetries

// defaultPromWindow is the window read when none is asked for.
const defaultPromWindow = 7 * 24 * time.Hour

// validate adds the options' problems but the window's (its length is
// checked with the request; see validateWindow).
func (s *PromSource) validate(p *problems) {
	o := s.Options
	o.Window = cluster.Window{Start: time.Unix(0, 0), End: time.Unix(1, 0)}
	var oe prom.OptionsError
	if err := o.Validate(); errors.As(err, &oe) {
		for _, msg := range oe {
			p.add(errors.New(msg))
		}
	}
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
	o := s.Options
	o.Window = s.window(length, a.now())
	if a.progress != nil {
		o.Progress = func(done, total int64) { a.progress("reading Prometheus", done, total) }
	}
	snap, err = prom.Build(ctx, o)
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
	var (
		fe *prom.FileError
		oe prom.OptionsError
	)
	if errors.As(err, &fe) {
		return withKind(Input, err)
	}
	if errors.As(err, &oe) {
		return withKind(Usage, err)
	}
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
