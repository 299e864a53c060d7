package app

import (
	"context"
	"fmt"
	"sync"
	"time"
	"weak"

	"github.com/gpuwise/gpuwise/internal/cluster"
	"github.com/gpuwise/gpuwise/internal/cost"
	"github.com/gpuwise/gpuwise/internal/idlecause"
	"github.com/gpuwise/gpuwise/internal/ledger"
	"github.com/gpuwise/gpuwise/internal/pricing"
	"github.com/gpuwise/gpuwise/internal/rightsize"
)

// Analysis is one prepared snapshot analysed with one price catalog: its
// cost allocations, reports, right-sizing, idle causes and savings
// ledgers, each computed once, on first use, per set of options, and
// shared by every use case that asks — one command's, or every handler of
// the service within a cycle (InMemory.Analysis). It is safe for
// concurrent use: a result asked for twice at once is computed once. A
// shared analysis keeps its results weakly (memo): as long as someone
// holds them.
//
// Ownership. The snapshot is read-only to everything but its owner. An
// analysis that read the snapshot itself (a file, Prometheus, the
// simulator or the live cluster, for one command) owns it: once the
// ledger is staged it releases what the ledger says its build no longer
// reads (ledger.SnapshotReads: the hourly series, the pods' usage
// detail), and forgets the right-sizing it handed over. A result that
// would read a released part afterwards is refused as a gpuwise bug
// rather than computed on what is left. An analysis of a snapshot a
// front end holds (InMemory) owns nothing and releases nothing.
type Analysis struct {
	snap    *cluster.Prepared
	partial error
	prices  *nodePrices
	// own is the writable snapshot behind snap when the analysis owns it
	// (nil: a front end holds it): the one writer of what is released.
	own *cluster.Snapshot
	// owned is own != nil: results kept strongly rather than weakly.
	owned bool
	// workers is the App's (WithWorkers): what the engines may run at once.
	workers  int
	progress Progress

	mu       sync.Mutex
	allocs   map[string]*memo[cost.Allocation]
	reports  map[string]*memo[cost.Report]
	recs     map[string]*memo[rightsize.Result]
	idle     map[string]*memo[idlecause.Result]
	ledgers  map[string]*memo[ledger.Ledger]
	released ledger.Reads // what the owner released (true: gone)
}

// memo is one result computed once and kept for as long as it is used:
// an owned analysis (one command) keeps it; a shared one (a snapshot a
// front end holds for a cycle) keeps it weakly, so that a result nobody
// holds any more (an API request's own report, ledger or right-sizing)
// is collected rather than kept for the cycle, and computed again if
// asked for again. The cycle's own results are held by the front end's
// state and so are shared.
type memo[X any] struct {
	mu     sync.Mutex
	done   bool
	strong *X
	weak   weak.Pointer[X]
	err    error
}

// do returns the result, computing it with f unless it is at hand;
// concurrent callers wait for the one computing it.
func (m *memo[X]) do(keep bool, f func() (*X, error)) (*X, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.done {
		if m.err != nil || m.strong != nil {
			return m.strong, m.err
		}
		if v := m.weak.Value(); v != nil {
			return v, nil
		}
	}
	v, err := f()
	m.done, m.err, m.strong, m.weak = true, err, nil, weak.Pointer[X]{}
	switch {
	case err != nil:
	case keep:
		m.strong = v
	default:
		m.weak = weak.Make(v)
	}
	return v, err
}

// entry is the memo of key in table, made on first use.
func entry[X any](an *Analysis, table *map[string]*memo[X], key string) *memo[X] {
	an.mu.Lock()
	defer an.mu.Unlock()
	if *table == nil {
		*table = map[string]*memo[X]{}
	}
	m := (*table)[key]
	if m == nil {
		m = &memo[X]{}
		(*table)[key] = m
	}
	return m
}

// newAnalysis analyses a prepared snapshot with prices; own, when set, is
// the writable snapshot behind it: the analysis read it itself and may
// release parts of it.
func (a *App) newAnalysis(snap *cluster.Prepared, own *cluster.Snapshot, partial error, prices *nodePrices) *Analysis {
	return &Analysis{snap: snap, partial: partial, prices: prices, own: own, owned: own != nil, workers: a.workers, progress: a.progress}
}

// Snapshot is the prepared snapshot the analysis reads (read-only).
func (an *Analysis) Snapshot() *cluster.Prepared { return an.snap }

