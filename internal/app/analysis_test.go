package app

import (
	"context"
	"encoding/json"
	"runtime"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/gpuwise/gpuwise/internal/cost"
	"github.com/gpuwise/gpuwise/internal/idlecause"
	"github.com/gpuwise/gpuwise/internal/ledger"
	"github.com/gpuwise/gpuwise/internal/packing"
	"github.com/gpuwise/gpuwise/internal/pricing"
	"github.com/gpuwise/gpuwise/internal/rightsize"
	"github.com/gpuwise/gpuwise/internal/sim"
)

// demoMemory is the demo as a snapshot the service holds.
func demoMemory(t *testing.T) *InMemory {
	t.Helper()
	prep, err := DemoSnapshot(DefaultDemo())
	if err != nil {
		t.Fatal(err)
	}
	return &InMemory{Prepared: prep}
}

// On a snapshot a front end holds, every use case shares one analysis:
// the report's ledger is advise's and the next report's (the same value,
// built once), the plan packs recommend's right-sizing, and nothing of
// the snapshot is released.
func TestUseCasesShareTheAnalysisOfASnapshotInMemory(t *testing.T) {
	t.Parallel()
	a, ctx := testApp(), context.Background()
	mem := demoMemory(t)
	src := Source{Snapshot: mem}
	rep := DefaultReportRequest()
	rep.Source = src
	first, err := a.Report(ctx, rep)
	if err != nil || first.Ledger == nil {
		t.Fatalf("report: %v (ledger %v)", err, first.LedgerErr)
	}
	second, err := a.Report(ctx, rep)
	if err != nil {
		t.Fatal(err)
	}
	ad := DefaultAdviseRequest()
	ad.Source = src
	adv, err := a.Advise(ctx, ad)
	if err != nil {
		t.Fatal(err)
	}
	if first.Ledger != second.Ledger || first.Ledger != adv.Ledger || first.Report != second.Report {
		t.Error("the report's ledger was built again: the use cases do not share the analysis")
	}
	// Another grouping is another report of the same allocation, with the
	// same ledger.
	byNode := rep
	byNode.Report.By = "node"
	other, err := a.Report(ctx, byNode)
	if err != nil {
		t.Fatal(err)
	}
	if other.Ledger != first.Ledger || other.Report == first.Report || other.Report.Totals.TotalCost != first.Report.Totals.TotalCost {
		t.Error("a report by node did not share the allocation's ledger, or shared the namespace report")
	}
	rr := DefaultRecommendRequest()
	rr.Source = src
	recs, err := a.Recommend(ctx, rr)
	if err != nil || recs.LedgerErr != nil {
		t.Fatalf("recommend: %v, %v", err, recs.LedgerErr)
	}
	pr := DefaultPlanRequest()
	pr.Source = src
	plan, err := a.Plan(ctx, pr)
	if err != nil {
		t.Fatal(err)
	}
	if plan.Recommendations.Result != recs.Result {
		t.Error("the plan right-sized the snapshot again")
	}
	if mem.Prepared.Hourly() == nil {
		t.Error("a use case released the hourly series of a snapshot it does not own")
	}
	for _, p := range mem.Prepared.Pods() {
		for _, c := range p.Containers {
			if c.CPU != nil {
				return // usage detail kept
			}
		}
	}
	t.Error("a use case released the usage detail of a snapshot it does not own")
}

// A prices file is part of the analysis: the same snapshot with other
// prices is another analysis.
func TestAnAnalysisPerPriceFile(t *testing.T) {
	t.Parallel()
	a, ctx := testApp(), context.Background()
	mem := fixtureMemory(t)
	prices := writeFile(t, "prices.yaml", "prices:\n  - match: {instanceType: p4d.24xlarge, region: us-east-1}\n    nodeUSDPerHour: 32\n")
	one, err := a.Analysis(ctx, Data{Source: Source{Snapshot: mem}})
	if err != nil {
		t.Fatal(err)
	}
	again, err := a.Analysis(ctx, Data{Source: Source{Snapshot: mem}})
	if err != nil {
		t.Fatal(err)
	}
	other, err := a.Analysis(ctx, Data{Source: Source{Snapshot: mem}, Prices: MustLoadPrices(prices, nil)})
	if err != nil {
		t.Fatal(err)
	}
	if one != again || one == other {
		t.Fatalf("analyses: same prices shared %v, other prices apart %v", one == again, one != other)
	}
	x, err := one.CostReport(cost.DefaultOptions(), cost.DefaultReportOptions())
	if err != nil {
		t.Fatal(err)
	}
	y, err := other.CostReport(cost.DefaultOptions(), cost.DefaultReportOptions())
	if err != nil {
		t.Fatal(err)
	}
	if !near(x.Totals.NodeCost, fixtureNodeCost) || !near(y.Totals.NodeCost, fixtureHours*(32+g6USDPerHour)) {
		t.Errorf("node cost $%v and $%v, want $%v and $%v", x.Totals.NodeCost, y.Totals.NodeCost, fixtureNodeCost, fixtureHours*(32+g6USDPerHour))
	}
	if one.Snapshot() != mem.Prepared || one.Prices() == nil || one.Partial() != nil {
		t.Error("the analysis does not read the snapshot in memory")
	}
	if _, err := a.Analysis(ctx, Data{Source: Source{Snapshot: mem}, Window: 48 * 3600e9}); KindOf(err) != Usage {
		t.Errorf("another window than the snapshot's: %v, want a usage error", err)
	}
}

