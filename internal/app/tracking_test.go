package app

import (
	"context"
	"math"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gpuwise/gpuwise/internal/cluster"
	"github.com/gpuwise/gpuwise/internal/history"
	"github.com/gpuwise/gpuwise/internal/ledger/lever"
	"github.com/gpuwise/gpuwise/internal/sim"
	"github.com/gpuwise/gpuwise/internal/tally"
	"github.com/gpuwise/gpuwise/internal/tracker"
)

// nodeRates are each node's $/h as the allocation charges it (the
// catalog's price: a node's cost is its price × the hours it ran).
func nodeRates(t *testing.T, a *App, prep *cluster.Prepared) map[string]float64 {
	t.Helper()
	br := DefaultBreakdownRequest()
	br.Source, br.By = Source{Snapshot: &InMemory{Prepared: prep}}, []string{"node"}
	bd, err := a.Breakdown(context.Background(), br)
	if err != nil {
		t.Fatal(err)
	}
	life := map[string]float64{}
	for _, n := range prep.Nodes() {
		from, to := prep.Window().Start, prep.Window().End
		if !n.Created.IsZero() && n.Created.After(from) {
			from = n.Created
		}
		if !n.Deleted.IsZero() && n.Deleted.Before(to) {
			to = n.Deleted
		}
		life[n.Name] = to.Sub(from).Hours()
	}
	out := map[string]float64{}
	for _, r := range bd.Reports["node"].Rows {
		if life[r.Key] > 0 {
			out[r.Key] = r.TotalCost / life[r.Key]
		}
	}
	return out
}

