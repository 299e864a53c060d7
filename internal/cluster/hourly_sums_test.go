package cluster_test

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/gpuwise/gpuwise/internal/cluster"
	ct "github.com/gpuwise/gpuwise/internal/cluster/clustertest"
)

// closeSeries compares series values to float32 rounding (the sums of
// the parts add in another order than the whole's), NaN equal to NaN.
var closeSeries = cmp.Comparer(func(a, b float32) bool {
	if a != a || b != b {
		return a != a && b != b
	}
	return math.Abs(float64(a)-float64(b)) <= 2e-6*math.Max(1, math.Max(math.Abs(float64(a)), math.Abs(float64(b))))
})

// sample is one random input of a builder, at seconds from the window's
// start.
type sample struct {
	kind     int
	key      string
	t, dt    float64
	v, v2, f float64
}

func randomSamples(r *rand.Rand, seconds float64, n int) []sample {
	out := make([]sample, n)
	for i := range out {
		t := r.Float64()*seconds*1.1 - 0.05*seconds
		out[i] = sample{kind: r.IntN(8), key: fmt.Sprintf("ml/w%d", r.IntN(5)), t: t,
			dt: r.Float64() * 5400, v: r.Float64(), v2: r.Float64() * 3, f: float64(1+r.IntN(4)) / 4}
	}
	return out
}

// feed gives b the samples, moved to b's window, which starts off
// seconds after theirs; the builder clips what falls outside.
func feed(b *cluster.HourlyBuilder, off float64, samples []sample) {
	var buf []cluster.Span
	for _, s := range samples {
		a, t := b.Workload(s.key), s.t-off
		buf = b.Spans(t, s.dt, buf[:0])
		switch s.kind {
		case 0:
			a.Life(t, t+s.dt, s.f)
		case 1:
			a.OOMKills(t, 1)
		}
		for _, sp := range buf {
			feedSpan(a, sp, s)
		}
	}
}

func feedSpan(a *cluster.HourlyAcc, sp cluster.Span, s sample) {
	switch s.kind {
	case 2:
		a.GPUs(sp, s.f, s.f*s.v, s.f*float64(int(s.v*2)))
	case 3:
		a.Links(sp, s.v*1e9, 2, s.v2*1e9, int(s.v2))
	case 4:
		a.CPU(sp, s.v*s.v2, s.v2)
		a.Throttle(sp, 10, 10*s.v)
	case 5:
		a.Memory(sp, s.v)
	case 6:
		a.Serve(sp, cluster.ServerVLLM, s.v*5, s.v2*100, -1, s.v)
	case 7:
		a.Latency(sp, "vllm:e2e_request_latency_seconds", []float64{0.5, 1, 2}, []float64{s.v, s.v2, s.f, 0.1})
	}
}

// cuts are the offsets (seconds) splitting a window into intervals.
var cuts = map[string][]float64{
	"whole hours":           {0, 3600, 3 * 3600, 4 * 3600},
	"partial hours":         {0, 1200, 3600, 3 * 3600, 3*3600 + 600, 3*3600 + 2400, 4 * 3600},
	"ten-minute intervals":  tenMinutes(),
	"one interval":          {0},
	"two-hour then partial": {0, 7200, 9000, 3 * 3600, 4 * 3600},
}

func tenMinutes() []float64 {
	var out []float64
	for t := 0.0; t < 4.5*3600; t += 600 {
		out = append(out, t)
	}
	return out
}

