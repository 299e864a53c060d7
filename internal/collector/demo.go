package collector

import (
	"context"
	"fmt"
	"math"
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
func (s *Collector) startDemo(ctx context.Context) error {
	if err := s.recordDemo(ctx); err != nil {
		return err
	}
	prep, err := app.DemoSnapshotKept(s.opts.Demo)
	if err != nil {
		return err
	}
	snap := prep.View() // read-only: the static inventory of every cycle
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
// time, in passes of a day (each simulates the week again and keeps only
// that day's hourly usage: at scale 104 the whole week's hourly usage at
// once peaks at several GiB, and the runtime keeps its bookkeeping for the
// peak heap), dropping each hour's usage once it is recorded.
func (s *Collector) recordDemo(ctx context.Context) error {
	const perPass = 24
	for first := 0; ; first += perPass {
		prep, spans, err := app.DemoSpansIn(s.opts.Demo, time.Hour, first, first+perPass)
		if err != nil {
			return err
		}
		for i, sp := range spans {
			spans[i] = nil
			if _, err := s.record(ctx, prep.View(), sp, ""); err != nil {
				return fmt.Errorf("recording the demo history: %w", err)
			}
		}
		if first+perPass >= int(math.Ceil(prep.Window().Hours())) {
			return nil
		}
	}
}
