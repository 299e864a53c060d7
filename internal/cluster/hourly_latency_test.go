package cluster

import (
	"math"
	"strings"
	"testing"
	"time"
)

// TestHistogramQuantileByHand checks the interpolation against quantiles
// worked out on paper: bounds 1, 2, 4 s and +Inf holding 10, 30, 40, 20
// requests (cumulative 10, 40, 80, 100).
func TestHistogramQuantileByHand(t *testing.T) {
	bounds := []float64{1, 2, 4}
	counts := []float64{10, 30, 40, 20}
	for _, c := range []struct{ q, want float64 }{
		{0.05, 0.5}, // rank 5 in [0, 1] holding 10: 0 + 1 × 5/10
		{0.25, 1.5}, // rank 25: 15 of the 30 in (1, 2]
		{0.5, 2.5},  // rank 50: 10 of the 40 in (2, 4]: 2 + 2 × 10/40
		{0.8, 4},    // rank 80: the top of (2, 4]
		{0.95, 4},   // rank 95 in +Inf: the largest finite bound
		{0.4, 2},    // rank 40: the top of (1, 2]
		{0.0, 0},    // rank 0: the first bucket's start
	} {
		if got := HistogramQuantile(c.q, bounds, counts); math.Abs(got-c.want) > 1e-12 {
			t.Errorf("q%.2f = %g, want %g", c.q, got, c.want)
		}
	}
	if got := HistogramQuantile(0.5, bounds, []float64{0, 0, 0, 0}); !math.IsNaN(got) {
		t.Errorf("empty histogram: q0.5 = %g, want NaN", got)
	}
	// An empty first bucket: the rank lands in the first bucket that has requests.
	if got := HistogramQuantile(0.5, bounds, []float64{0, 0, 10, 0}); got != 3 {
		t.Errorf("q0.5 of 10 in (2, 4] = %g, want 3", got)
	}
}

func TestLatencyHoursAccumulates(t *testing.T) {
	start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	w := Window{Start: start, End: start.Add(3 * time.Hour)}
	b := NewHourlyBuilder(w, DefaultIdleThreshold)
	a := b.Workload("ns/Deployment/x")
	a.Life(0, 3*3600, 1)
	bounds := []float64{0.5, 1}
	// Hour 0: 1 req/s split 0.2, 0.7, 0.1 over the whole hour; hour 1 no
	// sample; hour 2: Prometheus-style cumulative bins.
	sp, ok := b.Span(0, 3600)
	if !ok {
		t.Fatal("no span")
	}
	a.Latency(sp, "vllm:e2e_request_latency_seconds", bounds, []float64{0.2, 0.7, 0.1})
	a.AddLatencyBins("vllm:e2e_request_latency_seconds", bounds, []*Bins{{From: 2, S: []float64{5}}, {From: 2, S: []float64{8}}, {From: 2, S: []float64{9}}})
	ws := b.Build()
	if len(ws) != 1 || ws[0].Latency == nil {
		t.Fatalf("no latency series: %+v", ws)
	}
	l := ws[0].Latency
	if got := l.Hour(0); got == nil || math.Abs(float64(got[0])-720) > 1e-3 || math.Abs(float64(got[1])-2520) > 1e-3 || math.Abs(float64(got[2])-360) > 1e-3 {
		t.Errorf("hour 0 = %v, want [720 2520 360]", got)
	}
	if got := l.Hour(1); got != nil {
		t.Errorf("hour 1 = %v, want no data (not zeros)", got)
	}
	if got := l.Hour(2); got == nil || got[0] != 5 || got[1] != 3 || got[2] != 1 {
		t.Errorf("hour 2 = %v, want [5 3 1] (cumulative 5, 8, 9)", got)
	}
	sum, n := l.Sum(0, 3, nil)
	if n != 2 || sum[0] != 725 {
		t.Errorf("sum = %v over %d hours, want 725 in the first bucket over 2", sum, n)
	}
	if errs := ws[0].Latency.check("x", 3); len(errs) > 0 {
		t.Errorf("valid histogram rejected: %v", errs)
	}
	bad := *l
	bad.Counts = append(Series(nil), l.Counts...)
	bad.Counts[3] = 1 // hour 1's first bucket: a count among NaNs
	if errs := bad.check("x", 3); len(errs) == 0 || !strings.Contains(errs[0].Error(), "mixes") {
		t.Errorf("mixed hour accepted: %v", errs)
	}
	if c := l.within(1, 3); c.Hour(0) != nil || c.Hour(1)[0] != 5 {
		t.Errorf("within(1, 3) = %v", c.Counts)
	}
}