// An analysis that read its snapshot owns it: once the ledger is staged
// it releases what the build no longer reads (the hourly series, the
// usage detail), and refuses, as a bug, a result that would read them
// afterwards instead of computing it on what is left. A result computed
// before the release stays.
func TestTheOwnerReleasesWhatTheLedgerNoLongerReads(t *testing.T) {
	t.Parallel()
	own, err := sim.Generate(demoConfig(DefaultDemo())) // the test reads it: it owns it
	if err != nil {
		t.Fatal(err)
	}
	prep, err := Prepare(own)
	if err != nil {
		t.Fatal(err)
	}
	an := testApp().newAnalysis(prep, own, nil, &nodePrices{Catalog: pricing.Embedded()})
	c := cost.DefaultOptions()
	before, err := an.IdleCauses(c, idlecause.DefaultPolicy(), 5)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := an.Ledger(ledger.DefaultOptions(), c); err != nil {
		t.Fatal(err)
	}
	if prep.Hourly() != nil {
		t.Error("the owner kept the hourly series the staged ledger no longer reads")
	}
	for _, p := range prep.Pods() {
		for _, ct := range p.Containers {
			if ct.CPU != nil || ct.Memory != nil {
				t.Fatalf("pod %s kept its usage detail", p.Key())
			}
		}
	}
	after, err := an.IdleCauses(c, idlecause.DefaultPolicy(), 5)
	if err != nil || ledgerJSON(t, after) != ledgerJSON(t, before) {
		t.Errorf("idle causes computed before the release changed or failed: %v", err)
	}
	other := c
	other.IdleThreshold = 0.2
	refused := func(what string, err error) {
		t.Helper()
		if err == nil || KindOf(err) != Internal || !strings.Contains(err.Error(), "released once the savings ledger was staged") {
			t.Errorf("%s after the release: %v, want the internal error naming the release", what, err)
		}
	}
	_, err = an.Allocation(other)
	refused("an allocation", err)
	_, err = an.Recommendations(rightsize.DefaultPolicy()) // forgotten: it cannot be computed again
	refused("right-sizing", err)
	_, err = an.IdleCauses(other, idlecause.DefaultPolicy(), 5)
	refused("idle causes", err)
	// The ledger asked for again is the one built.
	if _, err := an.Ledger(ledger.DefaultOptions(), c); err != nil {
		t.Errorf("the ledger asked for again: %v", err)
	}
}

// The report the CLI runs (an owned analysis that releases) and the
// report on a snapshot in memory (shared, nothing released) are the same
// report with the same ledger.
func TestReleasingChangesNoFigure(t *testing.T) {
	t.Parallel()
	a, ctx := testApp(), context.Background()
	owned, err := a.Report(ctx, demoReport())
	if err != nil {
		t.Fatal(err)
	}
	if owned.Snapshot.Hourly() != nil {
		t.Error("the report kept the hourly series of a snapshot it read itself")
	}
	rep := DefaultReportRequest()
	rep.Source = Source{Snapshot: demoMemory(t)}
	shared, err := a.Report(ctx, rep)
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(resultJSON(t, shared), resultJSON(t, owned)); d != "" {
		t.Errorf("the released report differs (-shared +owned):\n%s", d)
	}
}

