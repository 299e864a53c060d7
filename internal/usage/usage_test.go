package usage

import (
	"encoding/json"
	"math"
	"math/rand/v2"
	"sort"
	"testing"
)

func TestActivity(t *testing.T) {
	var a Activity
	a.Add(0.05, 600) // idle
	a.Add(0.5, 300)
	a.Add(0.95, 100)
	a.Add(math.NaN(), 100) // missing, not zero
	a.Add(0.5, 0)          // no duration
	a.Add(1.7, 100)        // clamped to 1
	if a.Seconds != 1100 || a.Samples != 4 {
		t.Fatalf("seconds, samples = %v, %v; want 1100, 4", a.Seconds, a.Samples)
	}
	if want := 0.05*600 + 0.5*300 + 0.95*100 + 100; math.Abs(a.ActiveSeconds-want) > 1e-9 {
		t.Errorf("active seconds = %v, want %v", a.ActiveSeconds, want)
	}
	if got := a.IdleSeconds(0.10); got != 600 {
		t.Errorf("idle below 10%% = %v, want 600", got)
	}
	if got := a.IdleSeconds(0.05); got != 0 {
		t.Errorf("idle below 5%% = %v, want 0 (5%% is not below 5%%)", got)
	}
	for q, want := range map[float64]float64{0.5: 0.06, 0.8: 0.51, 0.95: 1, 0: 0.06} {
		if got := a.Quantile(q); math.Abs(got-want) > 1e-12 {
			t.Errorf("quantile(%v) = %v, want %v", q, got, want)
		}
	}
	if !math.IsNaN(new(Activity).Quantile(0.5)) || !math.IsNaN(new(Activity).Mean()) {
		t.Error("empty activity must answer NaN, not 0")
	}
}

func TestActivityMergeAndJSON(t *testing.T) {
	var a, b, all Activity
	rng := rand.New(rand.NewPCG(1, 2))
	for i := range 1000 {
		v, s := rng.Float64(), 1+rng.Float64()*60
		all.Add(v, s)
		if i%2 == 0 {
			a.Add(v, s)
		} else {
			b.Add(v, s)
		}
	}
	a.Merge(&b)
	data, err := json.Marshal(a)
	if err != nil {
		t.Fatal(err)
	}
	var back Activity
	if err := json.Unmarshal(data, &back); err != nil {
		t.Fatal(err)
	}
	for _, q := range []float64{0.1, 0.5, 0.95, 0.99} {
		if back.Quantile(q) != all.Quantile(q) {
			t.Errorf("quantile(%v): merged+JSON %v, direct %v", q, back.Quantile(q), all.Quantile(q))
		}
	}
	if math.Abs(back.ActiveSeconds-all.ActiveSeconds) > 1e-6 || back.IdleSeconds(0.1) != all.IdleSeconds(0.1) {
		t.Error("merged state differs from direct accumulation")
	}
}

func TestGaugeQuantileWithinBucketError(t *testing.T) {
	var g Gauge
	rng := rand.New(rand.NewPCG(3, 4))
	vals := make([]float64, 5000)
	for i := range vals {
		vals[i] = math.Exp(rng.NormFloat64()*2 - 3) // cores, spanning 23 octaves: 4 per octave
		g.Add(vals[i], 60)
	}
	sort.Float64s(vals)
	for _, q := range []float64{0.5, 0.9, 0.95, 0.99} {
		exact := vals[int(math.Ceil(q*float64(len(vals))))-1]
		got := g.Quantile(q)
		if got < exact || got > exact*(1+g.QuantileError())*(1+1e-12) {
			t.Errorf("quantile(%v) = %v, exact %v: outside one bucket (%d halvings)", q, got, exact, g.coarse)
		}
	}
	if g.Quantile(1) != g.Max {
		t.Errorf("quantile(1) = %v, want max %v", g.Quantile(1), g.Max)
	}
	data, _ := json.Marshal(g)
	var back Gauge
	if err := json.Unmarshal(data, &back); err != nil || back.Quantile(0.95) != g.Quantile(0.95) {
		t.Errorf("JSON round trip: err %v, p95 %v want %v", err, back.Quantile(0.95), g.Quantile(0.95))
	}
}

