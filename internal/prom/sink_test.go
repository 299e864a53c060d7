package prom

import (
	"math"
	"math/rand/v2"
	"reflect"
	"testing"

	"github.com/gpuwise/gpuwise/internal/usage"
)

// randomSeries is a series' samples as remote read hands them on: in time
// order, gaps of 1 s to 15 min around a 5-minute scrape (some over the
// cap), values that often repeat, counters that sometimes reset.
func randomSeries(rng *rand.Rand, counter bool) []xorSample {
	n := 1 + rng.IntN(600)
	xs := make([]xorSample, n)
	t, v := int64(1793491200000)+rng.Int64N(300000), rng.Float64()
	for i := range xs {
		switch r := rng.IntN(10); {
		case counter && r == 0:
			v = rng.Float64() // reset
		case counter:
			v += rng.Float64() * 300
		case r < 4: // same value again
		default:
			v = rng.Float64() * float64(int64(1)<<rng.IntN(40))
		}
		xs[i] = xorSample{t, v}
		switch r := rng.IntN(20); {
		case r == 0:
			t += 1000 + rng.Int64N(900000)
		case r == 1:
			t += 1 + rng.Int64N(299999)
		default:
			t += 300000
		}
	}
	return xs
}

// inChunks hands xs to sink in runs of random length, as chunks come.
func inChunks(rng *rand.Rand, xs []xorSample, sink sampleSink) {
	for len(xs) > 0 {
		n := min(len(xs), rng.IntN(130))
		sink.samples(xs[:n])
		xs = xs[n:]
	}
	sink.end()
}

// The chunk-at-a-time path of remote read weighs exactly as the
// sample-at-a-time one of raw reads: same accumulators, bit for bit.
func TestWeigherSamplesMatchPoints(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for range 300 {
		xs := randomSeries(rng, false)
		for kind := range 3 {
			mk := func() accumulator {
				switch kind {
				case 0:
					return accumulator{g: new(usage.Gauge)}
				case 1:
					return accumulator{a: new(usage.Activity), scale: 0.01 * float64(1+rng.IntN(3))}
				}
				return accumulator{}
			}
			byPoint, byChunk := mk(), mk()
			byChunk.scale = byPoint.scale
			var recP, recC []weighted
			wp := &weigher{cap: 300, acc: byPoint}
			if kind == 2 {
				wp.add = func(v, dt float64) { recP = append(recP, weighted{"", v, dt}) }
			}
			for _, x := range xs {
				wp.point(float64(x.t)/1000, x.v)
			}
			wp.flush()
			wc := &weigher{cap: 300, acc: byChunk}
			if kind == 2 {
				wc.add = func(v, dt float64) { recC = append(recC, weighted{"", v, dt}) }
			}
			inChunks(rng, xs, wc)
			if !reflect.DeepEqual(byPoint, byChunk) || !reflect.DeepEqual(recP, recC) {
				t.Fatalf("kind %d, %d samples: by chunk %+v %+v / %v, by point %+v %+v / %v", kind, len(xs),
					byChunk.g, byChunk.a, recC, byPoint.g, byPoint.a, recP)
			}
		}
	}
}

func TestCPUSamplesMatchPoints(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for range 300 {
		xs := randomSeries(rng, true)
		cut := float64(xs[rng.IntN(len(xs))].t) / 1000
		byPoint, byChunk := &cpuState{cut: cut}, &cpuState{cut: cut}
		for _, x := range xs {
			byPoint.point(float64(x.t)/1000, x.v)
		}
		inChunks(rng, xs, byChunk)
		if !reflect.DeepEqual(byPoint, byChunk) {
			t.Fatalf("%d samples: by chunk %+v, by point %+v", len(xs), byChunk, byPoint)
		}
	}
}

// Random chunks round-trip through the decoder's inline paths (new and
// previous windows, every size of delta of delta, refills near the end).
func TestDecodeXORRandom(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	for range 500 {
		n := 1 + rng.IntN(240)
		ss := make([]sample, n)
		ts, v := rng.Int64N(1<<41), rng.NormFloat64()
		for i := range ss {
			switch rng.IntN(6) {
			case 0: // same value
			case 1:
				v = math.Float64frombits(rng.Uint64())
			case 2:
				v = float64(rng.IntN(1 << 20))
			default:
				v = rng.NormFloat64() * 1e9
			}
			ss[i] = sample{ts, v}
			switch rng.IntN(5) {
			case 0:
				ts += 1 + rng.Int64N(1<<uint(rng.IntN(40)))
			default:
				ts += 300000
			}
		}
		got := decodeAll(t, encodeXOR(t, ss))
		if len(got) != len(ss) {
			t.Fatalf("%d samples decoded, want %d", len(got), len(ss))
		}
		for i := range ss {
			if got[i].T != ss[i].T || math.Float64bits(got[i].V) != math.Float64bits(ss[i].V) {
				t.Fatalf("sample %d: got %v, want %v", i, got[i], ss[i])
			}
		}
	}
}