// Partial says what the snapshot's reading lacked (nil: nothing).
func (an *Analysis) Partial() error { return an.partial }

// Prices is the price catalog every figure of the analysis is priced
// with (the overrides over the embedded catalog; a bill's node prices are
// bound to the snapshot inside the analysis).
func (an *Analysis) Prices() *pricing.Catalog { return an.prices.Catalog }

// errReleased is a result asked for after the owner released what it
// reads: a use case asked in the wrong order (a gpuwise bug).
func (an *Analysis) errReleased(what string) error {
	return &Error{Kind: Internal, Err: fmt.Errorf("%s reads the snapshot's usage detail or hourly series, released once the savings ledger was staged (a gpuwise bug; please report it)", what)}
}

// needs refuses a computation that reads released parts.
func (an *Analysis) needs(r ledger.Reads, what string) error {
	an.mu.Lock()
	defer an.mu.Unlock()
	if (r.Hourly && an.released.Hourly) || (r.UsageDetail && an.released.UsageDetail) {
		return an.errReleased(what)
	}
	return nil
}

// optionsKey is a comparable key of an options value (settings only: no
// pricer; the analysis's prices are its own).
func optionsKey(v any) string { return fmt.Sprintf("%#v", v) }

// costKey is the key of cost options (settings only).
func costKey(o cost.Options) string { return optionsKey(o) }

// Allocation is the snapshot's cost allocation with the options, priced
// with the analysis's prices.
func (an *Analysis) Allocation(o cost.Options) (*cost.Allocation, error) {
	return entry(an, &an.allocs, costKey(o)).do(an.owned, func() (*cost.Allocation, error) {
		if err := an.needs(ledger.Reads{UsageDetail: true}, "the cost allocation"); err != nil {
			return nil, err
		}
		a, err := cost.Allocate(an.snap, an.prices, o)
		if err != nil {
			return nil, fmt.Errorf("allocating cost: %w", err)
		}
		return a, nil
	})
}

// CostReport is the allocation with o grouped and ranked with r.
func (an *Analysis) CostReport(o cost.Options, r cost.ReportOptions) (*cost.Report, error) {
	return entry(an, &an.reports, costKey(o)+optionsKey(r)).do(an.owned, func() (*cost.Report, error) {
		a, err := an.Allocation(o)
		if err != nil {
			return nil, err
		}
		rep, err := cost.NewReport(a, r)
		if err != nil {
			return nil, fmt.Errorf("building report: %w", err)
		}
		return rep, nil
	})
}

// Recommendations are the snapshot's right-sizing with the policy.
func (an *Analysis) Recommendations(p rightsize.Policy) (*rightsize.Result, error) {
	r, err := an.rightsizing(p)
	if err != nil {
		return nil, fmt.Errorf("recommending: %w", err)
	}
	return r, nil
}

// rightsizing is Recommendations with the right-sizing's own error (the
// ledger names it as ledger.Build does).
func (an *Analysis) rightsizing(p rightsize.Policy) (*rightsize.Result, error) {
	return entry(an, &an.recs, optionsKey(p)).do(an.owned, func() (*rightsize.Result, error) {
		if err := an.needs(ledger.Reads{Hourly: true, UsageDetail: true}, "right-sizing"); err != nil {
			return nil, err
		}
		return rightsize.Recommend(an.snap, p, an.prices)
	})
}

// IdleCauses splits the idle GPU-hours and dollars of the allocation with
// o by cause with the policy, keeping the top workloads by idle dollars
// (top ≤ 0: all).
func (an *Analysis) IdleCauses(o cost.Options, p idlecause.Policy, top int) (*idlecause.Result, error) {
	r, err := an.idleCauses(o, p)
	if err != nil {
		return nil, err
	}
	return r.Top(top), nil
}

// idleCauses is IdleCauses with every workload: the result the analysis
// keeps.
func (an *Analysis) idleCauses(o cost.Options, p idlecause.Policy) (*idlecause.Result, error) {
	return entry(an, &an.idle, costKey(o)+optionsKey(p)).do(an.owned, func() (*idlecause.Result, error) {
		if err := an.needs(ledger.Reads{Hourly: true}, "the idle causes"); err != nil {
			return nil, err
		}
		a, err := an.Allocation(o)
		if err != nil {
			return nil, err
		}
		return IdleCauses(an.snap, a, p, 0)
	})
}

