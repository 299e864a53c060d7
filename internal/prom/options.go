package prom

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/gpuwise/gpuwise/internal/cluster"
	"github.com/gpuwise/gpuwise/internal/prom/api"
	"github.com/gpuwise/gpuwise/internal/prom/wire"
)

// Options are everything a read of Prometheus needs: how to reach it
// (Client), how much one answer may hold (Limits) and what to read.
// Defaults holds every default, and Validate every rule, once: callers
// (the CLI) start from Defaults, set what they were told and call
// Validate.
type Options struct {
	Client api.Config
	Limits wire.Limits
	Window cluster.Window
	// Step is the resolution of usage series: each query_range point
	// stands for Step seconds, each raw sample for the time to its series'
	// next one, at most Step. Use at least the scrape interval.
	Step time.Duration
	// InfoStep is the resolution of kube_pod_info, whose first and last
	// points bound a pod whose end has no timestamp.
	InfoStep time.Duration
	// MaxSteps caps the points per series of one request; 0 is one day of
	// steps (never more than Prometheus' 11,000 points).
	MaxSteps int
	// ShardSize is how many nodes one usage request covers.
	ShardSize int
	// Read is how usage series are read: "raw" reads raw samples with
	// instant queries of range vectors, each sample standing for the time
	// to the series' next one (at most Step); "range" reads query_range at
	// Step, each point standing for Step; "remote" reads the raw samples
	// by remote read (/api/v1/read, streamed XOR chunks), the whole window
	// per request, with the same weighting; "auto" probes the samples of
	// the last probeSteps steps of each source (DCGM, cAdvisor) and reads
	// it raw when they come about once a step, by remote read if the
	// server answers it with streamed chunks, range otherwise.
	Read string
	// Progress, when set, is told the usage and fact requests done of
	// those queued so far (the total grows as the build's stages queue
	// theirs). It observes and never changes a result.
	Progress func(done, total int64)
	// HourSums keeps the hourly series' raw sums on the snapshot
	// (cluster.Snapshot.HourSums) beside the built series, for a caller
	// that merges reads of adjacent intervals (the service's rolling
	// window). The window must then start on the hour or stay inside one.
	HourSums bool
	// Deadline bounds a whole read, every request and retry together: a
	// read still going then ends with an Unreachable error naming it.
	Deadline time.Duration
}

// MaxRetries is the most retries one request may have (api.MaxRetries).
const MaxRetries = api.MaxRetries

// Ways of reading usage series (Options.Read).
const (
	ReadAuto   = "auto"
	ReadRaw    = "raw"
	ReadRange  = "range"
	ReadRemote = "remote"
)

// ReadModes are the values of Options.Read.
var ReadModes = []string{ReadAuto, ReadRemote, ReadRaw, ReadRange}

// Defaults are the options gpuwise reads with unless told otherwise (no
// URL, no window: those are the caller's).
func Defaults() Options {
	return Options{
		Client:    api.DefaultConfig(),
		Deadline:  30 * time.Minute,
		Limits:    wire.Limits{MaxSeries: 1_000_000, MaxLabelBytes: 64 << 10},
		Step:      5 * time.Minute,
		InfoStep:  time.Hour,
		ShardSize: 16,
		Read:      ReadAuto,
	}
}

// OptionsError lists every problem of Options, each named as the CLI
// spells the option (the flag without its dashes).
type OptionsError []string

func (e OptionsError) Error() string { return strings.Join(e, "; ") }

// Validate returns every problem of o as an OptionsError, or nil.
func (o Options) Validate() error {
	var probs OptionsError
	var ce api.ConfigError
	if err := o.Client.Validate(); errors.As(err, &ce) {
		probs = append(probs, ce...)
	}
	add := func(ok bool, format string, args ...any) {
		if !ok {
			probs = append(probs, fmt.Sprintf(format, args...))
		}
	}
	add(o.Step >= time.Second, "step: %s is shorter than 1s", o.Step)
	add(o.Deadline > 0, "prometheus-deadline: %s is not positive", o.Deadline)
	add(o.InfoStep >= time.Second, "InfoStep: %s is shorter than 1s", o.InfoStep)
	add(o.MaxSteps >= 0, "MaxSteps: %d is negative", o.MaxSteps)
	add(o.ShardSize >= 1 && o.ShardSize <= 1000, "prometheus-shard-size: %d is not between 1 and 1000", o.ShardSize)
	add(isReadMode(o.Read), "prometheus-read: %q is not %s", o.Read, strings.Join(ReadModes, ", "))
	add(o.Limits.MaxSeries >= 1000, "prometheus-max-series: %d is below 1000", o.Limits.MaxSeries)
	add(o.Limits.MaxLabelBytes >= 1024, "prometheus-max-label-bytes: %d is below 1024", o.Limits.MaxLabelBytes)
	add(o.Window.End.After(o.Window.Start), "window: its end (%s) is not after its start (%s)",
		o.Window.End.Format(time.RFC3339), o.Window.Start.Format(time.RFC3339))
	if len(probs) > 0 {
		return probs
	}
	return nil
}

func isReadMode(s string) bool {
	for _, m := range ReadModes {
		if s == m {
			return true
		}
	}
	return false
}

// maxSteps is the points per series of one request.
func (o Options) maxSteps() int {
	if o.MaxSteps > 0 {
		return o.MaxSteps
	}
	return int(24 * time.Hour / o.Step)
}
