package cost_test

import (
	"fmt"
	"runtime"
	"sync"
	"testing"
	"time"

	"github.com/gpuwise/gpuwise/internal/cluster"
	"github.com/gpuwise/gpuwise/internal/cost"
	"github.com/gpuwise/gpuwise/internal/pricing"
	"github.com/gpuwise/gpuwise/internal/sim"
)

var (
	benchMu    sync.Mutex
	benchSnaps = map[int]*cluster.Prepared{}
	benchHeap  = map[int]uint64{}
)

// benchSnapshot simulates about gpus GPUs over 7 days at 5-minute steps,
// once per size, and records the heap the snapshot holds.
func benchSnapshot(b *testing.B, gpus int) *cluster.Prepared {
	benchMu.Lock()
	defer benchMu.Unlock()
	if s, ok := benchSnaps[gpus]; ok {
		return s
	}
	cfg := sim.DefaultConfig()
	cfg.Window, cfg.Step = 7*24*time.Hour, 5*time.Minute
	cfg.Scale = max(1, gpus/sim.GPUsPerScale)
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	s, err := sim.Generate(cfg)
	if err != nil {
		b.Fatal(err)
	}
	p, err := cluster.Prepare(s)
	if err != nil {
		b.Fatal(err)
	}
	runtime.GC()
	runtime.ReadMemStats(&after)
	benchSnaps[gpus], benchHeap[gpus] = p, after.HeapAlloc-before.HeapAlloc
	return p
}

func BenchmarkAllocate(b *testing.B) {
	catalog := pricing.Embedded()
	for _, gpus := range []int{100, 1000, 10000} {
		b.Run(fmt.Sprintf("gpus=%d", gpus), func(b *testing.B) {
			s := benchSnapshot(b, gpus)
			opts := cost.DefaultOptions()
			ropts := cost.DefaultReportOptions()
			ropts.By = "workload"
			b.ReportAllocs()
			b.ResetTimer()
			for b.Loop() {
				a, err := cost.Allocate(s, catalog, opts)
				if err != nil {
					b.Fatal(err)
				}
				if _, err := cost.NewReport(a, ropts); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(countGPUs(s)), "gpus")
			b.ReportMetric(float64(len(s.Pods())), "pods")
			b.ReportMetric(float64(benchHeap[gpus])/(1<<20), "snapshot-MiB")
		})
	}
}

func countGPUs(s *cluster.Prepared) int {
	var n int
	for _, node := range s.Nodes() {
		n += len(node.GPUs)
	}
	return n
}
