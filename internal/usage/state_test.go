package usage

import (
	"encoding/json"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// denseActivity is the 101-bucket histogram Activity held before it kept
// only its span: the reference its answers must match exactly.
type denseActivity struct{ hist [activityBuckets]float64 }

func (d *denseActivity) add(v, s float64) { d.hist[bucketOf(min(max(v, 0), 1))] += s }

func (d *denseActivity) idle(threshold float64) float64 {
	var s float64
	for i := range min(max(int(math.Round(threshold*100)), 0), activityBuckets) {
		s += d.hist[i]
	}
	return s
}

func (d *denseActivity) quantile(q, seconds, maxV float64) float64 {
	target, cum := min(max(q, 0), 1)*seconds, 0.0
	for i, s := range d.hist {
		cum += s
		if cum >= target && s > 0 {
			return min(float64(i+1)/100, maxV)
		}
	}
	return maxV
}

func TestActivitySpanAnswersAsTheDenseHistogram(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(21, 22))
	for trial := range 400 {
		var parts [3]Activity
		var ref denseActivity
		center, width := rng.Float64(), []float64{0.01, 0.05, 0.3, 1.2}[rng.IntN(4)]
		for p := range parts {
			for range rng.IntN(300) {
				v, s := center+(rng.Float64()-0.5)*width, float64(1+rng.IntN(600))
				parts[p].Add(v, s)
				ref.add(v, s)
			}
		}
		a := parts[0]
		a.Merge(&parts[1])
		a.Merge(&parts[2])
		var back Activity
		data, _ := json.Marshal(&a)
		if err := json.Unmarshal(data, &back); err != nil {
			t.Fatalf("trial %d: %v", trial, err)
		}
		if cap(a.hist) > activityBuckets || a.lo < 0 || a.lo+len(a.hist) > activityBuckets {
			t.Fatalf("trial %d: span [%d, +%d) capacity %d", trial, a.lo, len(a.hist), cap(a.hist))
		}
		if a.Seconds > 0 && !back.isPacked() {
			t.Fatalf("trial %d: an activity read back is not packed", trial)
		}
		for _, got := range []*Activity{&a, &back} {
			for th := 0; th <= 101; th++ {
				if g, w := got.IdleSeconds(float64(th)/100), ref.idle(float64(th)/100); g != w {
					t.Fatalf("trial %d: idle below %d%% = %v, dense %v", trial, th, g, w)
				}
			}
			for _, q := range []float64{0, 0.01, 0.1, 0.5, 0.9, 0.95, 0.99, 1} {
				if g, w := got.Quantile(q), ref.quantile(q, got.Seconds, got.Max); g != w && !(math.IsNaN(g) && got.Seconds == 0) {
					t.Fatalf("trial %d: quantile(%v) = %v, dense %v", trial, q, g, w)
				}
			}
		}
	}
}

func TestStateRoundTrip(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(23, 24))
	for range 100 {
		var a Activity
		var g Gauge
		for range rng.IntN(200) {
			a.Add(rng.Float64()*0.6, float64(1+rng.IntN(300)))
			g.Add(math.Exp2((rng.Float64()-0.5)*40), float64(1+rng.IntN(300)))
		}
		var a2 Activity
		if err := a2.SetState(copyActivityState(a.State())); err != nil {
			t.Fatal(err)
		}
		var g2 Gauge
		if err := g2.SetState(copyGaugeState(g.State())); err != nil {
			t.Fatal(err)
		}
		ja, _ := json.Marshal(&a)
		ja2, _ := json.Marshal(&a2)
		jg, _ := json.Marshal(&g)
		jg2, _ := json.Marshal(&g2)
		if string(ja) != string(ja2) || string(jg) != string(jg2) {
			t.Fatalf("state round trip changed\n%s\n%s\nor\n%s\n%s", ja, ja2, jg, jg2)
		}
		// A gauge set from state grows without touching memory past it.
		buckets := append(slices.Clone(g.State().Buckets), 42, 42)
		st := g.State()
		st.Buckets = buckets[:len(st.Buckets)]
		var g3 Gauge
		if err := g3.SetState(st); err != nil {
			t.Fatal(err)
		}
		g3.Add(1e300, 1)
		g3.Add(1e-300, 1)
		if buckets[len(buckets)-1] != 42 || buckets[len(buckets)-2] != 42 {
			t.Fatal("SetState's gauge wrote past the buckets it was given")
		}
	}
}

