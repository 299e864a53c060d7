package app

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/gpuwise/gpuwise/internal/cluster"
	"github.com/gpuwise/gpuwise/internal/sim"
	"github.com/gpuwise/gpuwise/internal/snapshot"
)

// Source says where a use case reads its snapshot: at most one of File,
// Prometheus, Demo and Snapshot; with none of them, the live cluster's
// inventory through Kube. Default windows: Prometheus 7 days, the simulator its own
// (7 days), the live cluster the use case's (a day for reports, an hour
// for the audit), a file its own.
type Source struct {
	// File is a snapshot written by collect or a saved demo.
	File string
	// Clusters are snapshot files of several clusters, merged into one
	// snapshot (see readClusters); report --by cluster splits them again.
	Clusters []ClusterFile
	// MaxSnapshotBytes bounds File's (and each of Clusters') decompressed
	// size; the node, pod and series limits grow with it
	// (snapshot.ReadOptions.WithMaxBytes). 0: DefaultMaxSnapshotBytes.
	MaxSnapshotBytes int64
	// Prometheus reads the whole snapshot from Prometheus history.
	Prometheus *PromSource
	// Demo simulates the embedded cluster.
	Demo *DemoSource
	// Kube reaches the live cluster (inventory only: usage unmeasured).
	Kube KubeSource
	// Snapshot is one a front end already holds (the service's current
	// window): used as it is, never modified, so requests may share it.
	Snapshot *InMemory
}

// InMemory is a prepared snapshot held in memory and what its reading
// lacked.
type InMemory struct {
	Prepared *cluster.Prepared
	// Partial, when set, says what could not be read (results on it are
	// marked partial, as with a partial Prometheus read).
	Partial error

	// analyses are the snapshot's shared analyses, by loaded prices.
	mu       sync.Mutex
	analyses map[*Prices]*Analysis
}

// DemoSource steers the simulated cluster.
type DemoSource struct {
	Seed uint64
	// Scale multiplies the cluster (1..1000).
	Scale int
	// Shift moves the simulated window back in time (report --compare:
	// the cluster a period earlier). A shifted window is simulated with
	// a seed derived from the shift, so that two weeks differ as real
	// weeks do rather than repeat each other sample for sample.
	Shift time.Duration
}

// DefaultMaxSnapshotBytes is the default bound on a snapshot file's
// decompressed size (snapshot.DefaultMaxBytes).
const DefaultMaxSnapshotBytes = snapshot.DefaultMaxBytes

// DefaultDemo is the simulation `gpuwise demo` runs.
func DefaultDemo() *DemoSource { return &DemoSource{Seed: sim.DefaultConfig().Seed, Scale: 1} }

// maxDemoScale bounds --scale: 1,000 cells are about 96,000 GPUs.
const maxDemoScale = 1000

// loaded is a prepared snapshot; partial, when set, says what could not be
// read (the result is still written, then marked partial). own is the
// writable snapshot behind snap when the use case read it itself (a
// file, Prometheus, the simulator, the live cluster): the one handle that
// may release parts of it (Analysis.release). A snapshot a front end holds
// (InMemory) comes without one.
type loaded struct {
	snap    *cluster.Prepared
	own     *cluster.Snapshot
	partial error
}

func (s Source) validate(p *problems) {
	n := 0
	for _, set := range []bool{s.File != "", len(s.Clusters) > 0, s.Prometheus != nil, s.Demo != nil, s.Snapshot != nil} {
		if set {
			n++
		}
	}
	if n > 1 {
		p.add(fmt.Errorf("one source at a time: pass --from FILE, --prometheus URL or --demo"))
	}
	if s.MaxSnapshotBytes < 0 {
		p.add(fmt.Errorf("max-snapshot-bytes: %d is negative", s.MaxSnapshotBytes))
	}
	if s.Demo != nil && (s.Demo.Scale < 1 || s.Demo.Scale > maxDemoScale) {
		p.add(fmt.Errorf("scale: %d is outside 1..%d", s.Demo.Scale, maxDemoScale))
	}
	if s.Prometheus != nil {
		s.Prometheus.validate(p)
	}
	if s.Snapshot != nil && s.Snapshot.Prepared == nil {
		p.add(fmt.Errorf("no snapshot yet: the first cycle has not finished"))
	}
	if s.File == "" && len(s.Clusters) == 0 && s.Prometheus == nil && s.Demo == nil && s.Snapshot == nil {
		s.Kube.validate(p)
	}
}

