package usage

import (
	"math/rand/v2"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

// answers is what the engines read from an Activity and a Gauge.
func answers(a *Activity, g *Gauge) []float64 {
	out := []float64{a.Seconds, float64(a.Samples), a.ActiveSeconds, a.Max, a.Mean(), g.Mean(), g.QuantileError()}
	for _, q := range []float64{0, 0.1, 0.5, 0.9, 0.95, 0.99, 1} {
		out = append(out, a.Quantile(q), g.Quantile(q))
	}
	for _, th := range []float64{0.01, 0.05, 0.1, 0.5} {
		out = append(out, a.IdleSeconds(th))
	}
	return out
}

func TestCompactKeepsStateAndAnswers(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 9))
	for n := range 40 {
		var a, a2 Activity
		var g, g2 Gauge
		for range n * 7 {
			v, secs := r.Float64()*float64(n)/40, 1+r.Float64()*60
			a.Add(v, secs)
			g.Add(v*1e9, secs)
		}
		a2.Merge(&a)
		g2.Merge(&g)
		before, stateA, stateG := answers(&a, &g), a.State(), g.State()
		a.Compact()
		g.Compact()
		if diff := cmp.Diff(before, answers(&a, &g), cmpopts.EquateNaNs()); diff != "" {
			t.Fatalf("n=%d: answers changed by Compact (-before +after):\n%s", n, diff)
		}
		if diff := cmp.Diff(stateA, a.State()); diff != "" {
			t.Fatalf("n=%d: activity state changed (-before +after):\n%s", n, diff)
		}
		if diff := cmp.Diff(stateG, g.State()); diff != "" {
			t.Fatalf("n=%d: gauge state changed (-before +after):\n%s", n, diff)
		}
		if cap(a.hist) != len(a.hist) || cap(g.buckets) != len(g.buckets) {
			t.Fatalf("n=%d: capacities %d/%d and %d/%d after Compact, want the lengths", n, cap(a.hist), len(a.hist), cap(g.buckets), len(g.buckets))
		}
		// Growing again after Compact gives what growing without it gives.
		for range 20 {
			v, secs := r.Float64(), 1+r.Float64()*60
			a.Add(v, secs)
			a2.Add(v, secs)
			g.Add(v*1e3, secs)
			g2.Add(v*1e3, secs)
		}
		if diff := cmp.Diff(answers(&a2, &g2), answers(&a, &g), cmpopts.EquateNaNs()); diff != "" {
			t.Fatalf("n=%d: adding after Compact differs (-uncompacted +compacted):\n%s", n, diff)
		}
	}
}

func TestCompactReleasesSpareCapacity(t *testing.T) {
	var a Activity
	a.Add(0.5, 60)
	a.Add(0.52, 60)
	var g Gauge
	g.Add(100, 60)
	if cap(a.hist) == len(a.hist) || cap(g.buckets) == len(g.buckets) {
		t.Fatalf("test premise: growing leaves spare capacity (activity %d/%d, gauge %d/%d)", len(a.hist), cap(a.hist), len(g.buckets), cap(g.buckets))
	}
	a.Compact()
	g.Compact()
	// The activity's span is 50–52%, its 51% bucket empty: packed, it
	// holds the two others only.
	if len(a.hist) != 2 || cap(a.hist) != 2 || len(g.buckets) != 1 || cap(g.buckets) != 1 {
		t.Errorf("after Compact: activity %d/%d, gauge %d/%d; want 2/2 and 1/1", len(a.hist), cap(a.hist), len(g.buckets), cap(g.buckets))
	}
	var empty Activity
	empty.Compact()
	if empty.hist != nil {
		t.Errorf("empty activity's array after Compact = %v, want nil", empty.hist)
	}
}

// TestCompactNil: compacting an unmeasured series (nil) does not panic,
// so that the snapshot's and the rolling window's walks need no nil
// checks.
func TestCompactNil(t *testing.T) {
	var a *Activity
	var g *Gauge
	a.Compact()
	g.Compact()
}
