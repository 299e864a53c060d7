package serve

import (
	"context"
	"fmt"
	"time"

	"github.com/gpuwise/gpuwise/internal/app"
	"github.com/gpuwise/gpuwise/internal/sim"
)

// startDemo simulates the embedded cluster (what `gpuwise demo` reports
// on), records its week hour by hour in the history, and publishes the
// week's state: the API answers exactly what the CLI prints for the demo.
func (s *Service) startDemo(ctx context.Context) error {
	cfg := sim.DefaultConfig()
	cfg.Seed, cfg.Scale = s.opts.Demo.Seed, s.opts.Demo.Scale
	snap, spans, err := sim.Spans(cfg, time.Hour)
	if err != nil {
		return fmt.Errorf("simulating the demo cluster: %w", err)
	}
	s.inv = static{snap}
	for _, sp := range spans {
		if _, err := s.record(ctx, snap, sp, ""); err != nil {
			return fmt.Errorf("recording the demo history: %w", err)
		}
	}
	prep, err := app.Prepare(snap)
	if err != nil {
		return err
	}
	st, err := s.results(ctx, &app.InMemory{Prepared: prep}, snap.Window.End)
	if err != nil {
		return err
	}
	s.publish(st)
	s.cursor = snap.Window.End
	return nil
}