func TestGaugeZeroAndRejects(t *testing.T) {
	var g Gauge
	g.Add(0, 90)
	g.Add(2, 10)
	if g.Quantile(0.5) != 0 || g.Quantile(0.95) != 2 {
		t.Errorf("p50, p95 = %v, %v; want 0, 2", g.Quantile(0.5), g.Quantile(0.95))
	}
	for _, bad := range []string{
		`{"seconds":-1}`,
		`{"seconds":10,"samples":1,"integral":1,"max":1,"histogram":[[0,5]]}`,
		`{"seconds":1,"samples":1,"integral":1,"max":1,"histogram":[[99999,1]]}`,
		`{"seconds":1,"samples":1,"integral":1,"max":1,"scale":5,"histogram":[[0,1]]}`,
		`{"seconds":1,"samples":1,"integral":1,"max":1,"scale":-6,"histogram":[[0,1]]}`,
		`{"seconds":1,"samples":1,"integral":1,"max":1,"scale":2,"histogram":[[6,1]]}`,
		`{"seconds":1,"samples":1,"integral":1,"max":1,"histogram":[[-17185,1]]}`,
		`{"seconds":1,"samples":1,"integral":1,"max":1,"histogram":[[16385,1]]}`,
	} {
		if err := json.Unmarshal([]byte(bad), new(Gauge)); err == nil {
			t.Errorf("Unmarshal(%s) accepted impossible state", bad)
		}
	}
}

func BenchmarkActivityAdd(b *testing.B) {
	var a Activity
	b.ReportAllocs()
	for i := range b.N {
		a.Add(float64(i%100)/100, 300)
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "samples/s")
}

func BenchmarkGaugeAdd(b *testing.B) {
	var g Gauge
	b.ReportAllocs()
	for i := range b.N {
		g.Add(0.5+float64(i%1000)/1000, 300)
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "samples/s")
}

func TestGaugeIndexMatchesLog2(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for range 200000 {
		v := math.Exp(rng.NormFloat64() * 20)
		want := int32(math.Ceil(math.Log2(v) * gaugeBucketsPerOctave))
		if got := gaugeIndex(v); got != want && math.Abs(math.Log2(v)*gaugeBucketsPerOctave-math.Round(math.Log2(v)*gaugeBucketsPerOctave)) > 1e-9 {
			t.Fatalf("gaugeIndex(%v) = %d, want %d", v, got, want)
		}
	}
	for _, v := range []float64{1, 2, 0.5, 1024} {
		if got, want := gaugeIndex(v), int32(math.Log2(v)*gaugeBucketsPerOctave); got != want {
			t.Errorf("gaugeIndex(%v) = %d, want %d (powers of two are bucket edges)", v, got, want)
		}
	}
}

func TestGaugeIndexMatchesLinearSearch(t *testing.T) {
	linear := func(v float64) int32 {
		frac, exp := math.Frexp(v)
		k := 0
		for frac > octaveEdges[k] {
			k++
		}
		return int32(exp-1)*gaugeBucketsPerOctave + int32(k)
	}
	vs := []float64{math.SmallestNonzeroFloat64, 1e-300, 0.5, 1, 2, 3, 1e9, math.MaxFloat64}
	for k := range octaveEdges {
		e := octaveEdges[k]
		vs = append(vs, e, math.Nextafter(e, 0), math.Nextafter(e, 2), e*8, math.Nextafter(e, 2)*1024)
	}
	for i := 0; i < 100000; i++ {
		vs = append(vs, math.Exp2(float64(i)/997-50))
	}
	// Every octave-cell boundary of the bit-level lookup and its
	// neighbours, in a normal and a subnormal octave, and random bit
	// patterns of finite positive values.
	for j := range uint64(octaveCells + 1) {
		for _, base := range []float64{1, 0x1p-1060} {
			c := base * (1 + float64(j)/octaveCells)
			vs = append(vs, c, math.Nextafter(c, 0), math.Nextafter(c, 4))
		}
	}
	rng := rand.New(rand.NewPCG(7, 8))
	for range 200000 {
		if v := math.Float64frombits(rng.Uint64() >> 1); v > 0 && !math.IsInf(v, 0) && !math.IsNaN(v) {
			vs = append(vs, v)
		}
	}
	for _, v := range vs {
		if got, want := gaugeIndex(v), linear(v); got != want {
			t.Fatalf("gaugeIndex(%g) = %d, want %d", v, got, want)
		}
	}
}

// BenchmarkGaugeAddWide adds log-normal values over ≈ 23 octaves, past 16
// per octave's 112 buckets: 4 per octave, far jumps between buckets.
func BenchmarkGaugeAddWide(b *testing.B) {
	rng := rand.New(rand.NewPCG(13, 14))
	vs := make([]float64, 4096)
	for i := range vs {
		vs[i] = math.Exp(rng.NormFloat64() * 2)
	}
	var g Gauge
	b.ReportAllocs()
	for i := range b.N {
		g.Add(vs[i%len(vs)], 300)
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "samples/s")
}
