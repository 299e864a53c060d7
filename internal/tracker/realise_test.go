package tracker

import (
	"math"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/gpuwise/gpuwise/internal/cluster/clustertest"
	"github.com/gpuwise/gpuwise/internal/ledger/lever"
)

// hours is a fixture history: each node's $/h per hour (0: not running),
// plus uniform noise of ± noise dollars an hour on every running hour.
func hours(start time.Time, n int, rates map[string]func(h int) float64, noise float64, rng *rand.Rand) []Hour {
	var out []Hour
	for h := range n {
		for node, rate := range rates {
			usd := rate(h)
			if usd == 0 {
				continue
			}
			if noise > 0 {
				usd += (rng.Float64()*2 - 1) * noise
			}
			out = append(out, Hour{Start: start.Add(time.Duration(h) * time.Hour), Node: node, USD: usd, Seconds: 3600, ActiveGPUHours: 1})
		}
	}
	return out
}

func flat(usd float64) func(int) float64 { return func(int) float64 { return usd } }

func until(usd float64, end int) func(int) float64 {
	return func(h int) float64 {
		if h < end {
			return usd
		}
		return 0
	}
}

// A removed node's cost is realised exactly; the total adds up to the
// cent with the other nodes' drift counted apart.
func TestRealisedRemoval(t *testing.T) {
	start := clustertest.At(0)
	p := &Plan{Cluster: "c", Updated: start.Add(96 * time.Hour),
		Baseline: &Baseline{At: start.Add(48 * time.Hour), Window: clustertest.Window(48)},
		Actions: []*Action{
			{ID: "consolidate-aaaaaa", Lever: "consolidate", Kind: lever.KindRemoveNodes, Status: Applied, PredictedUSDMonth: 7300,
				AppliedAt: start.Add(60 * time.Hour), FirstProposed: start.Add(48 * time.Hour), Targets: []Target{{Kind: "node", Name: "a2", Expect: "node gone"}}},
			{ID: "rightsize-bbbbbb", Lever: "rightsize", Kind: lever.KindResize, Status: Partly, RealisedBy: []string{"consolidate-aaaaaa"}},
			{ID: "consolidate-cccccc", Lever: "consolidate", Kind: lever.KindRemoveNodes, Status: Pending, PredictedUSDMonth: 1460},
		}}
	rng := rand.New(rand.NewPCG(1, 2))
	hs := hours(start, 96, map[string]func(int) float64{"a1": flat(10), "l1": flat(2)}, 0.5, rng)
	hs = append(hs, hours(start, 96, map[string]func(int) float64{"a2": until(10, 60)}, 0, nil)...) // a node's price does not wobble
	pf := p.Realise(hs)
	var rem, rs, pend Realised
	for _, r := range pf.Actions {
		switch r.ID {
		case "consolidate-aaaaaa":
			rem = r
		case "rightsize-bbbbbb":
			rs = r
		case "consolidate-cccccc":
			pend = r
		}
	}
	// windows of 36 h: [24, 60) and [60, 96)
	if rem.Status != Measured || rem.Before.Start != start.Add(24*time.Hour) || rem.After.End != start.Add(96*time.Hour) {
		t.Fatalf("removal: %+v", rem)
	}
	if rem.RealisedUSDMonth != 7300 || rem.LowUSDMonth != 7300 || rem.HighUSDMonth != 7300 || rem.Nodes != 1 {
		t.Errorf("removal realised %.2f [%.2f, %.2f] on %d nodes, want exactly 7300.00 (a $10/h node gone)", rem.RealisedUSDMonth, rem.LowUSDMonth, rem.HighUSDMonth, rem.Nodes)
	}
	if rs.Status != Prerequisite || pend.Status != NotApplied {
		t.Errorf("prerequisite %q, pending %q", rs.Status, pend.Status)
	}
	tot := pf.Total
	if err := tot.Reconcile(); err != nil {
		t.Fatal(err)
	}
	// before [0, 48): $22/h; after [48, 96): 12 h at $22, 36 h at $12 (noise aside)
	wantBefore, wantAfter := 22*730.0, (12*22+36*12)/48.0*730
	if math.Abs(tot.BeforeUSDMonth-wantBefore) > 200 || math.Abs(tot.AfterUSDMonth-wantAfter) > 200 ||
		tot.LowUSDMonth > wantBefore-wantAfter || tot.HighUSDMonth < wantBefore-wantAfter {
		t.Errorf("total %.2f → %.2f [%.2f, %.2f], want about %.2f → %.2f", tot.BeforeUSDMonth, tot.AfterUSDMonth, tot.LowUSDMonth, tot.HighUSDMonth, wantBefore, wantAfter)
	}
	if got := tot.Actions["consolidate-aaaaaa"]; got != cents(10*730*36/48.0) {
		t.Errorf("removal in the total %.2f, want %.2f (36 of the 48 after hours without a2)", got, 10*730*36/48.0)
	}
	if tot.ChangeUSDMonth < tot.LowUSDMonth || tot.ChangeUSDMonth > tot.HighUSDMonth || tot.HighUSDMonth-tot.LowUSDMonth <= 0 {
		t.Errorf("total range [%.2f, %.2f] around %.2f", tot.LowUSDMonth, tot.HighUSDMonth, tot.ChangeUSDMonth)
	}
	if tot.PredictedUSDMonth != 7300 || tot.WorkBefore == nil || *tot.WorkBefore != 3 || *tot.WorkAfter != 2.25 {
		t.Errorf("predicted %.2f work %v → %v", tot.PredictedUSDMonth, *tot.WorkBefore, *tot.WorkAfter)
	}
	// a broken total is caught
	bad := tot
	bad.OtherUSDMonth += 0.01
	if bad.Reconcile() == nil {
		t.Error("a total off by a cent reconciled")
	}
}