// resultJSON is a report's figures: the report, its ledger and its idle
// causes.
func resultJSON(t *testing.T, r *ReportResult) string {
	t.Helper()
	b, err := json.MarshalIndent(struct {
		R any
		L any
		I any
	}{r.Report, r.Ledger, r.IdleCauses}, "", " ")
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// The App decides what runs at once; the results are the same whether
// it runs one thing at a time or one per core.
func TestWorkersChangeNoResult(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	par, err := testApp().Report(ctx, demoReport())
	if err != nil {
		t.Fatal(err)
	}
	seq, err := testApp().WithWorkers(1).Report(ctx, demoReport())
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(resultJSON(t, par), resultJSON(t, seq)); d != "" {
		t.Errorf("one worker changed the report (-per core +one):\n%s", d)
	}
	if a := testApp().WithWorkers(-3); a.workers != 0 {
		t.Errorf("WithWorkers(-3) is %d workers, want 0 (one per core)", a.workers)
	}
}

// Results asked for at once are computed once (run under -race: the
// memos share nothing unguarded).
func TestAnalysisIsSafeForConcurrentUse(t *testing.T) {
	t.Parallel()
	an := testApp().newAnalysis(fixtureMemory(t).Prepared, nil, nil, &nodePrices{Catalog: pricing.Embedded()})
	var wg sync.WaitGroup
	ledgers := make([]*ledger.Ledger, 8)
	allocs := make([]*cost.Allocation, 8)
	for i := range ledgers {
		wg.Go(func() {
			l, err := an.Ledger(ledger.DefaultOptions(), cost.DefaultOptions())
			if err != nil {
				t.Error(err)
			}
			a, err := an.Allocation(cost.DefaultOptions())
			if err != nil {
				t.Error(err)
			}
			ledgers[i], allocs[i] = l, a
		})
	}
	wg.Wait()
	for i := range ledgers {
		if ledgers[i] != ledgers[0] || allocs[i] != allocs[0] {
			t.Fatal("a result asked for at once was computed twice")
		}
	}
	// Options are keys: another idle threshold is another allocation, a
	// pricer in the options is ignored (the analysis prices).
	o := cost.DefaultOptions()
	o.IdleThreshold = 0.2
	other, err := an.Allocation(o)
	if err != nil {
		t.Fatal(err)
	}
	same, err := an.Allocation(cost.DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	if other == allocs[0] || same != allocs[0] {
		t.Error("allocations are not keyed by their settings")
	}
	if _, err := an.Ledger(ledger.Options{Levers: []string{"magic"}}, cost.DefaultOptions()); err == nil {
		t.Error("a ledger with an unknown lever")
	}
}

// Plan on current shapes reads no right-sizing: the plan packs the pods
// as they are.
func TestPlanOnCurrentShapesNeedsNoRecommendations(t *testing.T) {
	t.Parallel()
	req := DefaultPlanRequest()
	req.Source, req.Shapes = Source{Snapshot: fixtureMemory(t)}, packing.CurrentShapes
	a := testApp()
	res, err := a.Plan(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	an, err := a.Analysis(context.Background(), req.Data)
	if err != nil {
		t.Fatal(err)
	}
	if res.Recommendations != nil || len(an.recs) != 0 {
		t.Errorf("current shapes right-sized the snapshot (%d right-sizings)", len(an.recs))
	}
}

// A shared analysis keeps its results weakly; the report holds what it
// stands on (its right-sizing, allocation and whole idle causes) for as
// long as it is held, so that the service's cycle report keeps them for
// the cycle's other answers: after collections, advise, recommend and
// another report find them at hand rather than computing them again.
func TestTheReportHoldsWhatItStandsOnInASharedAnalysis(t *testing.T) {
	t.Parallel()
	a, ctx := testApp(), context.Background()
	mem := demoMemory(t)
	rep := DefaultReportRequest()
	rep.Source = Source{Snapshot: mem}
	res, err := a.Report(ctx, rep)
	if err != nil || res.Ledger == nil {
		t.Fatalf("report: %v (ledger %v)", err, res.LedgerErr)
	}
	if len(res.held) != 3 {
		t.Fatalf("the report holds %d results, want the right-sizing, allocation and idle causes", len(res.held))
	}
	for range 3 {
		runtime.GC()
	}
	an, err := a.Analysis(ctx, rep.Data)
	if err != nil {
		t.Fatal(err)
	}
	recs, err := an.Recommendations(rightsize.DefaultPolicy())
	if err != nil {
		t.Fatal(err)
	}
	alloc, err := an.Allocation(rep.Cost)
	if err != nil {
		t.Fatal(err)
	}
	why, err := an.idleCauses(rep.Cost, idlecause.DefaultPolicy())
	if err != nil {
		t.Fatal(err)
	}
	if recs != res.held[0] || alloc != res.held[1] || why != res.held[2] {
		t.Errorf("computed again after a collection: right-sizing %v, allocation %v, idle causes %v (true: the report's)",
			recs == res.held[0], alloc == res.held[1], why == res.held[2])
	}
	rr := DefaultRecommendRequest()
	rr.Source = rep.Source
	rec, err := a.Recommend(ctx, rr)
	if err != nil {
		t.Fatal(err)
	}
	if rec.Result != res.held[0] {
		t.Error("recommend right-sized the snapshot again")
	}
	runtime.KeepAlive(res)
}
