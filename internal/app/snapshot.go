package app

import (
	"context"
	"fmt"
	"math"
	"time"

	"github.com/gpuwise/gpuwise/internal/cluster"
	"github.com/gpuwise/gpuwise/internal/kube"
	"github.com/gpuwise/gpuwise/internal/ledger"
	"github.com/gpuwise/gpuwise/internal/ledger/lever"
	"github.com/gpuwise/gpuwise/internal/rolling"
	"github.com/gpuwise/gpuwise/internal/sim"
)

// SnapshotResult is a prepared snapshot and what its reading lacked.
type SnapshotResult struct {
	Snapshot *cluster.Prepared
	Partial  error
}

// Snapshot reads and prepares the snapshot the data selection names: the
// service reads one interval of Prometheus history this way (Source
// Prometheus with End at the interval's end, Window its length).
func (a *App) Snapshot(ctx context.Context, d Data) (*SnapshotResult, error) {
	var p problems
	d.Source.validate(&p)
	p.add(validateInterval(d.Window))
	if err := p.err(); err != nil {
		return nil, err
	}
	in, err := a.load(ctx, d.Source, d.Window, liveReportWindow)
	if err != nil {
		return nil, err
	}
	return &SnapshotResult{Snapshot: in.snap, Partial: in.partial}, nil
}

// Watcher is the live cluster kept current (kube.Watcher): snapshots from
// its caches, the health of its watches, and Stop.
type Watcher interface {
	Snapshot(now time.Time, window time.Duration) (*cluster.Snapshot, error)
	Health() error
	Stop()
}

// Watch connects to the live cluster and starts watching it (shared
// informers; read-only); ctx bounds the initial fill of the caches.
// Errors are classified as the one-shot reads' are.
func (a *App) Watch(ctx context.Context, k KubeSource) (Watcher, error) {
	var p problems
	k.validate(&p)
	if err := p.err(); err != nil {
		return nil, err
	}
	c, err := kube.Connect(kube.Options{Kubeconfig: k.Kubeconfig, Context: k.Context, Timeout: k.Timeout})
	if err != nil {
		return nil, kubeError(err)
	}
	w, err := c.Watch(orBackground(ctx), a.now)
	if err != nil {
		return nil, kubeError(err)
	}
	return w, nil
}

// Now is the app's clock, for front ends that schedule work (the
// service's cycles).
func (a *App) Now() time.Time { return a.now() }

// DemoSpans simulates the demo cluster (as Report with Demo does) and
// also cuts its usage into spans of the given length: what a service
// reading it every `every` would have recorded.
func DemoSpans(d *DemoSource, every time.Duration) (*cluster.Prepared, []*rolling.Span, error) {
	return DemoSpansIn(d, every, 0, math.MaxInt)
}

// DemoSpansIn is DemoSpans keeping only the spans numbered first up to
// (not including) last (sim.SpansIn): the service records the demo week a
// day per pass, at a seventh of the memory.
func DemoSpansIn(d *DemoSource, every time.Duration, first, last int) (*cluster.Prepared, []*rolling.Span, error) {
	return DemoSpansApplied(d, every, first, last, nil)
}

// DemoSpansApplied is DemoSpansIn with savings actions carried out in the
// simulated cluster (sim.Apply): the service's demo shows a plan with some
// actions applied (docs/progress.md).
func DemoSpansApplied(d *DemoSource, every time.Duration, first, last int, changes []DemoChange) (*cluster.Prepared, []*rolling.Span, error) {
	var p problems
	Source{Demo: d}.validate(&p)
	if err := p.err(); err != nil {
		return nil, nil, err
	}
	snap, spans, err := sim.SpansIn(demoConfig(d), every, first, last)
	if err != nil {
		return nil, nil, fmt.Errorf("simulating cluster: %w", err)
	}
	if err := sim.ApplySpans(snap, spans, changes); err != nil {
		return nil, nil, err
	}
	prep, err := Prepare(snap)
	if err != nil {
		return nil, nil, err
	}
	return prep, spans, nil
}

// DemoSnapshot simulates the demo cluster as DemoSpans does, without the
// spans: the same snapshot, built apart from the spans' garbage (the
// service keeps it for as long as it runs).
func DemoSnapshot(d *DemoSource) (*cluster.Prepared, error) { return DemoSnapshotApplied(d, nil) }

// DemoSnapshotApplied is DemoSnapshot with the changes carried out.
func DemoSnapshotApplied(d *DemoSource, changes []DemoChange) (*cluster.Prepared, error) {
	return demoSnapshot(d, changes, false)
}

// DemoSnapshotKept is DemoSnapshotApplied with its usage compacted
// (cluster.Snapshot.CompactUsage: no figure changes), for the service,
// which keeps it for as long as it runs. Compacting writes the snapshot,
// so it is done here, by the snapshot's owner, before it is prepared.
func DemoSnapshotKept(d *DemoSource, changes []DemoChange) (*cluster.Prepared, error) {
	return demoSnapshot(d, changes, true)
}

func demoSnapshot(d *DemoSource, changes []DemoChange, compact bool) (*cluster.Prepared, error) {
	var p problems
	Source{Demo: d}.validate(&p)
	if err := p.err(); err != nil {
		return nil, err
	}
	snap, err := sim.Generate(demoConfig(d))
	if err != nil {
		return nil, fmt.Errorf("simulating cluster: %w", err)
	}
	if err := sim.Apply(snap, changes); err != nil {
		return nil, err
	}
	if compact {
		snap.CompactUsage()
	}
	return Prepare(snap)
}

// DemoChange is a savings action carried out in the simulated cluster.
type DemoChange = sim.Change

// DemoAppliedHour is when the service's demo carries out its changes:
// hour 96 of the week, a day after the baseline it pins at hour 72.
const (
	DemoBaselineHour = 72
	DemoAppliedHour  = 96
)

// DemoChanges are the changes the service's demo carries out, from the
// baseline's ledger: its first node removal and its first spot move, at
// hour DemoAppliedHour (the rest of the plan stays pending).
func DemoChanges(l *ledger.Ledger, start time.Time) []DemoChange {
	if l == nil {
		return nil
	}
	at := start.Add(DemoAppliedHour * time.Hour)
	var out []DemoChange
	done := map[string]bool{}
	for i := range l.Actions {
		a := &l.Actions[i]
		kind := map[string]string{lever.KindRemoveNodes: sim.RemoveNode, lever.KindSpot: sim.MoveToSpot}[a.Kind]
		if kind == "" || done[a.Kind] {
			continue
		}
		done[a.Kind] = true
		for _, t := range a.Targets {
			if t.Kind == "node" {
				out = append(out, DemoChange{Kind: kind, Node: t.Name, At: at})
			}
		}
	}
	return out
}

// demoConfig is the simulation DemoSpans and DemoSnapshot run.
func demoConfig(d *DemoSource) sim.Config {
	cfg := sim.DefaultConfig()
	cfg.Seed, cfg.Scale = d.Seed, d.Scale
	return cfg
}

// MinInterval is the shortest window Snapshot reads: the service's cycles
// read intervals of minutes, below the reports' MinWindow.
const MinInterval = time.Minute

// validateInterval checks Snapshot's window: zero (the source's default)
// or between MinInterval and MaxWindow.
func validateInterval(d time.Duration) error {
	if d != 0 && (d < MinInterval || d > MaxWindow) {
		return fmt.Errorf("window: %s is outside %s..%s", FormatWindow(d), FormatWindow(MinInterval), FormatWindow(MaxWindow))
	}
	return nil
}
