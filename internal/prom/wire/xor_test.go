package wire_test

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/gpuwise/gpuwise/internal/prom/wire"
	"github.com/gpuwise/gpuwise/internal/prom/wire/wiretest"
)

func decodeAll(t *testing.T, data []byte) []wire.Sample {
	t.Helper()
	got, err := wire.AppendXOR(nil, data)
	if err != nil {
		t.Fatal(err)
	}
	return got
}

var staleNaN = math.Float64frombits(0x7ff0000000000002)

func TestAppendXOR(t *testing.T) {
	t.Parallel()
	const base = int64(1793491200000)
	tests := map[string][]wire.Sample{
		"one sample":      {{base, 0.25}},
		"negative start":  {{-5000, -1.5}, {-4000, 2}},
		"two samples":     {{base, 1}, {base + 300000, 2}},
		"repeated values": {{base, 42}, {base + 300000, 42}, {base + 600000, 42}, {base + 900000, 42}},
		"regular step": {{base, 0.1}, {base + 300000, 0.2}, {base + 600000, 0.3}, {base + 900000, 0.35},
			{base + 1200000, 0.35}, {base + 1500000, 1e9}, {base + 1800000, -1e-9}},
		"dod buckets both signs": {{base, 1}, {base + 300000, 2}, {base + 600001, 3}, {base + 900001, 4},
			{base + 1200000 + 8192, 5}, {base + 1500000, 6}, {base + 1800000 + 65536, 7}, {base + 2100000, 8},
			{base + 2400000 + 524288, 9}, {base + 2700000, 10}, {base + 3000000 + 1<<40, 11}, {base + 3300000 + 1<<40, 12},
			{base + 3300001 + 1<<40, 13}},
		"bucket edges": {{0, 1}, {1000, 1}, {1000 + 1000 + 8192, 1}, {3000 + 8192 + 8192 - 8191, 1},
			{4000 + 8192 + 8192 - 8191 + 65536, 1}, {5000 + 8192 + 8192 - 8191 + 65536 - 65535, 1}},
		"large first delta": {{0, 1}, {1 << 50, 2}, {1<<50 + 1, 3}},
		"all bits change": {{base, math.Float64frombits(0)}, {base + 1, math.Float64frombits(math.MaxUint64)},
			{base + 2, math.Float64frombits(1)}, {base + 3, math.Float64frombits(1 << 63)}},
		"counter":       {{base, 12345.678}, {base + 300000, 12400.1}, {base + 600000, 12500.9}, {base + 900000, 3.2}},
		"stale and NaN": {{base, 1}, {base + 300000, staleNaN}, {base + 600000, math.NaN()}, {base + 900000, 2}},
	}
	for name, samples := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			got := decodeAll(t, wiretest.EncodeXOR(samples))
			if diff := cmp.Diff(samples, got, cmpopts.EquateNaNs()); diff != "" {
				t.Errorf("samples (-want +got):\n%s", diff)
			}
			if name == "stale and NaN" && math.Float64bits(got[1].V) != math.Float64bits(staleNaN) {
				t.Errorf("stale marker bits %x, want %x", math.Float64bits(got[1].V), math.Float64bits(staleNaN))
			}
		})
	}
}

func TestAppendXORMalformed(t *testing.T) {
	t.Parallel()
	good := wiretest.EncodeXOR([]wire.Sample{{0, 1}, {1000, 2}, {2000, 3}, {3000, 4}})
	for n := 0; n < len(good)-1; n++ {
		if _, err := wire.AppendXOR(nil, good[:n]); err == nil {
			t.Errorf("chunk cut to %d of %d bytes: no error", n, len(good))
		}
	}
	if got := decodeAll(t, []byte{0, 0}); len(got) != 0 {
		t.Errorf("empty chunk gave %v", got)
	}
}

// Random chunks round-trip through the decoder's inline paths (new and
// previous windows, every size of delta of delta, refills near the end).
func TestAppendXORRandom(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	for range 500 {
		n := 1 + rng.IntN(240)
		ss := make([]wire.Sample, n)
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
			ss[i] = wire.Sample{ts, v}
			switch rng.IntN(5) {
			case 0:
				ts += 1 + rng.Int64N(1<<uint(rng.IntN(40)))
			default:
				ts += 300000
			}
		}
		got := decodeAll(t, wiretest.EncodeXOR(ss))
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

// FuzzAppendXOR: any bytes decode to an error or to samples without a
// panic, never more samples than the chunk's count; a chunk that decodes
// re-encodes to one that decodes to the same samples.
func FuzzAppendXOR(f *testing.F) {
	f.Add(wiretest.EncodeXOR([]wire.Sample{{0, 1}, {300000, 2}, {600001, 2}, {900000, 1e9}}))
	f.Add(wiretest.EncodeXOR([]wire.Sample{{-5, math.NaN()}}))
	f.Add([]byte{0, 0})
	f.Add([]byte{0xff, 0xff, 1, 2, 3})
	f.Fuzz(func(t *testing.T, data []byte) {
		got, err := wire.AppendXOR(nil, data)
		if len(data) >= 2 && len(got) > int(data[0])<<8|int(data[1]) {
			t.Fatalf("%d samples from a chunk of %d", len(got), int(data[0])<<8|int(data[1]))
		}
		if err != nil || len(got) == 0 {
			return
		}
		again, err := wire.AppendXOR(nil, wiretest.EncodeXOR(got))
		if err != nil || !cmp.Equal(got, again, cmpopts.EquateNaNs()) {
			t.Fatalf("re-encoded chunk: %v, %v; want %v", again, err, got)
		}
	})
}

// BenchmarkAppendXOR decodes 120-sample chunks (Prometheus' size) of
// 5-minute samples: a GPU activity ratio and a working set in bytes.
func BenchmarkAppendXOR(b *testing.B) {
	var chunks [][]byte
	for _, v := range []func(i int) float64{
		func(i int) float64 { return 0.2 + 0.05*math.Sin(float64(i)) },
		func(i int) float64 { return float64(1<<30 + (i*7919)%(1<<24)) },
	} {
		var ss []wire.Sample
		for i := range 120 {
			ss = append(ss, wire.Sample{1793523600000 + int64(i)*300000 + int64(i%3), v(i)})
		}
		chunks = append(chunks, wiretest.EncodeXOR(ss))
	}
	var buf []wire.Sample
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		for _, c := range chunks {
			var err error
			if buf, err = wire.AppendXOR(buf[:0], c); err != nil {
				b.Fatal(err)
			}
		}
	}
	b.ReportMetric(float64(b.N*240)/b.Elapsed().Seconds(), "samples/s")
}
