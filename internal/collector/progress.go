package collector

import (
	"context"
	"time"

	"github.com/gpuwise/gpuwise/internal/app"
)

// trackPlan adds the window's results to the tracked plan in the history
// and measures what it realised (docs/progress.md). The measurement reads
// the nodes' hourly cost over the plan's span, so it is redone once an
// hour (when a new hour is in the history) or after a mark, not every
// cycle. A failure is logged and leaves the last measurement: the plan is
// not what the cycle publishes first.
func (s *Collector) trackPlan(ctx context.Context, rr *app.ReportResult, mem *app.InMemory) *app.ProgressResult {
	if err := s.hist.ObservePlan(ctx, s.opts.Cluster, mem.Prepared, rr); err != nil {
		s.log.Warn("tracking the savings plan", "err", err)
		return s.lastProgress()
	}
	hour := mem.Prepared.Window().End.Truncate(time.Hour)
	s.progMu.Lock()
	defer s.progMu.Unlock()
	if s.prog != nil && s.progHour.Equal(hour) && !s.progDirty {
		return s.prog
	}
	res, err := s.hist.Progress(ctx, app.ProgressRequest{Cluster: s.opts.Cluster, Path: s.historyName()})
	if err != nil {
		s.log.Warn("measuring the savings plan", "err", err)
		return s.prog
	}
	s.prog, s.progHour, s.progDirty = res, hour, false
	return res
}

func (s *Collector) lastProgress() *app.ProgressResult {
	s.progMu.Lock()
	defer s.progMu.Unlock()
	return s.prog
}

// Progress is the tracked plan as measured now: after a mark it is read
// again from the history (the published state keeps the cycle's).
func (s *Collector) Progress(ctx context.Context) (*app.ProgressResult, error) {
	s.progMu.Lock()
	defer s.progMu.Unlock()
	if s.prog != nil && !s.progDirty {
		return s.prog, nil
	}
	res, err := s.hist.Progress(ctx, app.ProgressRequest{Cluster: s.opts.Cluster, Path: s.historyName()})
	if err != nil {
		return nil, err
	}
	s.prog, s.progDirty = res, false
	return res, nil
}

// Mark records a user's mark on a tracked action (the service's POST).
func (s *Collector) Mark(ctx context.Context, req app.MarkRequest) (*app.TrackedAction, error) {
	req.Cluster = s.opts.Cluster
	a, err := s.app.Mark(ctx, s.hist, req)
	if err != nil {
		return nil, err
	}
	s.progMu.Lock()
	s.progDirty = true
	s.progMu.Unlock()
	return a, nil
}

func (s *Collector) historyName() string {
	if s.opts.HistoryPath == "" {
		return "(temporary)"
	}
	return s.opts.HistoryPath
}
