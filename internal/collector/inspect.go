package collector

import (
	"context"
	"time"

	"github.com/gpuwise/gpuwise/internal/cluster"
	"github.com/gpuwise/gpuwise/internal/rolling"
)

// WindowSpan is the ring's merged usage over w, as a rebuild reads it
// (for tests and inspection; the span is the ring's, not to be changed).
func (s *Collector) WindowSpan(w cluster.Window) *rolling.Span {
	s.ringMu.RLock()
	defer s.ringMu.RUnlock()
	return s.ring.Window(w)
}

// WindowHourly is the hourly series of the snapshot a rebuild at now
// computes on for w (the report releases them once read, so a published
// state no longer holds them).
func (s *Collector) WindowHourly(ctx context.Context, now time.Time, w cluster.Window) (*cluster.Hourly, error) {
	inv, err := s.inv.Inventory(ctx, now, s.opts.Window+s.opts.Segment())
	if err != nil {
		return nil, err
	}
	mem, err := s.windowSnapshot(inv, w, nil)
	if err != nil {
		return nil, err
	}
	return mem.Prepared.Hourly(), nil
}
