package app

import (
	"context"
	"fmt"
	"runtime"
	"time"

	"github.com/gpuwise/gpuwise/internal/billing"
	"github.com/gpuwise/gpuwise/internal/cluster"
	"github.com/gpuwise/gpuwise/internal/cost"
	"github.com/gpuwise/gpuwise/internal/idlecause"
	"github.com/gpuwise/gpuwise/internal/kueue"
	"github.com/gpuwise/gpuwise/internal/ledger"
	"github.com/gpuwise/gpuwise/internal/rightsize"
	"github.com/gpuwise/gpuwise/internal/sim"
)

// ReportRequest asks for the cost report.
type ReportRequest struct {
	Data
	// Cost are the allocation settings (settings only: the use case
	// prices with Data.Prices).
	Cost   cost.Options
	Report cost.ReportOptions
	// Policies is the loaded policy file whose sections the savings ledger
	// behind the report's savings lines uses (the service's --policy); nil
	// means the defaults.
	Policies *Policies
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
	return ReportRequest{Data: Data{Source: Source{Kube: DefaultKube()}}, Cost: cost.DefaultOptions(), Report: cost.DefaultReportOptions()}
}

// Validate lists every problem with the request.
func (r ReportRequest) Validate() error {
	var p problems
	r.Data.validate(&p)
	p.add(r.Cost.Validate())
	p.add(r.Report.Validate())
	if r.SaveBill != "" && r.Source.Demo == nil {
		p.add(fmt.Errorf("save-bill: only the simulated cluster has a bill to write (demo)"))
	}
	if r.BillFormat != "" && r.BillFormat != sim.BillFOCUS && r.BillFormat != sim.BillCUR2 {
		p.add(fmt.Errorf("bill-format: %q is not focus or cur2", r.BillFormat))
	}
	return p.err()
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
	// Snapshot is what the report read. For a snapshot the use case read
	// itself, its owner (the Analysis) released what the staged ledger no
	// longer reads: the hourly series and the usage detail
	// (cluster.Snapshot.ReleaseUsageDetail: only the GPUs' activity is
	// left of the pods' usage). A snapshot a front end holds is whole.
	Snapshot *cluster.Prepared
	// Partial, when set, says what could not be read: the report is still
	// complete for what was.
	Partial error
	// Reconciliation is the bill against the report's node cost; nil
	// without --bill.
	Reconciliation *billing.Reconciliation
	// Kueue is the per-queue report of the cluster's Kueue queues, the
	// pods' figures from the same allocation; nil without Kueue.
	Kueue *kueue.Result

	// held are what the report stands on in a shared analysis (a
	// snapshot a front end holds: InMemory), kept for as long as the
	// report is: its right-sizing, allocation and whole idle causes. A
	// shared analysis keeps its results weakly; the service holds its
	// cycle's report, so advise, recommend and the other reports of the
	// cycle find these at hand instead of computing them again (at
	// 10,000 GPUs seconds each; docs/performance.md).
	held []any
}

// liveReportWindow is the live cluster's default window for reports.
const liveReportWindow = 24 * time.Hour

// Report prices every GPU node for the window and allocates its cost.
func (a *App) Report(ctx context.Context, req ReportRequest) (*ReportResult, error) {
	if err := req.Validate(); err != nil {
		return nil, err
	}
	an, err := a.analyze(ctx, req.Data, liveReportWindow)
	if err != nil {
		return nil, err
	}
	if req.SaveSnapshot != "" {
		a.progress.phase("writing snapshot " + req.SaveSnapshot)
		if err := SaveSnapshot(req.SaveSnapshot, an.snap.View()); err != nil {
			return nil, err
		}
	}
	if req.SaveBill != "" {
		a.progress.phase("writing bill " + req.SaveBill)
		if err := saveBill(req.SaveBill, an.snap.View(), req.Prices.Catalog(), req.BillFormat); err != nil {
			return nil, err
		}
	}
	return a.report(an, req)
}

// report is the report on an analysis: the allocation, its report and
// idle causes, the bill's reconciliation, and the savings ledger with the
// default options and the request's policies on the same allocation (the
// report's savings lines, advise's headline).
func (a *App) report(an *Analysis, req ReportRequest) (*ReportResult, error) {
	pols, err := req.Policies.get()
	if err != nil {
		return nil, err
	}
	a.progress.phase("allocating cost")
	lopts := ledger.DefaultOptions()
	lopts.Policy = pols.Rightsize
	ledgerSections(&lopts, pols)
	// The ledger's right-sizing reads the snapshot only and the
	// allocation does not read it: on two cores the report's longest
	// step before the ledger, run beside the allocation unless the App
	// runs one thing at a time. The ledger waits for it. A shared
	// analysis keeps results weakly: the right-sizing and the allocation
	// are held here until the ledger has them (an owned one keeps them
	// itself, and lets the right-sizing go once the ledger is staged).
	var recs *rightsize.Result
	recsDone := make(chan struct{})
	if a.workers != 1 {
		go func() {
			defer close(recsDone)
			r, _ := an.Recommendations(lopts.Policy) // its error is the ledger's
			if !an.owned {
				recs = r
			}
		}()
	} else {
		if !an.owned {
			recs, _ = an.Recommendations(lopts.Policy) // held below; its error is the ledger's
		}
		close(recsDone)
	}
	alloc, err := an.Allocation(req.Cost)
	if err != nil {
		return nil, err
	}
	rep, err := an.CostReport(req.Cost, req.Report)
	if err != nil {
		return nil, err
	}
	whole, err := an.idleCauses(req.Cost, idlecause.DefaultPolicy())
	if err != nil {
		return nil, err
	}
	res := &ReportResult{Report: rep, IdleCauses: whole.Top(req.Report.TopN), Snapshot: an.snap, Partial: an.partial, Reconciliation: reconcile(an.prices, alloc),
		Kueue: KueueQueues(an.snap, alloc)}
	a.progress.phase("building the savings ledger")
	res.Ledger, res.LedgerErr = an.Ledger(lopts, req.Cost)
	<-recsDone
	if !an.owned {
		res.held = []any{recs, alloc, whole}
	}
	runtime.KeepAlive(recs)
	runtime.KeepAlive(alloc)
	return res, nil
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