// Simulator ground truth: the demo week with the ledger's first node
// removal and its spot move carried out at hour 96 (sim.Apply). The
// tracker, its baseline pinned at hour 72, sees both applied at hour 96
// and recovers each one's true saving — the removed nodes' $/h × 730, the
// on-demand − spot difference × 730 — within its stated range, to the
// cent; the total adds up.
func TestRealisedSavingsRecoverTheSimulatedTruth(t *testing.T) {
	a := New(func() time.Time { return time.Date(2026, 11, 8, 0, 0, 0, 0, time.UTC) })
	cfg := sim.DefaultConfig()
	s0, err := sim.Generate(cfg)
	if err != nil {
		t.Fatal(err)
	}
	prep0, err := Prepare(s0)
	if err != nil {
		t.Fatal(err)
	}
	rr := DefaultReportRequest()
	rr.Source = Source{Snapshot: &InMemory{Prepared: prep0}}
	res, err := a.Report(context.Background(), rr)
	if err != nil || res.Ledger == nil {
		t.Fatalf("%v %v", err, res.LedgerErr)
	}
	l := res.Ledger
	var removal, spot *lever.Action
	for i := range l.Actions {
		switch act := &l.Actions[i]; {
		case act.Kind == lever.KindRemoveNodes && removal == nil:
			removal = act
		case act.Kind == lever.KindSpot && spot == nil:
			spot = act
		}
	}
	if removal == nil || spot == nil {
		t.Fatal("the demo ledger has no node removal or spot move")
	}
	at := cfg.Start.Add(96 * time.Hour)
	var changes []sim.Change
	nodesOf := func(act *lever.Action) []string {
		var ns []string
		for _, tg := range act.Targets {
			if tg.Kind == "node" {
				ns = append(ns, tg.Name)
			}
		}
		return ns
	}
	for _, n := range nodesOf(removal) {
		changes = append(changes, sim.Change{Kind: sim.RemoveNode, Node: n, At: at})
	}
	for _, n := range nodesOf(spot) {
		changes = append(changes, sim.Change{Kind: sim.MoveToSpot, Node: n, At: at})
	}
	s1, err := sim.Generate(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if err := sim.Apply(s1, changes); err != nil {
		t.Fatal(err)
	}
	prep1, err := Prepare(s1)
	if err != nil {
		t.Fatal(err)
	}
	rates := nodeRates(t, a, prep1)
	var truthRemoval, truthSpot float64
	for _, n := range nodesOf(removal) {
		truthRemoval += rates[n] * 730
	}
	for _, n := range nodesOf(spot) {
		truthSpot += (rates[n] - rates[n+"-spot"]) * 730
	}
	if truthRemoval <= 0 || truthSpot <= 0 {
		t.Fatalf("truths %.2f, %.2f: the changes save nothing", truthRemoval, truthSpot)
	}

	p := tracker.New("demo")
	base := cluster.Window{Start: cfg.Start, End: cfg.Start.Add(72 * time.Hour)}
	for _, w := range []cluster.Window{base, prep1.Window()} {
		if err := p.Observe(tracker.Observation{Window: w, Snapshot: prep1.View(), Ledger: l}); err != nil {
			t.Fatal(err)
		}
	}
	br := DefaultBreakdownRequest()
	br.Source, br.By = Source{Snapshot: &InMemory{Prepared: prep1}}, []string{"node"}
	bd, err := a.Breakdown(context.Background(), br)
	if err != nil {
		t.Fatal(err)
	}
	pf := p.Realise(spreadNodeHours(prep1.View(), bd.Reports["node"]))
	got := map[string]tracker.Realised{}
	for _, r := range pf.Actions {
		got[r.ID] = r
	}
	for _, c := range []struct {
		act   *lever.Action
		truth float64
	}{{removal, truthRemoval}, {spot, truthSpot}} {
		id := tracker.ActionID(c.act.Lever, c.act.Key)
		ta, r := p.Action(id), got[id]
		if ta.Status != tracker.Applied || !ta.AppliedAt.Equal(at) {
			t.Errorf("%s (%s): %s at %v (%s), want applied at hour 96", id, c.act.Title, ta.Status, ta.AppliedAt, ta.Detection)
			continue
		}
		if r.Status != tracker.Measured || r.LowUSDMonth > c.truth+0.01 || r.HighUSDMonth < c.truth-0.01 || math.Abs(r.RealisedUSDMonth-c.truth) > 0.01 {
			t.Errorf("%s realised %.2f [%.2f, %.2f] (%s), truth %.2f", id, r.RealisedUSDMonth, r.LowUSDMonth, r.HighUSDMonth, r.Note, c.truth)
		}
		t.Logf("%s: predicted %.2f, realised %.2f [%.2f, %.2f], truth %.2f", id, r.PredictedUSDMonth, r.RealisedUSDMonth, r.LowUSDMonth, r.HighUSDMonth, c.truth)
	}
	for _, ta := range p.Actions {
		if ta.Kind == lever.KindScaleNodes && ta.Status != tracker.Pending {
			t.Errorf("%s: %s (%s): the removals and moves are not the autoscaler's", ta.ID, ta.Status, ta.Detection)
		}
	}
	if err := pf.Total.Reconcile(); err != nil || pf.Total.Status != tracker.Measured {
		t.Errorf("total %s: %v", pf.Total.Status, err)
	}
}

// A history pruned past its hourly retention still measures the plan: the
// baseline's days come from the daily rollup, run-rates exact.
func TestProgressFromDailyRowsPastTheHourlyRetention(t *testing.T) {
	ctx := context.Background()
	h, err := OpenHistory(ctx, filepath.Join(t.TempDir(), "h.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	start := time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)
	for hr := range 96 {
		c := history.Cycle{Cluster: "c", Start: start.Add(time.Duration(hr) * time.Hour), End: start.Add(time.Duration(hr+1) * time.Hour),
			Entries: []history.Entry{{Kind: tally.Node, Key: "keep", Values: tally.Values{Seconds: 3600, TotalUSD: 4}}}}
		if hr < 48 {
			c.Entries = append(c.Entries, history.Entry{Kind: tally.Node, Key: "gone", Values: tally.Values{Seconds: 3600, TotalUSD: 10}})
		}
		if _, err := h.Store().Record(ctx, c); err != nil {
			t.Fatal(err)
		}
	}
	p := &tracker.Plan{Cluster: "c", Updated: start.Add(96 * time.Hour), Observations: 2,
		Baseline: &tracker.Baseline{At: start.Add(48 * time.Hour), Window: cluster.Window{Start: start, End: start.Add(48 * time.Hour)}},
		Actions: []*tracker.Action{{ID: "consolidate-aaaaaa", Lever: "consolidate", Kind: lever.KindRemoveNodes, Status: tracker.Applied,
			AppliedAt: start.Add(48 * time.Hour), Targets: []tracker.Target{{Kind: "node", Name: "gone", Expect: "node gone", Applied: true}}}}}
	if err := h.Store().SavePlan(ctx, p); err != nil {
		t.Fatal(err)
	}
	// keep hourly rows from hour 60 only
	if err := h.Store().Prune(ctx, start.Add(60*time.Hour), start); err != nil {
		t.Fatal(err)
	}
	res, err := h.Progress(ctx, ProgressRequest{Cluster: "c", Path: "h.db"})
	if err != nil {
		t.Fatal(err)
	}
	tot, r := res.Proof.Total, res.Proof.Actions[0]
	if tot.Status != tracker.Measured || tot.BeforeUSDMonth != 14*730 || tot.AfterUSDMonth != 4*730 || tot.Reconcile() != nil {
		t.Errorf("total %s %.2f → %.2f (%s)", tot.Status, tot.BeforeUSDMonth, tot.AfterUSDMonth, tot.Note)
	}
	if r.Status != tracker.Measured || r.RealisedUSDMonth != 10*730 {
		t.Errorf("the removal: %+v", r)
	}
	if len(res.Notes) != 1 || !strings.Contains(res.Notes[0], "daily rows") {
		t.Errorf("notes %q, want the daily rows named", res.Notes)
	}
}
