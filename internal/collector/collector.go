package collector

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

// Collector runs the cycles and holds the published state. Create it
// with New; Run drives it.
type Collector struct {
	opts  Options
	app   *app.App
	log   *slog.Logger
	hist  *app.History
	store *history.Store // hist's, recorded into
	inv   Inventory
	seen  *rolling.Seen // the inventory, when it comes from Prometheus
	usage UsageReader   // nil: usage unmeasured
	stop  func()        // stops the sources
	drop  func()        // removes a temporary history (see tempHistory)
	onPub func(generation uint64)
	// prepare is Deps.Prepare (never nil).
	prepare func(c *Collector, st *State)
	// onRecordErr hears every recording's error (nil too).
	onRecordErr func(error)

	ringMu sync.RWMutex
	ring   *rolling.Ring

	collector *exporter.Collector
	// frames holds only the collector (with the cluster label): gathered
	// once per published frame into exposition, not on every scrape.
	frames     *prometheus.Registry
	exposition atomic.Pointer[exporter.Exposition]
	self       *selfMetrics
	totals     *exporter.Totals // owned by the cycle
	cursor     time.Time        // end of the usage read so far
	recorded   time.Time        // end of the last cycle in the history
	pruned     time.Time        // when the history was last pruned

	progMu    sync.Mutex
	prog      *app.ProgressResult // the last measurement of the tracked plan
	progHour  time.Time           // the window-end hour it was measured at
	progDirty bool                // a mark since

	state    atomic.Pointer[State]
	prices   atomic.Pointer[app.Prices]   // swapped whole by SetPrices
	policies atomic.Pointer[app.Policies] // swapped whole by SetPolicies
	gen      atomic.Uint64
}

// Deps are what a Collector is built with besides its options: the use
// cases (with their clock), a logger and the registry its metrics go on.
// Inventory and Usage replace the sources the options name (tests, other
// front ends); nil means the options' own. OnPublish, when set, is called
// with each published state's generation (the service forgets its cached
// answers). Prepare, when set, is called with each state, its generation
// set, before it is published: what it computes from it (the service's
// first answers) is ready when the first request sees the state, and the
// last state is served until it returns; during New (--demo) it is called
// before New returns. OnRecordError, when set, hears the error (or nil) of every
// attempt to record an interval in the history (the service marks a
// damaged history not ready).
type Deps struct {
	App           *app.App
	Log           *slog.Logger
	Registry      prometheus.Registerer
	Inventory     Inventory
	Usage         UsageReader
	OnPublish     func(generation uint64)
	Prepare       func(c *Collector, st *State)
	OnRecordError func(error)
}

// New opens the history, connects the sources and, for --demo, records
// the simulated history and publishes its state. Sources that cannot be
// reached fail here with the app's error kinds. The options are the
// service's, validated by it.
func New(ctx context.Context, opts Options, d Deps) (*Collector, error) {
	ring, err := rolling.NewRing(opts.Segment())
	if err != nil {
		return nil, err
	}
	s := &Collector{opts: opts, app: d.App, log: d.Log, ring: ring, collector: exporter.NewCollector(),
		totals: exporter.NewTotals(opts.MaxWorkloads), stop: func() {}, drop: func() {}, onPub: d.OnPublish, prepare: d.Prepare}
	if s.log == nil {
		s.log = slog.New(slog.DiscardHandler)
	}
	if s.onPub == nil {
		s.onPub = func(uint64) {}
	}
	if s.prepare == nil {
		s.prepare = func(*Collector, *State) {}
	}
	s.prices.Store(opts.Prices)
	s.policies.Store(opts.Policies)
	if s.onRecordErr = d.OnRecordError; s.onRecordErr == nil {
		s.onRecordErr = func(error) {}
	}
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

func (s *Collector) openHistory(ctx context.Context) error {
	path := s.opts.HistoryPath
	if path == "" {
		path = s.tempHistory()
	}
	h, err := app.OpenHistory(ctx, path)
	if err != nil {
		s.drop()
		return &app.Error{Kind: app.Input, Err: err}
	}
	s.hist, s.store = h, h.Store()
	if err := s.resume(ctx); err != nil {
		h.Close()
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
func (s *Collector) tempHistory() string {
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
func (s *Collector) resume(ctx context.Context) error {
	last, err := s.store.Last(ctx, s.opts.Cluster)
	if err != nil {
		return &app.Error{Kind: app.Input, Err: err}
	}
	s.recorded = last
	return nil
}

// connect starts the sources: the simulator, informers, Prometheus.
func (s *Collector) connect(ctx context.Context, d Deps) error {
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
		s.seen = rolling.NewSeen()
		s.inv = seenInventory{s.seen}
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
func (s *Collector) Close() error {
	s.stop()
	err := s.store.Close()
	s.drop()
	return err
}

// HistoryPath is the history database's file as given ("": a temporary
// file, removed on Close).
func (s *Collector) HistoryPath() string { return s.opts.HistoryPath }

// History is the history the cycles record into, for its use cases
// (app.History: series, compare).
func (s *Collector) History() *app.History { return s.hist }

// Options are the options the collector runs with.
func (s *Collector) Options() Options { return s.opts }

// Mode says what the sources are, for the service's status and log.
func (s *Collector) Mode() string {
	switch {
	case s.opts.Demo != nil:
		return "demo"
	case s.usage == nil:
		return "inventory " + s.opts.Inventory + ", usage unmeasured"
	}
	return "inventory " + s.opts.Inventory + ", usage prometheus"
}

// SetPrices swaps the prices the next cycle uses: atomically, and read
// once per cycle step, so that a cycle never mixes two price sets.
func (s *Collector) SetPrices(p *app.Prices) { s.prices.Store(p) }

// SetPolicies swaps the policies the next cycle's ledger and later
// requests use: atomically, so that a cycle or a request reads one policy.
func (s *Collector) SetPolicies(p *app.Policies) { s.policies.Store(p) }

// Policies are the policies in use (nil: the defaults).
func (s *Collector) Policies() *app.Policies { return s.policies.Load() }

// Exposition is the published frame's domain metrics, gathered once
// (nil before the first cycle finished); /metrics writes them before the
// registry's own (the service's, the runtime's).
func (s *Collector) Exposition() *exporter.Exposition { return s.exposition.Load() }

// State is the published state, nil before the first cycle finished.
func (s *Collector) State() *State { return s.state.Load() }

// publish makes st the state every request and scrape sees, once what
// is prepared from it is ready.
func (s *Collector) publish(st *State) {
	st.Generation = s.gen.Add(1)
	s.prepare(s, st)
	s.state.Store(st)
	s.collector.Publish(st.Frame)
	s.exposition.Store(exporter.NewExposition(s.frames, s.exposition.Load()))
	s.onPub(st.Generation)
}

// Run runs a cycle every Interval until ctx ends (the demo runs none).
func (s *Collector) Run(ctx context.Context) {
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
// failure keeps the last state, marked stale.
func (s *Collector) Cycle(ctx context.Context) error {
	start := time.Now()
	res, err := s.cycle(ctx)
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
