package serve_test

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/gpuwise/gpuwise/internal/app"
	"github.com/gpuwise/gpuwise/internal/cluster"
	"github.com/gpuwise/gpuwise/internal/serve"
)

// sumsReader is intervalReader with the raw hourly sums a Prometheus read
// of the interval keeps: every workload the simulated week has in the
// interval's hour, with the quantities its series have.
type sumsReader struct{ intervalReader }

func (r sumsReader) ReadUsage(ctx context.Context, w cluster.Window) (*app.SnapshotResult, error) {
	res, err := r.intervalReader.ReadUsage(ctx, w)
	if err != nil {
		return nil, err
	}
	v := res.Snapshot.View()
	if v.HourSums, err = weekSums(r.snap, w); err != nil {
		return nil, err
	}
	if res.Snapshot, err = app.Prepare(v); err != nil {
		return nil, err
	}
	return res, nil
}

// weekSums builds the sums of interval w from the hour of the week the
// interval falls in (the week repeats past its end).
func weekSums(snap *cluster.Snapshot, w cluster.Window) (*cluster.HourSums, error) {
	n := snap.Window.HourCount()
	k := int(w.Start.Sub(snap.Window.Start)/time.Hour) % n
	b := cluster.NewHourlyBuilder(w, snap.Hourly.IdleThreshold)
	secs := w.Seconds()
	for i := range snap.Hourly.Workloads {
		wh := &snap.Hourly.Workloads[i]
		if k < wh.From || k >= wh.From+wh.Hours() {
			continue
		}
		h := k - wh.From
		a := b.Workload(wh.Workload)
		a.Life(0, secs, float64(wh.GPUHeld[h]))
		sp := b.Spans(0, secs, nil)[0]
		addHour(a, sp, wh, h)
	}
	return b.Sums()
}

func addHour(a *cluster.HourlyAcc, sp cluster.Span, wh *cluster.WorkloadHours, h int) {
	if wh.GPUActive != nil {
		a.GPUs(sp, wh.GPUMeasured.At(h), wh.GPUActive.At(h), wh.GPUIdle.At(h))
	}
	if wh.CPUOfLimit != nil {
		a.CPU(sp, 1, 2)
	}
	if wh.CPUThrottled != nil {
		a.Throttle(sp, 10, 1)
	}
	if wh.MemoryOfLimit != nil {
		a.Memory(sp, 0.5)
	}
	if wh.OOMKills != nil {
		a.TrackOOM()
	}
	if wh.PCIeRx != nil {
		a.Links(sp, 1e9, 1, 1e9, 1)
	}
	if wh.Requests != nil {
		a.Serve(sp, wh.Server, 1, 1, 1, 1)
	}
}

// BenchmarkCycleHourSums is BenchmarkCycle with the intervals' raw
// hourly sums kept, as against Prometheus: its serve-heap-MiB less
// BenchmarkCycle's is what the live window's hourly series cost.
// Also reported: the sums the window holds (hour-sums-MiB, 8 bytes
// each) and the workloads with sums.
func BenchmarkCycleHourSums(b *testing.B) {
	scale := benchScale(b)
	w := benchWorldOf(b, scale)
	clk := &clock{}
	clk.set(w.snap.Window.End)
	opts := liveOptions(filepath.Join(b.TempDir(), "history.db"))
	in := startWith(&testing.T{}, opts, clk.now, staticInv{w.snap}, sumsReader{intervalReader{snap: w.snap, span: w.span}})
	b.Cleanup(func() { in.srv.Close(); in.svc.Close() })
	if err := in.svc.Cycle(context.Background()); err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for i := range b.N {
		clk.set(w.snap.Window.End.Add(time.Duration(i+1) * 10 * time.Minute))
		if err := in.svc.Cycle(context.Background()); err != nil {
			b.Fatal(err)
		}
	}
	b.StopTimer()
	sums := serve.WindowSpan(in.svc, in.svc.State().Window).Hours
	b.ReportMetric(float64(sums.Floats())*8/(1<<20), "hour-sums-MiB")
	b.ReportMetric(float64(sums.Workloads()), "workloads")
	w.reportHeap(b)
}