// Property: the series built from one builder over a window equal those
// built from the merged sums of builders over intervals of it, whole
// hours or partial, whatever the samples.
func TestHourSumsMergeLikeOneBuilder(t *testing.T) {
	t.Parallel()
	w := ct.Window(5)
	w.End = w.End.Add(-30 * time.Minute) // a partial last hour
	for name, cut := range cuts {
		for seed := range uint64(20) {
			r := rand.New(rand.NewPCG(seed, 7))
			samples := randomSamples(r, w.Seconds(), 60)
			one := cluster.NewHourlyBuilder(w, 0.1)
			feed(one, 0, samples)
			want := one.Build()
			merged := &cluster.HourSums{}
			for i, from := range cut {
				to := w.Seconds()
				if i+1 < len(cut) {
					to = cut[i+1]
				}
				part := cluster.Window{Start: w.Start.Add(time.Duration(from) * time.Second), End: w.Start.Add(time.Duration(to) * time.Second)}
				b := cluster.NewHourlyBuilder(part, 0.1)
				feed(b, from, samples)
				sums, err := b.Sums()
				if err != nil {
					t.Fatalf("%s seed %d: %v", name, seed, err)
				}
				merged.Add(sums)
			}
			got, err := merged.Build(w)
			if err != nil {
				t.Fatal(err)
			}
			if len(want) == 0 {
				t.Fatalf("%s seed %d: no series from the whole window: the samples test nothing", name, seed)
			}
			if diff := cmp.Diff(want, got.Workloads, closeSeries); diff != "" {
				t.Fatalf("%s seed %d: merged sums (-one builder +merged):\n%s", name, seed, diff)
			}
		}
	}
}

func TestHourSumsRefusesWindowsOffTheHour(t *testing.T) {
	t.Parallel()
	w := ct.Window(3)
	across := cluster.Window{Start: w.Start.Add(20 * time.Minute), End: w.Start.Add(70 * time.Minute)}
	if _, err := cluster.NewHourlyBuilder(across, 0.1).Sums(); err == nil || !strings.Contains(err.Error(), "crosses an hour boundary") {
		t.Errorf("sums of %s: %v, want an error naming the hour boundary", across, err)
	}
	inside := cluster.Window{Start: w.Start.Add(20 * time.Minute), End: w.Start.Add(50 * time.Minute)}
	if _, err := cluster.NewHourlyBuilder(inside, 0.1).Sums(); err != nil {
		t.Errorf("sums of %s, inside one hour: %v", inside, err)
	}
	if _, err := (&cluster.HourSums{}).Build(across); err == nil {
		t.Errorf("Build(%s) accepted a window starting inside an hour", across)
	}
}

// Sums keep only the hours a workload has: a workload living one hour of
// a day stores one hour per quantity.
func TestHourSumsAreSparse(t *testing.T) {
	t.Parallel()
	b := cluster.NewHourlyBuilder(ct.Window(24), 0.1)
	a := b.Workload("ml/short")
	a.Life(5*3600, 5*3600+1800, 1)
	buf := b.Spans(5*3600, 1800, nil)
	a.GPUs(buf[0], 1, 0.5, 0)
	sums, err := b.Sums()
	if err != nil {
		t.Fatal(err)
	}
	if got := sums.Floats(); got != 5 {
		t.Errorf("%d floats stored, want 5 (pods, held, measured, active and idle GPU time for one hour)", got)
	}
}

// Lives taken from elsewhere (the service's inventory) replace the sums'
// own: sums of the measured samples with the lives of the life samples
// build what one builder of both builds.
func TestHourSumsWithLives(t *testing.T) {
	t.Parallel()
	w := ct.Window(5)
	for seed := range uint64(20) {
		samples := randomSamples(rand.New(rand.NewPCG(seed, 11)), w.Seconds(), 60)
		var lives, measured []sample
		for _, s := range samples {
			if s.kind == 0 {
				lives = append(lives, s)
			} else {
				measured = append(measured, s)
			}
		}
		one := cluster.NewHourlyBuilder(w, 0.1)
		feed(one, 0, samples)
		want := one.Build()
		l, m := cluster.NewHourlyBuilder(w, 0.1), cluster.NewHourlyBuilder(w, 0.1)
		feed(l, 0, lives)
		feed(m, 0, append(measured, sample{kind: 0, key: "ml/w9", dt: 7200, f: 1})) // a life the lives lack
		ls, err := l.Sums()
		if err != nil {
			t.Fatal(err)
		}
		ms, err := m.Sums()
		if err != nil {
			t.Fatal(err)
		}
		got, err := ms.WithLives(ls).Build(w)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(want, got.Workloads, closeSeries); diff != "" {
			t.Fatalf("seed %d (-one builder +measured sums with the lives):\n%s", seed, diff)
		}
	}
}
