package serve

import (
	"context"
	"fmt"
	"time"

	"github.com/gpuwise/gpuwise/internal/app"
)

// startDemo simulates the embedded cluster (what `gpuwise demo` reports
// on), records its week hour by hour in the history, and publishes the
// week's state: the API answers exactly what the CLI prints for the demo.
func (s *Service) startDemo(ctx context.Context) error {
	prep, spans, err := app.DemoSpans(s.opts.Demo, time.Hour)
	if err != nil {
		return err
	}
	snap := prep.Snapshot
	s.inv = static{snap}
	for _, sp := range spans {
		if _, err := s.record(ctx, snap, sp, ""); err != nil {
			return fmt.Errorf("recording the demo history: %w", err)
		}
	}
	st, err := s.results(ctx, &app.InMemory{Prepared: prep}, snap.Window.End)
	if err != nil {
		return err
	}
	s.publish(st)
	s.cursor = snap.Window.End
	return nil
}
