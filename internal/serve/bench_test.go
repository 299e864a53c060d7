package serve_test

import (
	"context"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"runtime/pprof"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gpuwise/gpuwise/internal/app"
	"github.com/gpuwise/gpuwise/internal/cluster"
	"github.com/gpuwise/gpuwise/internal/rolling"
	"github.com/gpuwise/gpuwise/internal/serve"
	"github.com/gpuwise/gpuwise/internal/sim"
)

// benchScale is the simulated cluster's scale for the serve benchmarks:
// GPUWISE_SERVE_BENCH_SCALE cells of 96 GPUs (make bench-serve: 104, about
// 10,000 GPUs and 57,000 pods); 10 by default, so that make bench stays
// short.
func benchScale(b *testing.B) int {
	if s, err := strconv.Atoi(os.Getenv("GPUWISE_SERVE_BENCH_SCALE")); err == nil && s > 0 {
		return s
	}
	return 10
}

// intervalReader answers every interval with the simulated week's
// accumulators relabelled to that interval: the same series and state
// sizes an interval read from Prometheus yields, at no generation cost.
type intervalReader struct {
	snap *cluster.Snapshot
	span *rolling.Span
}

func (r intervalReader) ReadUsage(_ context.Context, w cluster.Window) (*app.SnapshotResult, error) {
	prep, err := app.Prepare(rolling.Attach(r.snap, w, r.span))
	if err != nil {
		return nil, err
	}
	return &app.SnapshotResult{Snapshot: prep}, nil
}

var benchOnce sync.Map // scale → *benchWorld

type benchWorld struct {
	snap *cluster.Snapshot
	span *rolling.Span
	// heapMiB is the heap in use with the world built and no service: the
	// harness's own share, left out of serve-heap-MiB; rssMiB the
	// process's resident memory then (after a collection, the freed pages
	// returned): left out of serve-rss-MiB.
	heapMiB, rssMiB float64
	// live is the world's live heap, left out of what the service's
	// memory pacer measures (serve.ExcludeFromPacing).
	live uint64
}

func benchWorldOf(b *testing.B, scale int) *benchWorld {
	if w, ok := benchOnce.Load(scale); ok {
		return w.(*benchWorld)
	}
	cfg := sim.DefaultConfig()
	cfg.Scale = scale
	snap, err := sim.Generate(cfg)
	if err != nil {
		b.Fatal(err)
	}
	w := &benchWorld{snap: snap, span: rolling.Extract(snap)}
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	w.heapMiB = float64(ms.HeapInuse) / (1 << 20)
	live := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
	metrics.Read(live)
	w.live = live[0].Value.Uint64()
	debug.FreeOSMemory()
	w.rssMiB = rssMiB()
	benchOnce.Store(scale, w)
	return w
}

// reportHeap reports the heap in use after a full collection, in all
// and without the world's own share (serve-heap-MiB).
func (w *benchWorld) reportHeap(b *testing.B) {
	runtime.GC()
	debug.FreeOSMemory()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	b.ReportMetric(float64(ms.HeapInuse)/(1<<20), "heap-MiB")
	b.ReportMetric(float64(ms.HeapInuse)/(1<<20)-w.heapMiB, "serve-heap-MiB")
}

// benchService is a service on the simulated cluster (its week's end as
// now) with a history file, warmed by its first cycle (the window read
// interval by interval).
func benchService(b *testing.B, scale int) (*instance, *benchWorld, *clock) {
	w := benchWorldOf(b, scale)
	clk := &clock{}
	clk.set(w.snap.Window.End)
	opts := liveOptions(filepath.Join(b.TempDir(), "history.db"))
	// GPUWISE_SERVE_BENCH_HEADROOM: serve's --memory-headroom (0, the
	// default: not paced; docs/performance.md measured 0.25).
	if h, err := strconv.ParseFloat(os.Getenv("GPUWISE_SERVE_BENCH_HEADROOM"), 64); err == nil {
		opts.MemoryHeadroom = h
	}
	in := startWith(&testing.T{}, opts, clk.now, staticInv{w.snap}, intervalReader{snap: w.snap, span: w.span})
	b.Cleanup(func() { in.srv.Close(); in.svc.Close() })
	serve.ExcludeFromPacing(in.svc, w.live)
	if err := in.svc.Cycle(context.Background()); err != nil {
		b.Fatal(err)
	}
	return in, w, clk
}

