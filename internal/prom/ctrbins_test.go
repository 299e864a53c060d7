package prom

import (
	"math"
	"testing"
	"time"

	"github.com/gpuwise/gpuwise/internal/cluster"
	"github.com/gpuwise/gpuwise/internal/prom/wire"
)

// Once the pods are known, only containers with GPU requests are binned
// by hour; every container keeps its usage accumulators and its range
// checks.
func TestOnlyGPUContainersBinnedOncePodsKnown(t *testing.T) {
	start := time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)
	u := newCtrUsage()
	u.clock = newHourClock(cluster.Window{Start: start, End: start.Add(6 * time.Hour)})
	if !u.bins("ns/cpu/main") {
		t.Fatal("before the pods are known every container must be binned")
	}
	u.onlyBin(map[string]struct{}{"ns/gpu/main": {}})
	if u.bins("ns/cpu/main") || !u.bins("ns/gpu/main") {
		t.Fatalf("bins(cpu) = %v, bins(gpu) = %v; want false, true", u.bins("ns/cpu/main"), u.bins("ns/gpu/main"))
	}
	t0 := start.UnixMilli()
	cpu := u.cpuBatch(float64(t0) / 1000)()
	counters := u.counterBatch(cfsPeriods)(float64(t0) / 1000)()
	for _, pod := range []string{"cpu", "gpu"} {
		l := wire.Labels{{Name: "container", Value: "main"}, {Name: "namespace", Value: "ns"}, {Name: "pod", Value: pod}}
		xs := []wire.Sample{{T: t0, V: 0}, {T: t0 + 300_000, V: 30}, {T: t0 + 600_000, V: -1}, {T: t0 + 900_000, V: 90}}
		cpu.Series(l).Sink.Samples(xs)
		counters.Series(l).Sink.Samples(xs)
	}
	cpu.Commit()
	counters.Commit()
	for pod, binned := range map[string]bool{"cpu": false, "gpu": true} {
		s := u.ctrs["ns/"+pod+"/main"]
		if s == nil || s.cpu == nil || math.Abs(s.cpu.Mean()-0.1) > 1e-9 {
			t.Fatalf("%s: no CPU usage accumulated (%+v)", pod, s)
		}
		if got := s.hours.used != nil && len(s.hours.used.S) > 0; got != binned {
			t.Errorf("%s: CPU binned = %v, want %v", pod, got, binned)
		}
		if got := s.hours.periods != nil; got != binned {
			t.Errorf("%s: CFS periods binned = %v, want %v", pod, got, binned)
		}
	}
	if got := u.counterRanges[cfsPeriods].Out; got != 2 {
		t.Errorf("CFS periods samples left out by the range check = %d, want 2 (one per container, binned or not)", got)
	}
}
