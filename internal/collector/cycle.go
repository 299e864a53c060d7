package collector

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/gpuwise/gpuwise/internal/app"
	"github.com/gpuwise/gpuwise/internal/cluster"
	"github.com/gpuwise/gpuwise/internal/rolling"
)

// cycle brings the service up to now: it reads the intervals not read yet
// (only those: at start the window, then the new interval), records each
// in the history, rebuilds the window and publishes the results. When a
// source fails it stops reading there (the next cycle resumes from the
// same point) and publishes what it has, marked partial; when nothing new
// could be built, the last state stays, marked stale.
func (s *Collector) cycle(ctx context.Context) (cycleResult, error) {
	now := s.app.Now()
	end := now.Add(-s.opts.Lag).Truncate(s.opts.Interval)
	res := cycleResult{windowEnd: end}
	inv, err := s.inv.Inventory(ctx, now, s.opts.Window+s.opts.Segment())
	if err != nil {
		return res, s.stale(fmt.Errorf("reading the inventory: %w", err), now)
	}
	var partial []error
	if err := s.inv.Health(); err != nil {
		partial = append(partial, err)
	}
	for _, note := range inv.Partial { // what the inventory could not read (a forbidden API)
		partial = append(partial, errors.New(note))
	}
	if s.cursor.IsZero() {
		s.cursor = s.ring.Align(end.Add(-s.opts.Window))
	}
	pending := s.pending(end)
	for _, w := range pending {
		if err := ctx.Err(); err != nil {
			return res, err
		}
		rec, err := s.readInterval(ctx, inv, w, &partial)
		if err != nil && res.reads == 0 {
			return res, s.stale(err, now) // nothing new: keep the last result
		}
		if err != nil {
			partial = append(partial, err)
			break // resume from here next cycle
		}
		res.reads++
		res.recorded += rec
	}
	if res.recorded > 0 {
		s.prune(ctx, now)
	}
	if s.seen != nil { // the intervals just read carry the inventory
		inv = s.seen.Inventory(now, s.opts.Window+s.opts.Segment())
	}
	res.partial = errors.Join(partial...)
	return res, s.rebuild(ctx, inv, res.partial, now)
}

// pending cuts [cursor, end) into intervals that stay inside one hour and
// one ring segment, and end where the history does, so that each read is
// recorded whole or not at all.
func (s *Collector) pending(end time.Time) []cluster.Window {
	var out []cluster.Window
	for t := s.cursor; t.Before(end); {
		next := t.Truncate(time.Hour).Add(time.Hour)
		if s.recorded.After(t) && s.recorded.Before(next) {
			next = s.recorded
		}
		if end.Before(next) {
			next = end
		}
		out = append(out, cluster.Window{Start: t, End: next})
		t = next
	}
	return out
}

// readInterval reads one interval's usage, adds it to the ring and records
// it in the history when the history does not have it yet; it returns the
// cycles recorded (0 or 1).
func (s *Collector) readInterval(ctx context.Context, inv *cluster.Snapshot, w cluster.Window, partial *[]error) (int, error) {
	span, snap, err := s.read(ctx, w, partial)
	if err != nil {
		return 0, err
	}
	if s.seen != nil {
		s.seen.Absorb(snap)
		inv = snap
	}
	s.ringMu.Lock()
	err = s.ring.Add(span)
	s.ringMu.Unlock()
	if err != nil {
		return 0, err
	}
	s.cursor = w.End
	if w.Start.Before(s.recorded) {
		return 0, nil
	}
	var why string
	if len(*partial) > 0 {
		why = errors.Join(*partial...).Error()
	}
	n, err := s.record(ctx, inv, span, why)
	if err != nil {
		return 0, err
	}
	s.recorded = w.End
	return n, nil
}

// read is one interval's usage (nothing measured without a usage source)
// and the snapshot it came in.
func (s *Collector) read(ctx context.Context, w cluster.Window, partial *[]error) (*rolling.Span, *cluster.Snapshot, error) {
	if s.usage == nil {
		return &rolling.Span{Window: w}, &cluster.Snapshot{Window: w}, nil
	}
	r, err := s.usage.ReadUsage(ctx, w)
	if err != nil {
		return nil, nil, fmt.Errorf("reading usage for %s: %w", w, err)
	}
	if r.Partial != nil {
		*partial = append(*partial, r.Partial)
	}
	snap := r.Snapshot.View() // read-only: the interval's usage and inventory
	span := rolling.Extract(snap)
	span.Window = w
	return span, snap, nil
}

// rebuild computes the window's results and publishes them; with nothing
// read yet it keeps the last state.
func (s *Collector) rebuild(ctx context.Context, inv *cluster.Snapshot, partial error, now time.Time) error {
	if !s.cursor.After(s.ring.Align(s.cursor.Add(-s.opts.Window))) {
		return s.stale(fmt.Errorf("no interval read yet: %w", partial), now)
	}
	w := cluster.Window{Start: s.ring.Align(s.cursor.Add(-s.opts.Window)), End: s.cursor}
	s.ringMu.Lock()
	s.ring.Evict(w.Start)
	s.ringMu.Unlock()
	st, err := s.build(ctx, inv, w, partial, now)
	if err != nil {
		return s.stale(err, now)
	}
	s.publish(st)
	return nil
}

// stale keeps the last state, marked with err; err is returned.
func (s *Collector) stale(err error, now time.Time) error {
	if st := s.State(); st != nil {
		s.publish(st.withStale(err, now))
	}
	return err
}

// windowSnapshot is the inventory with the ring's usage for w.
func (s *Collector) windowSnapshot(inv *cluster.Snapshot, w cluster.Window, partial error) (*app.InMemory, error) {
	s.ringMu.RLock()
	span := s.ring.Window(w)
	s.ringMu.RUnlock()
	prep, err := app.Prepare(rolling.Attach(inv, w, span))
	if err != nil {
		return nil, err
	}
	return &app.InMemory{Prepared: prep, Partial: partial}, nil
}

// prune deletes the history's rows older than the retention, at most once
// an hour. A failure is logged and retried an hour later: the history
// stays correct, only larger.
func (s *Collector) prune(ctx context.Context, now time.Time) {
	if s.opts.HourlyRetention <= 0 && s.opts.DailyRetention <= 0 || now.Sub(s.pruned) < time.Hour {
		return
	}
	s.pruned = now
	var hourly, daily time.Time // zero: nothing is that old
	if s.opts.HourlyRetention > 0 {
		hourly = now.Add(-s.opts.HourlyRetention)
	}
	if s.opts.DailyRetention > 0 {
		daily = now.Add(-s.opts.DailyRetention)
	}
	if err := s.store.Prune(ctx, hourly, daily); err != nil {
		s.log.Warn("history not pruned; retried in an hour", "err", err)
	}
}
