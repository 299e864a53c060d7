package serve

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/gpuwise/gpuwise/internal/app"
	"github.com/gpuwise/gpuwise/internal/exporter"
	"github.com/gpuwise/gpuwise/internal/history"
	"github.com/gpuwise/gpuwise/internal/rolling"
)

// Service runs the cycles and holds the published state. Create it with
// New; Run drives it and serves HTTP.
type Service struct {
	opts  Options
	app   *app.App
	log   *slog.Logger
	store *history.Store
	inv   Inventory
	acc   *accumulated // the inventory, when it comes from Prometheus
	usage UsageReader  // nil: usage unmeasured
	stop  func()       // stops the sources
	drop  func()       // removes a temporary history (see tempHistory)

	ringMu sync.RWMutex
	ring   *rolling.Ring

	collector *exporter.Collector
	self      *selfMetrics
	totals    *exporter.Totals // owned by the cycle
	cursor    time.Time        // end of the usage read so far
	recorded  time.Time        // end of the last cycle in the history

	state atomic.Pointer[State]
	gen   atomic.Uint64
	cache *resultCache
	scrub *scrubber
	// damaged is the error that showed the history file corrupt (nil
	// while it is sound): /readyz fails with it (issue 31 M7).
	damaged atomic.Pointer[string]
}

// Deps are what a Service is built with besides its options: the use
// cases (with their clock), a logger and the registry its metrics go on.
// Inventory and Usage replace the sources the options name (tests, other
// front ends); nil means the options' own.
type Deps struct {
	App       *app.App
	Log       *slog.Logger
	Registry  prometheus.Registerer
	Inventory Inventory
	Usage     UsageReader
}

// New opens the history, connects the sources and, for --demo, records
// the simulated history and publishes its state. Sources that cannot be
// reached fail here with the app's error kinds.
func New(ctx context.Context, opts Options, d Deps) (*Service, error) {
	if err := opts.Validate(); err != nil {
		return nil, &app.Error{Kind: app.Usage, Err: err}
	}
	ring, err := rolling.NewRing(opts.segment())
	if err != nil {
		return nil, err
	}
	s := &Service{opts: opts, app: d.App, log: d.Log, ring: ring, collector: exporter.NewCollector(),
		totals: exporter.NewTotals(opts.MaxWorkloads), cache: newResultCache(64, 64<<20), stop: func() {}, drop: func() {}}
	if s.log == nil {
		s.log = slog.New(slog.DiscardHandler)
	}
	s.scrub = newScrubber(opts)
	s.log = slog.New(scrubHandler{next: s.log.Handler(), s: s.scrub})
	if err := s.openHistory(ctx); err != nil {
		return nil, err
	}
	if err := s.register(d.Registry); err != nil {
		s.store.Close()
		s.drop()
		return nil, err
	}
	if err := s.connect(ctx, d); err != nil {
		s.store.Close()
		s.drop()
		return nil, err
	}
	return s, nil
}

func (s *Service) openHistory(ctx context.Context) error {
	path := s.opts.HistoryPath
	if path == "" {
		path = s.tempHistory()
	}
	st, err := history.Open(ctx, path)
	if err != nil {
		s.drop()
		return &app.Error{Kind: app.Input, Err: err}
	}
	s.store = st
	if err := s.resume(ctx); err != nil {
		st.Close()
		s.drop()
		return err
	}
	return nil
}

// tempHistory is where the history lives without --history: a file in a
// new temporary directory, removed by Close (lost on restart, as an
// in-memory one is). On disk rather than in memory because SQLite keeps an
// in-memory database's pages in the process, at about twice the file's
// size (0.7 GB of RSS for --demo --scale 104), where a file's pages are
// the kernel's page cache. Without a temporary directory it stays in
// memory.
func (s *Service) tempHistory() string {
	dir, err := os.MkdirTemp("", "gpuwise-history-")
	if err != nil {
		s.log.Warn("no temporary directory for the history: keeping it in memory", "err", err)
		return history.InMemory
	}
	s.drop = func() { os.RemoveAll(dir) }
	return filepath.Join(dir, "history.db")
}

