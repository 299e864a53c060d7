package cluster_test

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/gpuwise/gpuwise/internal/cluster"
	ct "github.com/gpuwise/gpuwise/internal/cluster/clustertest"
)

// TestSpanIsSpansOfOne: Span answers exactly when Spans gives one span,
// with that span, for samples anywhere around the window, of any length,
// at whole and fractional seconds.
func TestSpanIsSpansOfOne(t *testing.T) {
	t.Parallel()
	w := cluster.Window{Start: ct.At(0), End: ct.At(5).Add(1234500000)} // 5 h 20.57 min: a part hour at the end
	b := cluster.NewHourlyBuilder(w, 0.1)
	rng := rand.New(rand.NewPCG(1, 2))
	ones, others := 0, 0
	for i := range 200000 {
		t0 := rng.Float64()*(w.Seconds()+8000) - 4000
		if i%2 == 0 {
			t0 = float64(int(t0)) // whole seconds, as on a scrape grid
		}
		dt := []float64{300, 299.999, 3600, 3600.001, 7200, 0, rng.Float64() * 9000}[i%7]
		spans := b.Spans(t0, dt, nil)
		sp, ok := b.Span(t0, dt)
		if ok != (len(spans) == 1) {
			t.Fatalf("Span(%v, %v): ok %v, Spans gives %d spans", t0, dt, ok, len(spans))
		}
		if !ok {
			others++
			continue
		}
		ones++
		if diff := cmp.Diff(spans[0], sp, cmp.AllowUnexported(cluster.Span{})); diff != "" {
			t.Fatalf("Span(%v, %v) differs from Spans (-Spans +Span):\n%s", t0, dt, diff)
		}
	}
	if ones == 0 || others == 0 {
		t.Fatalf("the cases did not cover both answers: %d one-span, %d other", ones, others)
	}
}

// TestBinsGrowFew: bins fed a series in time order are allocated 3 times
// for the whole window (24, 96 hours, then to its end),
// once for a day, never past the window's end; merged into empty bins
// they are taken when they reach it, copied to their hours otherwise.
func TestBinsGrowFew(t *testing.T) {
	t.Parallel()
	w := cluster.Window{Start: ct.At(0), End: ct.At(0).Add(336 * 3600e9)}
	b := cluster.NewHourlyBuilder(w, 0.1)
	var full, short, peaks cluster.Bins
	var at *float64
	allocs := 0
	for t0 := 7200.0; t0 < w.Seconds(); t0 += 300 {
		for _, sp := range b.Spans(t0, 300, nil) {
			full.Add(sp, 1)
			peaks.Peak(sp, 1)
			if t0 < 12*3600 {
				short.Add(sp, 1)
			}
		}
		if &full.S[0] != at {
			at, allocs = &full.S[0], allocs+1
		}
		if cap(full.S) > 334 || cap(peaks.S) > 334 {
			t.Fatalf("at %v s: capacity %d, past the window's end (334 hours from hour 2)", t0, cap(full.S))
		}
	}
	if allocs != 3 || cap(short.S) != 24 {
		t.Errorf("whole window: %d allocations, want 3; 10 hours: capacity %d, want 24 (one allocation)", allocs, cap(short.S))
	}
	if full.From != 2 || len(full.S) != 334 || full.S[0] != 3600 || cap(full.S) != 334 {
		t.Fatalf("bins From %d, %d hours (capacity %d), first %v; want 2, 334 (334), 3600", full.From, len(full.S), cap(full.S), full.S[0])
	}
	b2 := b
	var into cluster.Bins
	into.Merge(&full)
	if &into.S[0] != at {
		t.Error("merging full bins into empty ones copied them")
	}
	var intoShort cluster.Bins
	shortHours, shortAt := slices.Clone(short.S), &short.S[0]
	intoShort.Merge(&short)
	if len(intoShort.S) != 10 || cap(intoShort.S) != 10 || &intoShort.S[0] == shortAt || short.S != nil {
		t.Errorf("short bins merged: %d hours, capacity %d, shared %v, source kept %v; want a copy of 10, the source dropped",
			len(intoShort.S), cap(intoShort.S), &intoShort.S[0] == shortAt, short.S != nil)
	}
	if diff := cmp.Diff(shortHours, intoShort.S); diff != "" {
		t.Errorf("short bins merged (-want +got):\n%s", diff)
	}
	// Merging into bins that hold hours adds, hour by hour.
	var a, c cluster.Bins
	for _, sp := range b2.Spans(3*3600, 2*3600, nil) {
		a.Add(sp, 1)
	}
	for _, sp := range b2.Spans(4*3600, 2*3600, nil) {
		c.Add(sp, 2)
	}
	a.Merge(&c)
	if diff := cmp.Diff(cluster.Bins{From: 3, S: []float64{3600, 3600 + 7200, 7200}}, a); diff != "" {
		t.Errorf("merged into bins with hours (-want +got):\n%s", diff)
	}
}

// TestCursorIsSpan: a SpanCursor gives Span's answer, bit for bit, for
// series of samples in time order on a scrape grid and off it, with gaps,
// jumps back, samples in an hour's last second, straddling hours and
// the window's ends, at whole and fractional seconds.
func TestCursorIsSpan(t *testing.T) {
	t.Parallel()
	w := cluster.Window{Start: ct.At(0), End: ct.At(30).Add(1234500000)} // a part hour at the end
	b := cluster.NewHourlyBuilder(w, 0.1)
	rng := rand.New(rand.NewPCG(5, 6))
	fast := 0
	for series := range 400 {
		var c cluster.SpanCursor
		t0 := rng.Float64()*(w.Seconds()+8000) - 4000
		step := []float64{300, 15, 60.5, 299.999, 3600, 1800}[series%6]
		for i := range 600 {
			dt := step
			switch rng.IntN(20) {
			case 0:
				dt = rng.Float64() * 9000
			case 1:
				t0 -= rng.Float64() * 7200 // a jump back
			case 2:
				t0 = float64(int(t0/3600)+1)*3600 - rng.Float64() // an hour's last second
			case 3:
				dt = 0
			}
			if series%2 == 0 {
				t0 = float64(int64(t0))
			}
			want, wantOK := b.Span(t0, dt)
			got, ok := c.Span(b, t0, dt)
			if ok != wantOK || !sameSpan(got, want) {
				t.Fatalf("series %d sample %d: cursor Span(%v, %v) = %+v, %v; Span gives %+v, %v", series, i, t0, dt, got, ok, want, wantOK)
			}
			if ok {
				fast++
			}
			t0 += step
		}
	}
	if fast < 100000 {
		t.Fatalf("only %d one-span answers: the cases miss the common one", fast)
	}
}

func sameSpan(a, b cluster.Span) bool {
	return cmp.Equal(a, b, cmp.AllowUnexported(cluster.Span{}), cmp.Comparer(func(x, y float64) bool {
		return math.Float64bits(x) == math.Float64bits(y)
	}))
}
