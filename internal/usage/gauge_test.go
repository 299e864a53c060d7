package usage

import (
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"reflect"
	"slices"
	"sort"
	"strings"
	"testing"
	"unsafe"
)

// gaugeStateBytes is what the doc comment bounds: the struct plus the
// bucket array's capacity.
func gaugeStateBytes(g *Gauge) int { return int(unsafe.Sizeof(*g)) + cap(g.buckets)*8 }

type sample struct{ v, s float64 }

// randomStream draws n samples over width octaves: log-uniform, log-normal
// or a narrow body with rare far outliers; seconds are whole so that sums
// are exact whatever the order.
func randomStream(rng *rand.Rand, n int, center, width float64) []sample {
	out := make([]sample, n)
	kind := rng.IntN(3)
	for i := range out {
		var e float64
		switch {
		case kind == 0:
			e = center + (rng.Float64()-0.5)*width
		case kind == 1:
			e = center + rng.NormFloat64()*width/6
		case rng.IntN(50) == 0:
			e = center + (rng.Float64()-0.5)*width
		default:
			e = center + rng.Float64()*2
		}
		v := math.Exp2(max(-1074, min(1023.99, e)))
		if rng.IntN(20) == 0 {
			v = 0
		}
		out[i] = sample{v, float64(1 + rng.IntN(60))}
	}
	return out
}

// exactQuantile is the smallest value whose cumulative seconds reach q.
func exactQuantile(ss []sample, q, total float64) float64 {
	ss = slices.Clone(ss)
	sort.Slice(ss, func(i, j int) bool { return ss[i].v < ss[j].v })
	cum, target := 0.0, q*total
	for _, s := range ss {
		cum += s.s
		if cum >= target {
			return s.v
		}
	}
	return ss[len(ss)-1].v
}

func gaugeOf(ss []sample) *Gauge {
	g := new(Gauge)
	for _, s := range ss {
		g.Add(s.v, s.s)
	}
	return g
}

func cloneGauge(g *Gauge) *Gauge {
	c := *g
	c.buckets = slices.Clone(g.buckets)
	return &c
}

// sameHistogram compares everything but Integral, whose sums of non-whole
// products depend on the order of addition.
func sameHistogram(a, b *Gauge) bool {
	return a.Seconds == b.Seconds && a.Samples == b.Samples && a.Max == b.Max && a.zero == b.zero &&
		a.coarse == b.coarse && a.offset == b.offset && slices.Equal(a.buckets, b.buckets)
}

func TestGaugePropertyBoundedAccurateMergeable(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(7, 8))
	widths := []float64{0.5, 1, 2, 3, 5, 7, 7.5, 10, 16, 40, 120, 500, 2100}
	levels, mixed := map[uint8]int{}, 0
	for trial := range 300 {
		parts := make([][]sample, 3)
		var all []sample
		base, spread := (rng.Float64()-0.5)*60, []float64{0, 2, 10, 60}[rng.IntN(4)]
		for p := range parts {
			w := widths[rng.IntN(len(widths))]
			parts[p] = randomStream(rng, 1+rng.IntN(800), base+(rng.Float64()-0.5)*spread, w)
			all = append(all, parts[p]...)
		}
		direct := gaugeOf(all)
		name := fmt.Sprintf("trial %d (%d samples, %d halvings)", trial, len(all), direct.coarse)

		if n := gaugeStateBytes(direct); n > 968 || cap(direct.buckets) > gaugeMaxBuckets {
			t.Fatalf("%s: state %d B, capacity %d", name, n, cap(direct.buckets))
		}
		if direct.coarse > 0 && !needsHalving(all, direct.coarse-1) {
			t.Errorf("%s: halved more than the range needs", name)
		}
		for _, q := range []float64{0, 0.01, 0.25, 0.5, 0.9, 0.95, 0.99, 1} {
			x, got := exactQuantile(all, q, direct.Seconds), direct.Quantile(q)
			if x == 0 && got != 0 || x > 0 && (got < x || got > x*(1+direct.QuantileError())*(1+1e-12)) {
				t.Errorf("%s: quantile(%v) = %v, exact %v, error bound %.3g", name, q, got, x, direct.QuantileError())
			}
		}

		a, b, c := gaugeOf(parts[0]), gaugeOf(parts[1]), gaugeOf(parts[2])
		levels[direct.coarse]++
		if a.coarse != b.coarse || b.coarse != c.coarse {
			mixed++
		}
		left := cloneGauge(a) // (a+b)+c
		left.Merge(b)
		left.Merge(c)
		bc := cloneGauge(b) // a+(b+c)
		bc.Merge(c)
		right := cloneGauge(a)
		right.Merge(bc)
		if !sameHistogram(left, direct) || !sameHistogram(right, direct) {
			t.Errorf("%s: merges at %d/%d/%d halvings differ from direct accumulation (%d, %d, want %d)",
				name, a.coarse, b.coarse, c.coarse, left.coarse, right.coarse, direct.coarse)
		}
	}
	if len(levels) < 6 || levels[0] == 0 || mixed < 100 {
		t.Errorf("streams reached too few resolutions (halvings: trials %v) or mixed scales (%d)", levels, mixed)
	}
	t.Logf("halvings: trials %v; merges at mixed scales: %d", levels, mixed)
}

