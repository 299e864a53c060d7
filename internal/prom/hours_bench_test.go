package prom

import (
	"bytes"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/gpuwise/gpuwise/internal/cluster"
	"github.com/gpuwise/gpuwise/internal/prom/query"
	"github.com/gpuwise/gpuwise/internal/prom/wire"
	"github.com/gpuwise/gpuwise/internal/prom/wire/wiretest"
)

// ctrHistory is a remote-read answer per cAdvisor metric for n
// containers over 14 days at 5 minutes, 120-sample chunks, one frame a
// series: each container alive over a random part of the window, as pods
// come and go (a fifth the whole window, the rest 1 hour to 7 days).
type ctrHistory struct {
	window           cluster.Window
	cpu, mem, cfs    []byte
	samples          int64 // per metric
	containers, step int
}

func newCtrHistory(n int) ctrHistory {
	const step = 300
	w := cluster.Window{Start: time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)}
	w.End = w.Start.Add(14 * 24 * time.Hour)
	t0 := w.Start.UnixMilli()
	steps := int(w.Seconds()) / step
	rng := rand.New(rand.NewPCG(7, 32))
	h := ctrHistory{window: w, containers: n, step: step}
	for i := range n {
		from, to := 0, steps
		if i%5 != 0 {
			length := 12 + rng.IntN(7*288-12)
			from = rng.IntN(steps - length)
			to = from + length
		}
		l := func(metric string) [][2]string {
			return [][2]string{{"__name__", metric}, {"container", "main"}, {"namespace", "ml"},
				{"node", fmt.Sprintf("node-%d", i/50)}, {"pod", fmt.Sprintf("train-%d", i)}}
		}
		var cpu, mem, cfs []wire.Sample
		c, p := 0.0, 0.0
		for k := from; k < to; k++ {
			t := t0 + int64(k)*step*1000
			c += step * (0.5 + 0.4*math.Sin(float64(k+i)/30))
			p += 3000
			cpu = append(cpu, wire.Sample{T: t, V: c})
			mem = append(mem, wire.Sample{T: t, V: 1e9 + 1e8*math.Cos(float64(k*i)/50)})
			cfs = append(cfs, wire.Sample{T: t, V: p})
		}
		h.samples += int64(to - from)
		h.cpu = append(h.cpu, wiretest.SeriesFrames(l("container_cpu_usage_seconds_total"), cpu)...)
		h.mem = append(h.mem, wiretest.SeriesFrames(l("container_memory_working_set_bytes"), mem)...)
		h.cfs = append(h.cfs, wiretest.SeriesFrames(l("container_cpu_cfs_periods_total"), cfs)...)
	}
	return h
}

// read decodes the three answers into the container batches, binned by
// hour, and commits them: what a remote-read Build does with one shard's
// cAdvisor reads.
func (h ctrHistory) read(u *ctrUsage) error {
	q := wire.ChunkedRead{StartMs: h.window.Start.UnixMilli() + 1, EndMs: h.window.End.UnixMilli(), Keep: ctrKeep}
	cut := float64(h.window.Start.Unix())
	for _, r := range []struct {
		body []byte
		b    query.Batch
	}{{h.cpu, u.cpuBatch(cut)()}, {h.mem, u.memBatch()}, {h.cfs, u.counterBatch(cfsPeriods)(cut)()}} {
		if err := query.ReadChunked(bytes.NewReader(r.body), q, float64(h.step), r.b); err != nil {
			return err
		}
		r.b.Commit()
	}
	return nil
}

// BenchmarkContainerHours is the cAdvisor side of a remote-read ingest
// with hourly bins, for 1,000 containers over 14 days (CPU usage, working
// set, CFS periods): decoding, the usage accumulators and the hourly
// bins of every series. "bins" is the whole; "no bins" the same without
// an hour clock, so their difference is the hourly series' cost.
// samples/s counts the three metrics' samples; B/op and allocs/op are
// per read of all three.
func BenchmarkContainerHours(b *testing.B) {
	h := newCtrHistory(1000)
	for _, binned := range []bool{true, false} {
		name := "bins"
		if !binned {
			name = "no bins"
		}
		b.Run(name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				u := newCtrUsage()
				if binned {
					u.clock = newHourClock(h.window)
				}
				if err := h.read(u); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(3*h.samples)*float64(b.N)/b.Elapsed().Seconds(), "samples/s")
		})
	}
}
