package cluster_test

import (
	"math/rand/v2"
	"testing"

	"github.com/gpuwise/gpuwise/internal/cluster"
	ct "github.com/gpuwise/gpuwise/internal/cluster/clustertest"
)

// binSeries are the extents, in 5-minute steps of a 14-day window, of
// 2,000 series: a fifth the whole window, the rest 1 hour to 7 days, as
// pods come and go.
func binSeries() (cluster.Window, [][2]int) {
	w := cluster.Window{Start: ct.At(0), End: ct.At(0).Add(336 * 3600e9)}
	steps := int(w.Seconds()) / 300
	rng := rand.New(rand.NewPCG(3, 32))
	out := make([][2]int, 2000)
	for i := range out {
		out[i] = [2]int{0, steps}
		if i%5 != 0 {
			n := 12 + rng.IntN(7*288-12)
			from := rng.IntN(steps - n)
			out[i] = [2]int{from, from + n}
		}
	}
	return w, out
}

// BenchmarkBinsActivity feeds each series' samples, in time order, into
// three bins (as a GPU holding's measured, active and idle seconds): the
// span of each sample, then the adds; "span" places each sample with
// HourlyBuilder.Span, "cursor" with a SpanCursor. samples/s; B/op is per
// 2,000 series.
func BenchmarkBinsActivity(b *testing.B) {
	w, series := binSeries()
	hb := cluster.NewHourlyBuilder(w, 0.05)
	for _, name := range []string{"span", "cursor"} {
		b.Run(name, func(b *testing.B) {
			var n int64
			b.ReportAllocs()
			for b.Loop() {
				for _, ext := range series {
					var measured, active, idle cluster.Bins
					var buf []cluster.Span
					var cur cluster.SpanCursor
					for k := ext[0]; k < ext[1]; k++ {
						t, v := float64(k*300), float64(k%100)/100
						var sp cluster.Span
						var ok bool
						if name == "span" {
							sp, ok = hb.Span(t, 300)
						} else {
							sp, ok = cur.Span(hb, t, 300)
						}
						if ok {
							measured.Add(sp, 1)
							active.Add(sp, v)
							idle.Add(sp, 0)
							continue
						}
						buf = hb.Spans(t, 300, buf[:0])
						for _, sp := range buf {
							measured.Add(sp, 1)
							active.Add(sp, v)
							idle.Add(sp, 0)
						}
					}
					n += int64(ext[1] - ext[0])
				}
			}
			b.ReportMetric(float64(n)/b.Elapsed().Seconds(), "samples/s")
		})
	}
}