// resume finds where the history ends, so that a restarted service
// records only what it lacks. The counters start at zero in every process
// (increase() and rate() handle the reset); restoring them from the store
// could make them step back by a rounding error, which Prometheus would
// take for a reset and count the whole history again.
func (s *Service) resume(ctx context.Context) error {
	last, err := s.store.Last(ctx, s.opts.Cluster)
	if err != nil {
		return &app.Error{Kind: app.Input, Err: err}
	}
	s.recorded = last
	return nil
}

// connect starts the sources: the simulator, informers, Prometheus.
func (s *Service) connect(ctx context.Context, d Deps) error {
	if s.opts.Demo != nil {
		return s.startDemo(ctx)
	}
	if s.opts.Prometheus != nil {
		s.usage = promReader{app: s.app, src: *s.opts.Prometheus}
	}
	if d.Usage != nil {
		s.usage = d.Usage
	}
	if d.Inventory != nil {
		s.inv = d.Inventory
		return nil
	}
	if s.opts.Inventory == InventoryPrometheus {
		s.acc = newAccumulated()
		s.inv = s.acc
		return nil
	}
	wctx, cancel := context.WithTimeout(ctx, 2*time.Minute)
	defer cancel()
	w, err := s.app.Watch(wctx, s.opts.Kube)
	if err != nil {
		return err
	}
	s.inv, s.stop = watched{w}, w.Stop
	return nil
}

// Close stops the sources and closes the history (removing it when it
// was a temporary one).
func (s *Service) Close() error {
	s.stop()
	err := s.store.Close()
	s.drop()
	return err
}

// HistoryPath is the history database's file as given ("": a temporary
// file, removed on Close).
func (s *Service) HistoryPath() string { return s.opts.HistoryPath }

// State is the published state, nil before the first cycle finished.
func (s *Service) State() *State { return s.state.Load() }

// publish makes st the state every request and scrape sees.
func (s *Service) publish(st *State) {
	st.Generation = s.gen.Add(1)
	s.state.Store(st)
	s.collector.Publish(st.Frame)
	s.cache.reset(st.Generation)
}

// Run runs a cycle every Interval until ctx ends (the demo runs none).
func (s *Service) Run(ctx context.Context) {
	if s.opts.Demo != nil {
		<-ctx.Done()
		return
	}
	t := time.NewTicker(s.opts.Interval)
	defer t.Stop()
	for {
		s.Cycle(ctx)
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

// Cycle runs one cycle (see cycle), counts it and logs its outcome; a
// failure keeps the last state, marked stale. The error it returns has
// the service's secrets scrubbed.
func (s *Service) Cycle(ctx context.Context) error {
	start := time.Now()
	res, err := s.cycle(ctx)
	if err != nil && !errors.Is(err, errCanceled) {
		err = errors.New(s.scrub.text(err.Error()))
	}
	dur := time.Since(start)
	s.self.observe(res, err, dur, s.app.Now())
	switch {
	case errors.Is(err, errCanceled):
	case err != nil:
		s.log.Error("cycle failed; serving the last good result", "err", err, "seconds", dur.Seconds())
	default:
		s.log.Info("cycle", "window_end", res.windowEnd, "intervals_read", res.reads, "recorded", res.recorded,
			"partial", errString(res.partial), "seconds", dur.Seconds())
	}
	return err
}

func errString(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

// errCanceled is a cycle stopped by shutdown, neither success nor failure.
var errCanceled = context.Canceled

// cycleResult is what one cycle did.
type cycleResult struct {
	windowEnd time.Time
	reads     int
	recorded  int
	partial   error
}

func (c cycleResult) String() string {
	return fmt.Sprintf("window end %s, %d reads, %d recorded", c.windowEnd, c.reads, c.recorded)
}
