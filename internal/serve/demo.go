package serve

import (
	"context"
	"fmt"
	"runtime/debug"
	"time"

	"github.com/gpuwise/gpuwise/internal/app"
)

// startDemo simulates the embedded cluster (what `gpuwise demo` reports
// on), records its week hour by hour in the history, and publishes the
// week's state: the API answers exactly what the CLI prints for the demo.
// The snapshot it keeps is simulated again after the history is recorded,
// so that it does not lie scattered among the spans' freed memory, and its
// accumulators are compacted (the simulation grew them with room to
// spare); the freed memory then goes back to the operating system at once
// (at scale 104 the spans peak at several GiB, the service keeps a
// fraction).
func (s *Service) startDemo(ctx context.Context) error {
	if err := s.recordDemo(ctx); err != nil {
		return err
	}
	prep, err := app.DemoSnapshot(s.opts.Demo)
	if err != nil {
		return err
	}
	snap := prep.Snapshot
	snap.CompactUsage()
	s.inv = static{snap}
	st, err := s.results(ctx, &app.InMemory{Prepared: prep}, snap.Window.End)
	if err != nil {
		return err
	}
	s.publish(st)
	s.cursor = snap.Window.End
	debug.FreeOSMemory()
	return nil
}

// recordDemo records the simulated week in the history, one hour at a
// time, dropping each hour's usage once it is recorded.
func (s *Service) recordDemo(ctx context.Context) error {
	prep, spans, err := app.DemoSpans(s.opts.Demo, time.Hour)
	if err != nil {
		return err
	}
	for i, sp := range spans {
		spans[i] = nil
		if _, err := s.record(ctx, prep.Snapshot, sp, ""); err != nil {
			return fmt.Errorf("recording the demo history: %w", err)
		}
	}
	return nil
}