// Too little history after a change is said, not guessed.
func TestRealisedTooEarly(t *testing.T) {
	start := clustertest.At(0)
	p := &Plan{Cluster: "c", Updated: start.Add(50 * time.Hour), Baseline: &Baseline{At: start.Add(48 * time.Hour), Window: clustertest.Window(48)},
		Actions: []*Action{{ID: "consolidate-aaaaaa", Lever: "consolidate", Kind: lever.KindRemoveNodes, Status: Applied,
			AppliedAt: start.Add(49 * time.Hour), Targets: []Target{{Kind: "node", Name: "a2", Expect: "node gone"}}}}}
	pf := p.Realise(hours(start, 50, map[string]func(int) float64{"a2": until(10, 49)}, 0, nil))
	if pf.Actions[0].Status != TooEarly || pf.Total.Status != TooEarly {
		t.Errorf("%+v %+v, want too early", pf.Actions[0], pf.Total)
	}
}

// Noise: the stated range holds the true effect in most of many draws
// (about 95% for 2 standard errors; at least 85 of 100 asked).
func TestRealisedRangeCoversTheTruth(t *testing.T) {
	start := clustertest.At(0)
	inside := 0
	for seed := range 100 {
		rng := rand.New(rand.NewPCG(uint64(seed), 7))
		// autoscaling: a $8/h pool running 24 h a day before, 14 h after hour 72
		pool := func(h int) float64 {
			if h >= 72 && h%24 >= 14 {
				return 0
			}
			return 8
		}
		p := &Plan{Cluster: "c", Updated: start.Add(144 * time.Hour), Baseline: &Baseline{At: start.Add(72 * time.Hour), Window: clustertest.Window(72)},
			Actions: []*Action{{ID: "autoscale-aaaaaa", Lever: "autoscale", Kind: lever.KindScaleNodes, Status: Applied,
				AppliedAt: start.Add(72 * time.Hour), FirstProposed: start.Add(72 * time.Hour), Targets: []Target{{Kind: "node", Name: "p1", Model: "L4"}}}}}
		hs := hours(start, 144, map[string]func(int) float64{"p1": pool, "x": flat(3)}, 1, rng)
		p.Nodes = map[string]NodeFacts{"p1": {Model: "L4"}, "x": {Model: "A100-80GB"}}
		pf := p.Realise(hs)
		r := pf.Actions[0]
		truth := 8 * 10 / 24.0 * 730
		if r.LowUSDMonth <= truth && truth <= r.HighUSDMonth {
			inside++
		}
		if err := pf.Total.Reconcile(); err != nil {
			t.Fatal(err)
		}
	}
	if inside < 85 {
		t.Errorf("the range held the true saving in %d of 100 draws", inside)
	}
}
