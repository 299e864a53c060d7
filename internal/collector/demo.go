package collector

import (
	"context"
	"fmt"
	"math"
	"runtime/debug"
	"time"

	"github.com/gpuwise/gpuwise/internal/app"
	"github.com/gpuwise/gpuwise/internal/cluster"
	"github.com/gpuwise/gpuwise/internal/rolling"
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
	changes, err := s.recordDemo(ctx)
	if err != nil {
		return err
	}
	prep, err := app.DemoSnapshotKept(s.opts.Demo, changes)
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
//
// The demo tracks its plan (docs/progress.md): after the first
// DemoBaselineHour hours it pins the tracked plan's baseline on them (the
// hours' usage merged, as a service that started then would have seen
// it). With DemoApplied the baseline ledger's first node removal and spot
// move are carried out in the simulated cluster at DemoAppliedHour; the
// hours after are recorded from the changed cluster, which the service
// then publishes. It returns the changes (none without DemoApplied: the
// demo is then exactly gpuwise demo's cluster).
func (s *Collector) recordDemo(ctx context.Context) ([]app.DemoChange, error) {
	const perPass = 24
	var changes []app.DemoChange
	var early *rolling.Span // the baseline's hours, merged
	for first := 0; ; first += perPass {
		prep, spans, err := app.DemoSpansApplied(s.opts.Demo, time.Hour, first, first+perPass, changes)
		if err != nil {
			return nil, err
		}
		var keep []*rolling.Span // this pass's hours of the baseline
		for i, sp := range spans {
			spans[i] = nil
			if _, err := s.record(ctx, prep.View(), sp, ""); err != nil {
				return nil, fmt.Errorf("recording the demo history: %w", err)
			}
			if first+i < app.DemoBaselineHour {
				keep = append(keep, sp)
			}
			if first+i == app.DemoBaselineHour-1 {
				// one merge per pass: the pass's spans are in memory anyway
				early = rolling.Merge(append([]*rolling.Span{early}, keep...)...)
				keep = nil
				c, err := s.demoBaseline(ctx, prep.View(), early)
				if err != nil {
					return nil, err
				}
				if s.opts.DemoApplied {
					changes = c
				}
				early = nil
			}
		}
		if len(keep) > 0 {
			early = rolling.Merge(append([]*rolling.Span{early}, keep...)...)
		}
		if first+perPass >= int(math.Ceil(prep.Window().Hours())) {
			return changes, nil
		}
	}
}

// demoBaseline observes the demo's first hours as the tracked plan's
// baseline and returns the changes the demo carries out.
func (s *Collector) demoBaseline(ctx context.Context, inv *cluster.Snapshot, early *rolling.Span) ([]app.DemoChange, error) {
	w := cluster.Window{Start: inv.Window.Start, End: inv.Window.Start.Add(app.DemoBaselineHour * time.Hour)}
	early.Window = w
	prep, err := app.Prepare(rolling.Attach(inv, w, early))
	if err != nil {
		return nil, err
	}
	rep := app.DefaultReportRequest()
	rep.Source, rep.Prices = app.Source{Snapshot: &app.InMemory{Prepared: prep}}, s.prices.Load()
	rr, err := s.app.Report(ctx, rep)
	if err != nil {
		return nil, fmt.Errorf("the demo's baseline: %w", err)
	}
	if err := s.hist.ObservePlan(ctx, s.opts.Cluster, prep, rr); err != nil {
		return nil, fmt.Errorf("the demo's baseline: %w", err)
	}
	return app.DemoChanges(rr.Ledger, inv.Window.Start), nil
}