func copyActivityState(s ActivityState) ActivityState {
	s.Buckets = slices.Clone(s.Buckets)
	return s
}

func copyGaugeState(s GaugeState) GaugeState {
	s.Buckets = slices.Clone(s.Buckets)
	return s
}

func TestSetStateRejects(t *testing.T) {
	t.Parallel()
	acts := []struct {
		name, wantErr string
		s             ActivityState
	}{
		{"negative seconds", "negative", ActivityState{Seconds: -1}},
		{"NaN bucket", "out of range", ActivityState{Seconds: 1, Samples: 1, Buckets: []float64{math.NaN()}}},
		{"buckets past 100%", "out of range", ActivityState{Seconds: 2, Samples: 1, Offset: 100, Buckets: []float64{1, 1}}},
		{"negative offset", "out of range", ActivityState{Seconds: 1, Samples: 1, Offset: -1, Buckets: []float64{1}}},
		{"buckets short of seconds", "histogram holds", ActivityState{Seconds: 10, Samples: 1, Buckets: []float64{1}}},
		{"max above 1", "above 1", ActivityState{Seconds: 1, Samples: 1, Max: 2, Buckets: []float64{1}}},
	}
	for _, tt := range acts {
		a := Activity{Seconds: 7}
		if err := a.SetState(tt.s); err == nil || !strings.Contains(err.Error(), tt.wantErr) || a.Seconds != 7 {
			t.Errorf("activity %s: %v (seconds now %v), want %q and no change", tt.name, err, a.Seconds, tt.wantErr)
		}
	}
	gauges := []struct {
		name, wantErr string
		s             GaugeState
	}{
		{"scale too fine", "scale 5", GaugeState{Scale: 5}},
		{"scale too coarse", "scale -6", GaugeState{Scale: -6}},
		{"too many buckets", "out of range", GaugeState{Seconds: 113, Scale: 4, Buckets: slices.Repeat([]float64{1}, 113)}},
		{"past the float64 range", "out of range", GaugeState{Seconds: 1, Scale: 4, Offset: gaugeMaxIndex, Buckets: []float64{0, 1}}},
		{"below the float64 range", "out of range", GaugeState{Seconds: 1, Scale: 4, Offset: gaugeMinIndex - 1, Buckets: []float64{1}}},
		{"infinite bucket", "out of range", GaugeState{Seconds: 1, Scale: 4, Buckets: []float64{math.Inf(1)}}},
		{"buckets short of seconds", "histogram holds", GaugeState{Seconds: 5, Scale: 4, Buckets: []float64{1}}},
		{"negative samples", "negative", GaugeState{Samples: -1, Scale: 4}},
	}
	for _, tt := range gauges {
		g := Gauge{Seconds: 7}
		if err := g.SetState(tt.s); err == nil || !strings.Contains(err.Error(), tt.wantErr) || g.Seconds != 7 {
			t.Errorf("gauge %s: %v, want %q and no change", tt.name, err, tt.wantErr)
		}
	}
}

func TestActivityAddAllocatesAtMostTwice(t *testing.T) {
	vs := []float64{0.5, 0.49, 0.51, 0.1, 0.9, 0, 1}
	var a Activity
	allocs := testing.AllocsPerRun(10, func() {
		a = Activity{}
		for _, v := range vs {
			a.Add(v, 1)
		}
	})
	if allocs != 2 || cap(a.hist) != activityBuckets {
		t.Errorf("widening to the full range: %v allocations, capacity %d; want 2 and %d", allocs, cap(a.hist), activityBuckets)
	}
	i := 0
	if n := testing.AllocsPerRun(1000, func() { a.Add(vs[i%len(vs)], 1); i++ }); n != 0 {
		t.Errorf("Add within the span allocates %v times per call", n)
	}
}
