package app

import (
	"context"
	"fmt"
	"time"

	"github.com/gpuwise/gpuwise/internal/billing"
	"github.com/gpuwise/gpuwise/internal/cluster"
	"github.com/gpuwise/gpuwise/internal/cost"
	"github.com/gpuwise/gpuwise/internal/idlecause"
	"github.com/gpuwise/gpuwise/internal/ledger"
	"github.com/gpuwise/gpuwise/internal/pricing"
	"github.com/gpuwise/gpuwise/internal/rightsize"
	"github.com/gpuwise/gpuwise/internal/sim"
)

// ReportRequest asks for the cost report.
type ReportRequest struct {
	Data
	// Cost are the allocation settings; its Prices is ignored (the use
	// case prices with Data.Prices).
	Cost   cost.Options
	Report cost.ReportOptions
	// SaveSnapshot, when set, also writes the snapshot there.
	SaveSnapshot string
	// SaveBill, when set, also writes the simulated cluster's billing
	// export there (a demo source only), in BillFormat: "focus"
	// (default) or "cur2".
	SaveBill   string
	BillFormat string
}

// DefaultReportRequest is the report with every default.
func DefaultReportRequest() ReportRequest {
	return ReportRequest{Data: Data{Source: Source{Kube: DefaultKube()}}, Cost: cost.DefaultOptions(nil), Report: cost.DefaultReportOptions()}
}

// Validate lists every problem with the request.
func (r ReportRequest) Validate() error {
	var p problems
	r.Data.validate(&p)
	opts := r.Cost
	opts.Prices = noPrices{}
	p.add(opts.Validate())
	p.add(r.Report.Validate())
	if r.SaveBill != "" && r.Source.Demo == nil {
		p.add(fmt.Errorf("save-bill: only the simulated cluster has a bill to write (demo)"))
	}
	if r.BillFormat != "" && r.BillFormat != sim.BillFOCUS && r.BillFormat != sim.BillCUR2 {
		p.add(fmt.Errorf("bill-format: %q is not focus or cur2", r.BillFormat))
	}
	return p.err()
}

// noPrices stands in for the catalog when validating options before it is
// loaded.
type noPrices struct{}

func (noPrices) Price(n pricing.NodeSpec) (pricing.NodePrice, error) {
	return pricing.NodePrice{}, fmt.Errorf("node %s: no prices loaded", n.Name)
}

// ReportResult is the report and what it stands on.
type ReportResult struct {
	Report *cost.Report
	// Ledger is the savings ledger with the default options on the same
	// snapshot, prices and allocation (the report's savings lines); nil
	// when it could not be built (LedgerErr says why).
	Ledger    *ledger.Ledger
	LedgerErr error
	// IdleCauses splits the report's idle GPU-hours and dollars by why
	// the GPUs idled (the default policy), top workloads as Report.TopN.
	IdleCauses *idlecause.Result
	// Snapshot is what the report read, its hourly series released once
	// the idle causes and the ledger's signals were taken from them, and
	// (for a snapshot the use case read itself) its usage detail too
	// (cluster.Snapshot.ReleaseUsageDetail): only the GPUs' activity is
	// left of the pods' usage.
	Snapshot *cluster.Prepared
	// Partial, when set, says what could not be read: the report is still
	// complete for what was.
	Partial error
	// Reconciliation is the bill against the report's node cost; nil
	// without --bill.
	Reconciliation *billing.Reconciliation
}

// liveReportWindow is the live cluster's default window for reports.
const liveReportWindow = 24 * time.Hour

