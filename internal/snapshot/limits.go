package snapshot

import (
	"errors"
	"fmt"
	"sync/atomic"
)

// ReadOptions bounds what reading a snapshot may cost, so that a corrupt
// or hostile file (a small gzip that inflates to gigabytes, a label value
// of half a gigabyte, millions of tiny series) fails with a LimitError
// instead of exhausting memory. The zero value is not useful: start from
// DefaultReadOptions.
type ReadOptions struct {
	// MaxBytes bounds the snapshot's decompressed size: the JSON text of
	// a version 1 file, the frames' payloads of a version 2 file.
	MaxBytes int64
	// MaxStringBytes bounds any one string (a name, label, note).
	MaxStringBytes int
	// MaxNodes, MaxPods and MaxSeries bound the number of nodes, pods and
	// usage series (GPU activity, CPU, memory and framebuffer summaries,
	// each up to about 1 KB in memory).
	MaxNodes, MaxPods, MaxSeries int
}

// Default limits: about 2.5 times a 10,000-GPU cluster (the demo at scale
// 104: 1,872 nodes, 57,837 pods, 419,133 series; 134 MB as version 1 JSON,
// 44 MB of version 2 frames) and twice the 10,000 nodes the planner is
// benchmarked at. At these limits the series take at most about 1 GB in
// memory (each at most 968 B) and the rest a few hundred MB; a larger
// cluster needs a larger MaxBytes (WithMaxBytes).
const (
	DefaultMaxBytes       = 256 << 20
	DefaultMaxStringBytes = 64 << 10
	DefaultMaxNodes       = 20_000
	DefaultMaxPods        = 200_000
	DefaultMaxSeries      = 1_000_000
)

// DefaultReadOptions returns the default limits.
func DefaultReadOptions() ReadOptions {
	return ReadOptions{MaxBytes: DefaultMaxBytes, MaxStringBytes: DefaultMaxStringBytes,
		MaxNodes: DefaultMaxNodes, MaxPods: DefaultMaxPods, MaxSeries: DefaultMaxSeries}
}

// WithMaxBytes returns o with MaxBytes set to n and, when n is above the
// default, the node, pod and series limits raised in proportion, so that
// one setting (gpuwise's --max-snapshot-bytes) admits a larger cluster.
// The string limit stays: no Kubernetes name or label comes near it.
func (o ReadOptions) WithMaxBytes(n int64) ReadOptions {
	o.MaxBytes = n
	if n > DefaultMaxBytes {
		scale := func(v int) int { return int(min(int64(v)*(n/DefaultMaxBytes), 1<<40)) }
		o.MaxNodes, o.MaxPods, o.MaxSeries = scale(DefaultMaxNodes), scale(DefaultMaxPods), scale(DefaultMaxSeries)
	}
	return o
}

// ErrLimit is wrapped by every LimitError.
var ErrLimit = errors.New("snapshot limit exceeded")

// LimitError reports a snapshot past one of ReadOptions' limits.
type LimitError struct {
	// What was too large ("the decompressed snapshot", "pods").
	What string
	// Field is the ReadOptions field that bounds it; Limit its value.
	Field string
	Limit int64
	// Got is the size or count seen (at least Limit+1 when counting
	// stopped at the limit).
	Got int64
}

func limitErr(what string, got int64, field string, limit int64) *LimitError {
	return &LimitError{What: what, Field: field, Limit: limit, Got: got}
}

func (e *LimitError) Error() string {
	unit := ""
	if e.Field == "MaxBytes" || e.Field == "MaxStringBytes" {
		unit = " bytes"
	}
	if e.Field == "MaxStringBytes" {
		// WithMaxBytes leaves this limit alone, so no flag raises it: a
		// string this long is no Kubernetes name, label or note.
		return fmt.Sprintf("%s: %s is over the limit of %d%s (ReadOptions.%s; no flag raises it: no Kubernetes name, label or note is this long, so the file is damaged or was not written by gpuwise)",
			ErrLimit, e.What, e.Limit, unit, e.Field)
	}
	return fmt.Sprintf("%s: %s is over the limit of %d%s (ReadOptions.%s; gpuwise --max-snapshot-bytes raises the limits)",
		ErrLimit, e.What, e.Limit, unit, e.Field)
}

// Unwrap makes errors.Is(err, ErrLimit) hold.
func (e *LimitError) Unwrap() error { return ErrLimit }

// budget counts what a read has decoded against its limits; frames decoded
// in parallel share it.
type budget struct {
	opts   ReadOptions
	series atomic.Int64
}

// addSeries counts n series, failing past MaxSeries.
func (b *budget) addSeries(n int) error {
	if got := b.series.Add(int64(n)); got > int64(b.opts.MaxSeries) {
		return limitErr("the number of usage series", got, "MaxSeries", int64(b.opts.MaxSeries))
	}
	return nil
}