// BenchmarkCycle is one steady-state cycle: read the new 10-minute
// interval, record it in the history (4 groupings), rebuild the 24-hour
// window (report with its savings ledger, audit, GPU-model breakdown) and
// publish. CPU seconds per cycle are reported as cpu-s/op.
func BenchmarkCycle(b *testing.B) {
	scale := benchScale(b)
	in, w, clk := benchService(b, scale)
	b.ReportMetric(float64(scale*sim.GPUsPerScale), "GPUs")
	b.ReportMetric(float64(len(w.snap.Pods)), "pods")
	b.ResetTimer()
	resetPeakRSS(b)
	cpu0 := cpuSeconds()
	for i := range b.N {
		clk.set(w.snap.Window.End.Add(time.Duration(i+1) * 10 * time.Minute))
		if err := in.svc.Cycle(context.Background()); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric((cpuSeconds()-cpu0)/float64(b.N), "cpu-s/op")
	b.StopTimer()
	// The steady state as a process sees it: the peak resident memory of
	// the cycles (not of the world's generation nor of the first cycle,
	// which reads the whole window) and the resident memory after them,
	// each also without the world's share (serve-*: the service apart
	// from the simulator).
	peak, rss := statusMiB("VmHWM:"), rssMiB()
	b.ReportMetric(peak, "peak-rss-MiB")
	b.ReportMetric(peak-w.rssMiB, "serve-peak-rss-MiB")
	b.ReportMetric(rss-w.rssMiB, "serve-rss-MiB")
	b.ReportMetric(float64(debug.SetMemoryLimit(-1))/(1<<20), "go-limit-MiB")
	w.reportHeap(b)
	b.ReportMetric(rssMiB(), "rss-MiB")
	if p := os.Getenv("GPUWISE_SERVE_HEAP_PROFILE"); p != "" {
		if f, err := os.Create(p); err == nil {
			pprof.WriteHeapProfile(f)
			f.Close()
		}
	}
}

// BenchmarkScrape is one GET /metrics of the service's registry.
func BenchmarkScrape(b *testing.B) {
	in, _, _ := benchService(b, benchScale(b))
	b.ResetTimer()
	var n int
	for range b.N {
		resp, err := http.Get(in.srv.URL + "/metrics")
		if err != nil {
			b.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		n = strings.Count(string(body), "\ngpuwise_")
	}
	b.ReportMetric(float64(n), "gpuwise-series")
}

// BenchmarkHistoryGrowth measures the history's file after its first day:
// the first cycle records the 24-hour window hour by hour (the hourly rows
// and the day's rollup, which a month of cycles repeats 30 times; later
// cycles of the same hour update the same rows). Reported: bytes per
// recorded hour and MiB per month, after SQLite's checkpoint on close.
func BenchmarkHistoryGrowth(b *testing.B) {
	scale := benchScale(b)
	for range b.N {
		w := benchWorldOf(b, scale)
		empty := filepath.Join(b.TempDir(), "empty.db")
		path := filepath.Join(b.TempDir(), "history.db")
		for _, p := range []string{empty, path} {
			clk := &clock{}
			clk.set(w.snap.Window.End)
			in := startWith(&testing.T{}, liveOptions(p), clk.now, staticInv{w.snap}, intervalReader{snap: w.snap, span: w.span})
			if p == path {
				if err := in.svc.Cycle(context.Background()); err != nil {
					b.Fatal(err)
				}
			}
			in.srv.Close()
			in.svc.Close()
		}
		grown := fileSize(path) - fileSize(empty)
		b.ReportMetric(float64(grown)/24, "bytes/hour")
		b.ReportMetric(float64(grown)*30/(1<<20), "MiB/month")
	}
}

func fileSize(p string) int64 {
	fi, err := os.Stat(p)
	if err != nil {
		return 0
	}
	return fi.Size()
}

func cpuSeconds() float64 {
	b, err := os.ReadFile("/proc/self/stat")
	if err != nil {
		return 0
	}
	f := strings.Fields(string(b)[strings.LastIndexByte(string(b), ')')+2:])
	u, _ := strconv.ParseFloat(f[11], 64)
	s, _ := strconv.ParseFloat(f[12], 64)
	return (u + s) / 100 // clock ticks at USER_HZ 100
}

func rssMiB() float64 { return statusMiB("VmRSS:") }

// resetPeakRSS starts VmHWM again from the present resident memory
// (Linux's clear_refs "5"), failing the benchmark where it cannot.
func resetPeakRSS(b *testing.B) {
	if err := os.WriteFile("/proc/self/clear_refs", []byte("5"), 0); err != nil {
		b.Fatalf("resetting the peak RSS: %v", err)
	}
}

// statusMiB is a /proc/self/status field given in kB, in MiB.
func statusMiB(field string) float64 {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for _, l := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(l, field); ok {
			kb, _ := strconv.ParseFloat(strings.Fields(v)[0], 64)
			return kb / 1024
		}
	}
	return 0
}