// needsHalving reports whether the samples' buckets after k halvings span
// more than gaugeMaxBuckets.
func needsHalving(ss []sample, k uint8) bool {
	lo, hi := int32(math.MaxInt32), int32(math.MinInt32)
	for _, s := range ss {
		if s.v > 0 {
			i := coarsen(gaugeIndex(s.v), k)
			lo, hi = min(lo, i), max(hi, i)
		}
	}
	return hi-lo+1 > gaugeMaxBuckets
}

func TestGaugeWorstCaseState(t *testing.T) {
	if n := unsafe.Sizeof(Gauge{}); n != 72 {
		t.Fatalf("Gauge struct is %d B; the documented bound assumes 72", n)
	}
	var g Gauge
	g.Add(1, 1)
	for i := range 2000 { // every bucket of 125 octaves, upwards then downwards
		g.Add(math.Exp2(float64(i)/16), 1)
		g.Add(math.Exp2(-float64(i)/16), 1)
		if n := gaugeStateBytes(&g); n > 72+gaugeMaxBuckets*8 {
			t.Fatalf("after %d: state %d B", i, n)
		}
	}
	g.Add(math.SmallestNonzeroFloat64, 1)
	g.Add(math.MaxFloat64, 1)
	if want := uint8(4 - gaugeMinScale); g.coarse != want || gaugeStateBytes(&g) > 968 {
		t.Errorf("full float64 range: %d halvings, %d B; want %d, ≤ 968", g.coarse, gaugeStateBytes(&g), want)
	}
}

func TestGaugeKeepsFullResolutionOverSevenOctaves(t *testing.T) {
	var g Gauge
	for i := range gaugeMaxBuckets {
		g.Add(math.Exp2(float64(i)/16), 1)
	}
	if g.coarse != 0 || g.QuantileError() > 0.0444 {
		t.Fatalf("112 buckets: %d halvings, error %v; want 0, 4.4%%", g.coarse, g.QuantileError())
	}
	g.Add(math.Exp2(float64(gaugeMaxBuckets)/16), 1)
	if g.coarse != 1 || math.Abs(g.QuantileError()-(math.Exp2(1.0/8)-1)) > 1e-15 {
		t.Errorf("113 buckets: %d halvings, error %v; want 1, 9.05%%", g.coarse, g.QuantileError())
	}
}

