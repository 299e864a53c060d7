package query

import (
	"bytes"
	"fmt"
	"math"
	"math/rand/v2"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/gpuwise/gpuwise/internal/prom/wire"
	"github.com/gpuwise/gpuwise/internal/prom/wire/wiretest"
	"github.com/gpuwise/gpuwise/internal/usage"
)

// RandomSeries is a series' samples as remote read hands them on: in time
// order, gaps of 1 s to 15 min around a 5-minute scrape (some over the
// cap), values that often repeat, counters that sometimes reset.
func randomSeries(rng *rand.Rand, counter bool) []wire.Sample {
	n := 1 + rng.IntN(600)
	xs := make([]wire.Sample, n)
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
		xs[i] = wire.Sample{T: t, V: v}
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
func inChunks(rng *rand.Rand, xs []wire.Sample, sink wire.SampleSink) {
	for len(xs) > 0 {
		n := min(len(xs), rng.IntN(130))
		sink.Samples(xs[:n])
		xs = xs[n:]
	}
	sink.End()
}

// The chunk-at-a-time path of remote read weighs exactly as the
// sample-at-a-time one of raw reads: same accumulators, bit for bit.
func TestWeigherSamplesMatchPoints(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for range 300 {
		xs := randomSeries(rng, false)
		for kind := range 3 {
			var recP, recC []weighted
			mk := func(rec *[]weighted, scale float64) Acc {
				switch kind {
				case 0:
					return Acc{Gauge: new(usage.Gauge)}
				case 1:
					return Acc{Activity: new(usage.Activity), Scale: scale}
				}
				return Acc{Func: func(v, dt float64) { *rec = append(*rec, weighted{"", v, dt}) }}
			}
			scale := 0.01 * float64(1+rng.IntN(3))
			byPoint, byChunk := mk(&recP, scale), mk(&recC, scale)
			wp := &weigher{cap: 300}
			wp.start(byPoint)
			for _, x := range xs {
				wp.point(float64(x.T)/1000, x.V)
			}
			wp.End()
			wc := &weigher{cap: 300}
			wc.start(byChunk)
			inChunks(rng, xs, wc)
			if !reflect.DeepEqual(byPoint.Gauge, byChunk.Gauge) || !reflect.DeepEqual(byPoint.Activity, byChunk.Activity) || !reflect.DeepEqual(recP, recC) {
				t.Fatalf("kind %d, %d samples: by chunk %+v %+v / %v, by point %+v %+v / %v", kind, len(xs),
					byChunk.Gauge, byChunk.Activity, recC, byPoint.Gauge, byPoint.Activity, recP)
			}
		}
	}
}

// activityBatch weighs each series into its own usage.Activity, as the
// DCGM batches of prom.Build do.
type activityBatch struct{ accs *[]*usage.Activity }

func (a activityBatch) Series(wire.Labels) Target {
	acc := new(usage.Activity)
	*a.accs = append(*a.accs, acc)
	return Target{Acc: Acc{Activity: acc, Scale: 1}}
}
func (a activityBatch) Commit() {}

// BenchmarkIngest is the JSON decoder feeding activity accumulators, one
// per series, at one point a step (query_range): samples/s on one core.
func BenchmarkIngest(b *testing.B) {
	body := matrixBody(100, 289)
	b.SetBytes(int64(len(body)))
	b.ReportAllocs()
	var accs []*usage.Activity
	var n int64
	for b.Loop() {
		accs = accs[:0]
		p := newPoints(activityBatch{&accs}, Task{Step: 5 * time.Minute})
		if _, err := wire.DecodeMatrix(strings.NewReader(body), wire.Limits{}, p.series); err != nil {
			b.Fatal(err)
		}
		p.end()
		for _, a := range accs {
			n += a.Samples
		}
	}
	b.ReportMetric(float64(n)/b.Elapsed().Seconds(), "samples/s")
}

// matrixBody is a query_range answer of series × points.
func matrixBody(series, points int) string {
	var b strings.Builder
	b.WriteString(`{"status":"success","data":{"resultType":"matrix","result":[`)
	for s := range series {
		if s > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `{"metric":{"__name__":"DCGM_FI_PROF_GR_ENGINE_ACTIVE","Hostname":"node-%d","gpu":"%d","UUID":"GPU-%08x","pod":"p-%d","namespace":"ns"},"values":[`, s/8, s%8, s, s)
		for p := range points {
			if p > 0 {
				b.WriteByte(',')
			}
			fmt.Fprintf(&b, `[%d,"0.%03d"]`, 1793491200+300*p, (s*7+p)%1000)
		}
		b.WriteString("]}")
	}
	b.WriteString("]}}")
	return b.String()
}

// BenchmarkRemoteIngest is a remote-read answer of 100 series × 14 days
// at 5 minutes (120-sample chunks, one frame a series, dcgm-exporter's
// labels) read as a remote task reads it: frames, CRC, labels, XOR
// chunks, weighing, activity accumulators. samples/s on one core.
func BenchmarkRemoteIngest(b *testing.B) {
	const series, samples = 100, 14 * 288
	var body []byte
	for s := range series {
		l := [][2]string{{"DCGM_FI_DRIVER_VERSION", "570.124.06"}, {"GPU_I_ID", ""}, {"Hostname", fmt.Sprintf("node-%d", s/8)},
			{"UUID", fmt.Sprintf("GPU-%08x-0000-0000-0000-000000000000", s)}, {"__name__", "DCGM_FI_PROF_GR_ENGINE_ACTIVE"},
			{"container", "main"}, {"device", fmt.Sprintf("nvidia%d", s%8)}, {"gpu", strconv.Itoa(s % 8)},
			{"modelName", "NVIDIA H100 80GB HBM3"}, {"namespace", "ml"}, {"pod", fmt.Sprintf("train-%d", s)}}
		var ss []wire.Sample
		for i := range samples {
			ss = append(ss, wire.Sample{T: 1793491200000 + int64(i)*300000, V: 0.2 + 0.05*math.Sin(float64(i*(s+1)))})
		}
		body = append(body, wiretest.SeriesFrames(l, ss)...)
	}
	b.SetBytes(int64(len(body)))
	b.ReportAllocs()
	var (
		n    int64
		accs []*usage.Activity
	)
	q := wire.ChunkedRead{EndMs: math.MaxInt64}
	for b.Loop() {
		for _, a := range accs {
			n += a.Samples
		}
		accs = accs[:0]
		batch := activityBatch{&accs}
		w := &weigher{cap: 300}
		err := wire.DecodeChunkedRead(bytes.NewReader(body), q, func(l wire.Labels) wire.SampleSink {
			w.start(batch.Series(l).Acc)
			return w
		})
		if err != nil {
			b.Fatal(err)
		}
	}
	for _, a := range accs {
		n += a.Samples
	}
	b.ReportMetric(float64(n)/b.Elapsed().Seconds(), "samples/s")
}