// read reads the raw snapshot for a window (0: the source's default, live
// the default for the live cluster); partial is set when Prometheus
// answered only in part.
func (a *App) read(ctx context.Context, s Source, window, live time.Duration) (snap *cluster.Snapshot, partial, err error) {
	switch {
	case s.combinesAPI():
		return a.fromCombined(ctx, s, window)
	case s.Prometheus != nil:
		a.progress.phase("reading Prometheus")
		return a.fromPrometheus(ctx, s.Prometheus, window)
	case s.Demo != nil:
		a.progress.phase("simulating cluster")
		snap, err = simulate(s.Demo, window, a.progress)
		return snap, nil, err
	case s.File != "":
		a.progress.phase("reading snapshot " + s.File)
		snap, err = readFile(s.File, s.MaxSnapshotBytes, window)
		return snap, nil, err
	case len(s.Clusters) > 0:
		snap, err = readClusters(s.Clusters, s.MaxSnapshotBytes, window)
		return snap, nil, err
	}
	if window == 0 {
		window = live
	}
	snap, err = a.liveSnapshot(ctx, s.Kube, window)
	return snap, nil, err
}

// load reads and prepares the snapshot: every use case computes on a
// prepared one.
func (a *App) load(ctx context.Context, s Source, window, live time.Duration) (*loaded, error) {
	ctx = orBackground(ctx)
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if s.Snapshot != nil {
		return s.Snapshot.load(window)
	}
	snap, partial, err := a.read(ctx, s, window, live)
	if err != nil {
		return nil, err
	}
	a.progress.phase("checking snapshot")
	prep, err := Prepare(snap)
	if err != nil {
		return nil, err
	}
	return &loaded{snap: prep, own: snap, partial: partial}, nil
}

// Prepare checks a snapshot (cluster.Prepare): an inconsistent one is an
// Input error listing every problem.
func Prepare(s *cluster.Snapshot) (*cluster.Prepared, error) {
	p, err := cluster.Prepare(s)
	if err != nil {
		return nil, withKind(Input, fmt.Errorf("snapshot is inconsistent: %w", err))
	}
	return p, nil
}

// load checks the window as readFile does: the snapshot holds usage for
// its own window only.
func (m *InMemory) load(window time.Duration) (*loaded, error) {
	w := m.Prepared.Window()
	if have := w.End.Sub(w.Start); window != 0 && window != have {
		return nil, usageErrorf("window: the snapshot holds usage summaries for %s; a different window (%s) is not available", FormatWindow(have), FormatWindow(window))
	}
	return &loaded{snap: m.Prepared, partial: m.Partial}, nil
}

func simulate(d *DemoSource, window time.Duration, progress Progress) (*cluster.Snapshot, error) {
	cfg := sim.DefaultConfig()
	cfg.Seed, cfg.Scale, cfg.Progress = d.Seed, d.Scale, progress
	if window > 0 {
		cfg.Window = window
	}
	cfg.Start = cfg.Start.Add(-d.Shift)
	if d.Shift != 0 {
		cfg.Seed ^= uint64(d.Shift / time.Second)
	}
	snap, err := sim.Generate(cfg)
	if err != nil {
		return nil, fmt.Errorf("simulating cluster: %w", err)
	}
	return snap, nil
}

func readFile(path string, maxBytes int64, window time.Duration) (*cluster.Snapshot, error) {
	opts := snapshot.DefaultReadOptions()
	if maxBytes > 0 {
		opts = opts.WithMaxBytes(maxBytes)
	}
	snap, err := opts.ReadFile(path)
	if err != nil {
		return nil, withKind(Input, err)
	}
	if have := snap.Window.End.Sub(snap.Window.Start); window != 0 && window != have {
		return nil, usageErrorf("window: %s holds usage summaries for %s; a different --window (%s) needs a new collect", path, have, window)
	}
	return snap, nil
}

// SaveSnapshot writes a snapshot file (the current snapshot format); a
// failure is an Output error.
func SaveSnapshot(path string, s *cluster.Snapshot) error {
	return withKind(Output, snapshot.WriteFile(path, s))
}