// Report prices every GPU node for the window and allocates its cost.
func (a *App) Report(ctx context.Context, req ReportRequest) (*ReportResult, error) {
	if err := req.Validate(); err != nil {
		return nil, err
	}
	if err := req.Prices.check(); err != nil {
		return nil, err
	}
	in, err := a.load(ctx, req.Source, req.Window, liveReportWindow)
	if err != nil {
		return nil, err
	}
	catalog, err := req.Prices.forSnapshot(in.snap.Snapshot)
	if err != nil {
		return nil, err
	}
	if req.SaveSnapshot != "" {
		a.progress.phase("writing snapshot " + req.SaveSnapshot)
		if err := SaveSnapshot(req.SaveSnapshot, in.snap.Snapshot); err != nil {
			return nil, err
		}
	}
	if req.SaveBill != "" {
		a.progress.phase("writing bill " + req.SaveBill)
		if err := saveBill(req.SaveBill, in.snap.Snapshot, req.Prices.Catalog(), req.BillFormat); err != nil {
			return nil, err
		}
	}
	a.progress.phase("allocating cost")
	lopts := ledger.DefaultOptions()
	recs := startRightsizing(in.snap, lopts.Policy, catalog)
	res, alloc, err := allocate(in, req, catalog)
	if err != nil {
		recs.wait()
		return nil, err
	}
	a.progress.phase("building the savings ledger")
	lin := ledger.Input{Snapshot: in.snap, Prices: catalog, Allocation: alloc}
	lin.Hourly, lin.Counters = ledger.SnapshotSignals(in.snap.Snapshot)
	// The capacity levers' inputs are read from the series too
	// (ledger.CapacityFromSnapshot), and right-sizing reads them (CPU
	// starvation), so that the headline is advise's ledger; then nothing
	// reads the series: released, the ledger's packing runs on ~30 MB less
	// live heap at 10k GPUs (performance.md), but only for a snapshot this
	// use case read itself (a front end's shared one is never changed). A
	// new lever that reads the series must get its inputs here first, or
	// the report's savings would differ from advise's
	// (TestReportHeadlineIsAdvise, TestReportLedgerIsAdvise).
	lin.Capacity, err = ledger.CapacityFromSnapshot(in.snap.Snapshot, lopts)
	var recErr error
	if lin.Recs, recErr = recs.wait(); err == nil && recErr != nil {
		err = fmt.Errorf("ledger: %w", recErr) // as ledger.Build says it
	}
	if err != nil {
		res.LedgerErr = err
		return res, nil
	}
	if ownsSnapshot(req.Source) {
		// Nothing the ledger runs reads the series or the per-pod usage
		// but the GPUs' activity (the planner reads its mean): released,
		// the ledger runs on about 80 MB less live heap at 10k GPUs.
		in.snap.Hourly = nil
		in.snap.ReleaseUsageDetail()
	}
	if req.Report == cost.DefaultReportOptions() {
		lin.Report = res.Report // the ledger's metrics read the default report
	}
	res.Ledger, res.LedgerErr = ledger.Build(lin, lopts)
	return res, nil
}

// allocate allocates the snapshot's cost and explains its idle GPUs: the
// report without its savings ledger.
func allocate(in *loaded, req ReportRequest, catalog *nodePrices) (*ReportResult, *cost.Allocation, error) {
	opts := req.Cost
	opts.Prices = catalog
	alloc, err := cost.Allocate(in.snap, opts)
	if err != nil {
		return nil, nil, fmt.Errorf("allocating cost: %w", err)
	}
	r, err := cost.NewReport(alloc, req.Report)
	if err != nil {
		return nil, nil, fmt.Errorf("building report: %w", err)
	}
	why, err := IdleCauses(in.snap, alloc, idlecause.DefaultPolicy(), req.Report.TopN)
	if err != nil {
		return nil, nil, err
	}
	return &ReportResult{Report: r, IdleCauses: why, Snapshot: in.snap, Partial: in.partial, Reconciliation: reconcile(catalog, alloc)}, alloc, nil
}

// rightsizing is the ledger's right-sizing, run beside the cost
// allocation (it reads the snapshot only, and the allocation does not
// read it): on two cores the report's longest step before the ledger.
type rightsizing struct {
	done chan struct{}
	recs *rightsize.Result
	err  error
}

// startRightsizing right-sizes the snapshot in the background; wait for
// the result before changing the snapshot (releasing its series).
func startRightsizing(s *cluster.Prepared, p rightsize.Policy, prices rightsize.Prices) *rightsizing {
	r := &rightsizing{done: make(chan struct{})}
	go func() {
		defer close(r.done)
		r.recs, r.err = rightsize.Recommend(s, p, prices)
	}()
	return r
}

// wait returns the right-sizing once it is done.
func (r *rightsizing) wait() (*rightsize.Result, error) {
	<-r.done
	return r.recs, r.err
}

// ownsSnapshot says whether the use case read the snapshot itself (a
// file, Prometheus, the simulator) and may release
// parts of it; a snapshot a front end holds and shares is never changed.
func ownsSnapshot(s Source) bool {
	return s.File != "" || s.Prometheus != nil || s.Demo != nil
}

// IdleCauses splits an allocation's idle GPU-hours and dollars by cause:
// the cost engine's figures per workload handed to the idle-cause engine,
// keeping the top workloads by idle dollars (top ≤ 0: all).
func IdleCauses(s *cluster.Prepared, a *cost.Allocation, p idlecause.Policy, top int) (*idlecause.Result, error) {
	byWorkload := a.IdleByWorkload()
	idle := make([]idlecause.Idle, len(byWorkload))
	for i, w := range byWorkload {
		idle[i] = idlecause.Idle{Workload: w.Workload, GPUHours: w.IdleGPUHours, USD: w.IdleUSD, Priced: w.Priced}
	}
	r, err := idlecause.Explain(s, idle, p)
	if err != nil {
		return nil, fmt.Errorf("explaining idle GPUs: %w", err)
	}
	return r.Top(top), nil
}
