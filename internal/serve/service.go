package serve

import (
	"context"
	"errors"
	"log/slog"
	"runtime/debug"
	"sync"
	"sync/atomic"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/gpuwise/gpuwise/internal/app"
	"github.com/gpuwise/gpuwise/internal/collector"
)

// Service is `gpuwise serve`'s HTTP front end over a collector (the
// cycles and the published state: internal/collector). Create it with
// New; Serve runs the cycles and serves HTTP.
type Service struct {
	opts  Options
	app   *app.App
	log   *slog.Logger
	coll  *collector.Collector
	cache *resultCache
	// lowUtils holds the history's whole low-utilization lists that
	// /api/v1/history/low-util pages are cut from.
	lowUtils lowUtilMemo
	// compute holds the slots of the answers computed on demand.
	compute *computeQueue
	scrub   *scrubber
	// damaged is the error that showed the history file corrupt (nil
	// while it is sound): /readyz fails with it (issue 31 M7).
	damaged atomic.Pointer[string]
	// pacer sets the Go memory limit after each published state (nil:
	// not paced); prevLimit is the limit before, restored on Close.
	pacer     *MemoryPacer
	prevLimit int64
	lastLimit atomic.Int64 // the limit the pacer last set
	// pods is the report by pod of the latest generation, which every
	// page of /api/v1/pods reads (podReport).
	pods struct {
		sync.Mutex
		gen uint64
		res *app.ReportResult
	}
}

// The collector's ports and state, named here for the service's callers.
type (
	// Inventory gives the cluster's objects (collector.Inventory).
	Inventory = collector.Inventory
	// UsageReader reads one interval's usage (collector.UsageReader).
	UsageReader = collector.UsageReader
	// State is the published state (collector.State).
	State = collector.State
)

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

// New validates the options and starts the collector: it opens the
// history, connects the sources and, for --demo, records the simulated
// history and publishes its state. Sources that cannot be reached fail
// here with the app's error kinds.
func New(ctx context.Context, opts Options, d Deps) (*Service, error) {
	if err := opts.Validate(); err != nil {
		return nil, &app.Error{Kind: app.Usage, Err: err}
	}
	s := &Service{opts: opts, app: d.App, log: d.Log, cache: newResultCache(cacheAnswers, cacheBytes),
		compute: newComputeQueue(ComputeInFlight, ComputeQueueWait)}
	if s.log == nil {
		s.log = slog.New(slog.DiscardHandler)
	}
	s.scrub = newScrubber(opts)
	s.log = slog.New(scrubHandler{next: s.log.Handler(), s: s.scrub})
	if opts.MemoryHeadroom > 0 {
		s.pacer, s.prevLimit = NewMemoryPacer(opts.MemoryHeadroom, opts.MemoryCap), debug.SetMemoryLimit(-1)
	}
	c, err := collector.New(ctx, opts.collector(), collector.Deps{App: d.App, Log: s.log, Registry: d.Registry,
		Inventory: d.Inventory, Usage: d.Usage, OnPublish: s.published, Prepare: s.warm, OnRecordError: s.noteDamage})
	if err != nil {
		s.restoreLimit()
		return nil, err
	}
	s.coll = c
	return s, nil
}

// Close stops the sources and closes the history (removing it when it
// was a temporary one), and gives back the memory limit it found.
func (s *Service) Close() error {
	s.restoreLimit()
	return s.coll.Close()
}

// published forgets the answers cached for older states and paces the
// memory limit on what the new state holds.
func (s *Service) published(generation uint64) {
	s.cache.reset(generation)
	if s.pacer != nil {
		n := s.pacer.Pace()
		s.lastLimit.Store(n)
		s.log.Debug("go memory limit paced", "bytes", n, "generation", generation)
	}
}

// restoreLimit gives back the limit found at New, unless something set
// another since this service last paced it.
func (s *Service) restoreLimit() {
	if s.pacer == nil {
		return
	}
	if n := s.lastLimit.Load(); n == 0 || debug.SetMemoryLimit(-1) == n {
		debug.SetMemoryLimit(s.prevLimit)
	}
}

// HistoryPath is the history database's file as given ("": a temporary
// file, removed on Close).
func (s *Service) HistoryPath() string { return s.opts.HistoryPath }

// State is the published state, nil before the first cycle finished.
func (s *Service) State() *State { return s.coll.State() }

// Run runs a cycle every Interval until ctx ends (the demo runs none).
func (s *Service) Run(ctx context.Context) { s.coll.Run(ctx) }

// Cycle runs one cycle (collector.Collector.Cycle); a failure keeps the
// last state, marked stale. The error it returns has the service's
// secrets scrubbed.
func (s *Service) Cycle(ctx context.Context) error {
	err := s.coll.Cycle(ctx)
	if err != nil && !errors.Is(err, context.Canceled) {
		err = errors.New(s.scrub.text(err.Error()))
	}
	return err
}

func errString(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

// SetPrices swaps the prices the next cycle and later requests use (the
// front end reloads them on SIGHUP): atomically, so that a cycle never
// mixes two price sets (collector.Collector.SetPrices).
func (s *Service) SetPrices(p *app.Prices) { s.coll.SetPrices(p) }

// SetPolicies swaps the policy the next cycle's ledger and every later
// request use (the front end reloads it on SIGHUP) — atomically: a cycle
// or a request reads one policy — and drops the answers cached with the
// old one.
func (s *Service) SetPolicies(p *app.Policies) {
	s.coll.SetPolicies(p)
	if st := s.State(); st != nil {
		s.cache.reset(st.Generation)
	}
}