// Ledger is the savings ledger with the options (their Workers is the
// App's) on the allocation with c, and c's report by the default
// grouping. Its right-sizing is Recommendations(o.Policy), shared.
func (an *Analysis) Ledger(o ledger.Options, c cost.Options) (*ledger.Ledger, error) {
	o.Workers = an.workers
	return entry(an, &an.ledgers, optionsKey(o)+costKey(c)).do(an.owned, func() (*ledger.Ledger, error) {
		if err := o.Validate(); err != nil {
			return nil, fmt.Errorf("ledger options: %w", err)
		}
		recs, err := an.rightsizing(o.Policy)
		if err != nil {
			return nil, fmt.Errorf("ledger: %w", err) // as ledger.Build says it
		}
		alloc, err := an.Allocation(c)
		if err != nil {
			return nil, err
		}
		rep, err := an.CostReport(c, cost.DefaultReportOptions())
		if err != nil {
			return nil, err
		}
		in := ledger.Input{Snapshot: an.snap, Prices: an.prices, Allocation: alloc, Report: rep, Recs: recs, Groundwork: groundwork(an.snap, an.prices)}
		if in, err = ledger.Stage(in, o); err != nil {
			return nil, fmt.Errorf("ledger: %w", err)
		}
		an.release(in, o)
		return ledger.Build(in, o)
	})
}

// release is the owner letting go of what the staged ledger input no
// longer reads: the snapshot's hourly series and the pods' usage detail
// (about 80 MB less live heap at 10k GPUs while the ledger packs), and the
// right-sizing, which the ledger now holds and lets go of itself once no
// lever left reads it. Only an owned analysis releases anything.
func (an *Analysis) release(in ledger.Input, o ledger.Options) {
	if !an.owned {
		return
	}
	reads := ledger.SnapshotReads(in, o)
	an.mu.Lock()
	defer an.mu.Unlock()
	if !reads.Hourly && an.own.Hourly != nil {
		an.own.Hourly = nil
		an.released.Hourly = true
	}
	if !reads.UsageDetail && !an.released.UsageDetail {
		an.own.ReleaseUsageDetail()
		an.released.UsageDetail = true
	}
	if an.released.Hourly || an.released.UsageDetail {
		an.recs = nil // computed again they would be refused: forgotten
	}
}

// Analysis is the analysis of the data selection: the prices and the
// snapshot read, checked and prepared once. For a snapshot a front end
// holds (Source.Snapshot) it is that snapshot's shared analysis
// (InMemory.analysis): the service's handlers within a cycle share its
// results.
func (a *App) Analysis(ctx context.Context, d Data) (*Analysis, error) {
	var p problems
	d.validate(&p)
	if err := p.err(); err != nil {
		return nil, err
	}
	return a.analyze(ctx, d, liveReportWindow)
}

// analyze binds the loaded prices to the snapshot (live: the live
// cluster's default window for the use case).
func (a *App) analyze(ctx context.Context, d Data, live time.Duration) (*Analysis, error) {
	if err := d.Prices.check(); err != nil {
		return nil, err
	}
	if m := d.Source.Snapshot; m != nil {
		if err := orBackground(ctx).Err(); err != nil {
			return nil, err
		}
		if _, err := m.load(d.Window); err != nil {
			return nil, err
		}
		return m.analysis(a, d.Prices)
	}
	in, err := a.load(ctx, d.Source, d.Window, live)
	if err != nil {
		return nil, err
	}
	np, err := d.Prices.forSnapshot(in.snap)
	if err != nil {
		return nil, err
	}
	return a.newAnalysis(in.snap, in.own, in.partial, np), nil
}

// analysis is the snapshot's shared analysis with the prices p, made on
// first use; every use case on the snapshot with those prices (the same
// loaded set: the service swaps a new one in whole) gets the same one.
func (m *InMemory) analysis(a *App, p *Prices) (*Analysis, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if an := m.analyses[p]; an != nil {
		return an, nil
	}
	np, err := p.forSnapshot(m.Prepared)
	if err != nil {
		return nil, err
	}
	if m.analyses == nil {
		m.analyses = map[*Prices]*Analysis{}
	}
	an := a.newAnalysis(m.Prepared, nil, m.Partial, np)
	m.analyses[p] = an
	return an, nil
}