func TestGaugeJSONRoundTripAtEveryScale(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	for k := uint8(0); k <= 4-gaugeMinScale; k++ {
		t.Run(fmt.Sprintf("scale %d", 4-int(k)), func(t *testing.T) {
			g := gaugeOf(randomStream(rng, 500, 0, 6))
			for g.coarse < k {
				g.halve()
			}
			data, err := json.Marshal(g)
			if err != nil {
				t.Fatal(err)
			}
			if has := strings.Contains(string(data), `"scale"`); has != (k > 0) {
				t.Errorf("scale field written = %v at %d halvings: %s", has, k, data)
			}
			var back Gauge
			if err := json.Unmarshal(data, &back); err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(back, *g) {
				t.Errorf("round trip changed the gauge:\n got %+v\nwant %+v", back, *g)
			}
			// A reader that ignores scale (older gpuwise) answers the same.
			var old Gauge
			if err := json.Unmarshal([]byte(strings.Replace(string(data), fmt.Sprintf(`"scale":%d,`, 4-int(k)), "", 1)), &old); err != nil {
				t.Fatal(err)
			}
			for _, q := range []float64{0.1, 0.5, 0.95, 1} {
				if old.Quantile(q) != g.Quantile(q) {
					t.Errorf("quantile(%v) read without scale = %v, want %v", q, old.Quantile(q), g.Quantile(q))
				}
			}
		})
	}
}

func TestGaugeReadsOldSnapshots(t *testing.T) {
	tests := []struct {
		name       string
		in         string
		wantCoarse uint8
		wantQ      []float64 // at 0, 0.1, 0.3, 0.5, 0.7, 0.9, 1: what the 16-per-octave version answered
	}{{
		name:  "within 112 buckets: read and written unchanged",
		in:    `{"seconds":437.5,"samples":8,"integral":1015.5,"max":7,"zero_seconds":60,"histogram":[[-32,60],[-27,60],[10,120],[26,17.5],[40,60],[45,60]]}`,
		wantQ: []float64{0, 0, 0.310464453018371, 1.542210825407941, 3.084421650815882, 7, 7},
	}, {
		name:       "wider: read at 4 per octave, within its error bound",
		in:         `{"seconds":497.5,"samples":9,"integral":123595.56,"max":2048.5,"zero_seconds":60,"histogram":[[-159,60],[-32,60],[-27,60],[10,120],[26,17.5],[45,60],[177,60]]}`,
		wantCoarse: 2,
		wantQ:      []float64{0, 0, 0.25, 1.542210825407941, 1.542210825407941, 2048.5, 2048.5},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var g Gauge
			if err := json.Unmarshal([]byte(tt.in), &g); err != nil {
				t.Fatal(err)
			}
			if g.coarse != tt.wantCoarse {
				t.Errorf("halvings = %d, want %d", g.coarse, tt.wantCoarse)
			}
			for i, q := range []float64{0, 0.1, 0.3, 0.5, 0.7, 0.9, 1} {
				got, want := g.Quantile(q), tt.wantQ[i]
				if tt.wantCoarse == 0 && got != want || got < want/(1+g.QuantileError()) || got > want*(1+g.QuantileError()) {
					t.Errorf("quantile(%v) = %v, 16-per-octave %v, error bound %.3g", q, got, want, g.QuantileError())
				}
			}
			if out, _ := json.Marshal(g); tt.wantCoarse == 0 && string(out) != tt.in {
				t.Errorf("written back:\n%s\nwant\n%s", out, tt.in)
			}
		})
	}
}

func TestGaugeAddDoesNotAllocateInSteadyState(t *testing.T) {
	var g Gauge
	rng := rand.New(rand.NewPCG(11, 12))
	vs := make([]float64, 4096)
	for i := range vs {
		vs[i] = math.Exp(rng.NormFloat64() * 2)
	}
	for _, v := range vs {
		g.Add(v, 1)
	}
	i := 0
	if n := testing.AllocsPerRun(1000, func() { g.Add(vs[i%len(vs)], 1); i++ }); n != 0 {
		t.Errorf("Add allocates %v times per call", n)
	}
}
