package idlecause_test

import (
	"math"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/gpuwise/gpuwise/internal/cluster"
	ct "github.com/gpuwise/gpuwise/internal/cluster/clustertest"
	"github.com/gpuwise/gpuwise/internal/cost"
	"github.com/gpuwise/gpuwise/internal/idlecause"
	"github.com/gpuwise/gpuwise/internal/pricing"
	"github.com/gpuwise/gpuwise/internal/sim"
)

var nan = float32(math.NaN())

// oneHour is a one-hour snapshot of workload ml/Deployment/w holding a GPU
// whose container has the given CPU and memory limits, idle all hour,
// with the series f sets.
func oneHour(cpuLimit, memLimit int64, f func(w *cluster.WorkloadHours)) *cluster.Prepared {
	pod := ct.Pod("ml", "w").On("n1").Holds("n1/gpu0", 0, 1).Obj()
	pod.Containers[0].GPURequests = map[string]int64{"nvidia.com/gpu": 1}
	pod.Containers[0].CPULimitMilli, pod.Containers[0].MemoryLimit = cpuLimit, memLimit
	w := cluster.WorkloadHours{Workload: "ml/Deployment/w", Pods: cluster.Series{1}, GPUHeld: cluster.Series{1},
		GPUMeasured: cluster.Series{1}, GPUActive: cluster.Series{0.02}, GPUIdle: cluster.Series{1},
		OOMKills: cluster.Series{0}, PCIeRx: cluster.Series{1e8}}
	if memLimit > 0 {
		w.MemoryOfLimit = cluster.Series{0.3}
	}
	if cpuLimit > 0 {
		w.CPUThrottled, w.CPUOfLimit = cluster.Series{0.01}, cluster.Series{0.2}
	}
	f(&w)
	s := &cluster.Snapshot{Window: ct.Window(1), Nodes: []cluster.Node{ct.Node("n1").GPUs(1, "H100-80GB").Obj()},
		Pods: []cluster.Pod{pod}, Hourly: &cluster.Hourly{IdleThreshold: 0.1, Workloads: []cluster.WorkloadHours{w}}}
	p, err := cluster.Prepare(s)
	if err != nil {
		panic(err)
	}
	return p
}

func TestClassifiesEachCause(t *testing.T) {
	t.Parallel()
	const gi = 1 << 30
	tests := []struct {
		name         string
		cpuLim, mem  int64
		set          func(w *cluster.WorkloadHours)
		want         idlecause.Cause
		wantEvidence string
	}{
		{"quiet with limits: no work", 4000, 8 * gi, func(*cluster.WorkloadHours) {}, idlecause.NoWork, "quiet"},
		{"no CPU limit cannot be throttled", 0, 8 * gi, func(*cluster.WorkloadHours) {}, idlecause.NoWork, "quiet"},
		{"throttled", 4000, 8 * gi, func(w *cluster.WorkloadHours) { w.CPUThrottled[0] = 0.4 }, idlecause.CPUStarved, "throttled in 40% of CFS periods"},
		{"CPU at its limit", 4000, 8 * gi, func(w *cluster.WorkloadHours) { w.CPUOfLimit[0] = 0.97 }, idlecause.CPUStarved, "CPU at 97% of its limit"},
		{"PCIe busy", 0, 8 * gi, func(w *cluster.WorkloadHours) { w.PCIeRx[0] = 12e9 }, idlecause.InputBound, "PCIe receive 12.0 GB/s"},
		{"NVLink busy", 0, 8 * gi, func(w *cluster.WorkloadHours) { w.NVLinkRx = cluster.Series{80e9} }, idlecause.InputBound, "NVLink receive 80.0 GB/s"},
		{"links busy in an hour of compute bursts: not input-bound", 0, 8 * gi, func(w *cluster.WorkloadHours) {
			w.NVLinkRx, w.GPUActive[0], w.GPUIdle[0] = cluster.Series{80e9}, 0.6, 0.3
		}, idlecause.NoWork, "quiet"},
		{"OOM kill wins over throttling", 4000, 8 * gi, func(w *cluster.WorkloadHours) { w.OOMKills[0], w.CPUThrottled[0] = 2, 0.9 }, idlecause.MemoryPressured, "2 OOM kill(s)"},
		{"working set at its limit", 0, 8 * gi, func(w *cluster.WorkloadHours) { w.MemoryOfLimit[0] = 0.95 }, idlecause.MemoryPressured, "up to 95% of its limit"},
		{"no PCIe series: unknown", 0, 8 * gi, func(w *cluster.WorkloadHours) { w.PCIeRx = nil }, idlecause.Unknown, "missing PCIe receive"},
		{"limited CPU unmeasured: unknown", 4000, 8 * gi, func(w *cluster.WorkloadHours) { w.CPUThrottled, w.CPUOfLimit = nil, nil }, idlecause.Unknown, "missing CPU throttling"},
		{"no OOM series: unknown", 0, 0, func(w *cluster.WorkloadHours) { w.OOMKills = nil }, idlecause.Unknown, "missing memory"},
		{"a gap hour is not quiet", 0, 8 * gi, func(w *cluster.WorkloadHours) { w.PCIeRx[0] = nan }, idlecause.Unknown, "missing PCIe receive"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			idle := []idlecause.Idle{{Workload: "ml/Deployment/w", GPUHours: 1, USD: 2, Priced: true}}
			r, err := idlecause.Explain(oneHour(tt.cpuLim, tt.mem, tt.set), idle, idlecause.DefaultPolicy())
			if err != nil {
				t.Fatal(err)
			}
			w := r.Workloads[0]
			if w.Main != tt.want || !strings.Contains(w.Evidence, tt.wantEvidence) {
				t.Errorf("main cause %s (%s), want %s with evidence containing %q", w.Main, w.Evidence, tt.want, tt.wantEvidence)
			}
		})
	}
}

func TestSplitReconciles(t *testing.T) {
	t.Parallel()
	// Two idle hours: one throttled, one quiet, idle GPU-hours 3 to 1.
	pod := ct.Pod("ml", "w").On("n1").Holds("n1/gpu0", 0, 1).Obj()
	pod.Containers[0].GPURequests = map[string]int64{"nvidia.com/gpu": 1}
	pod.Containers[0].CPULimitMilli = 2000
	w := cluster.WorkloadHours{Workload: "ml/Deployment/w", Pods: cluster.Series{1, 1}, GPUHeld: cluster.Series{1, 1},
		GPUMeasured: cluster.Series{1, 1}, GPUActive: cluster.Series{0, 0}, GPUIdle: cluster.Series{0.75, 0.25},
		OOMKills: cluster.Series{0, 0}, PCIeRx: cluster.Series{1e8, 1e8}, CPUThrottled: cluster.Series{0.5, 0}}
	s := &cluster.Snapshot{Window: ct.Window(2), Nodes: []cluster.Node{ct.Node("n1").GPUs(1, "H100-80GB").Obj()},
		Pods: []cluster.Pod{pod}, Hourly: &cluster.Hourly{IdleThreshold: 0.1, Workloads: []cluster.WorkloadHours{w}}}
	p, err := cluster.Prepare(s)
	if err != nil {
		t.Fatal(err)
	}
	idle := []idlecause.Idle{{Workload: "ml/Deployment/w", GPUHours: 1.2, USD: 10, Priced: true},
		{Workload: "ml/Deployment/unpriced", GPUHours: 2}}
	r, err := idlecause.Explain(p, idle, idlecause.DefaultPolicy())
	if err != nil {
		t.Fatal(err)
	}
	got := r.Workloads[0]
	want := []idlecause.Share{
		{Cause: idlecause.CPUStarved, Share: 0.75, GPUHours: 0.9, USD: ptr(7.5), MonthlyUSD: ptr(7.5 * pricing.HoursPerMonth / 2), Hours: 1},
		{Cause: idlecause.NoWork, Share: 0.25, GPUHours: 0.3, USD: ptr(2.5), MonthlyUSD: ptr(2.5 * pricing.HoursPerMonth / 2), Hours: 1},
	}
	if diff := cmp.Diff(want, got.Causes, approx); diff != "" {
		t.Errorf("causes (-want +got):\n%s", diff)
	}
	un := r.Workloads[1]
	if un.IdleUSD != nil || un.Main != idlecause.Unknown || un.Causes[0].USD != nil || un.Evidence != "no hourly series for this workload" {
		t.Errorf("unpriced workload without series: %+v", un)
	}
	if r.IdleGPUHours != 3.2 || r.IdleUSD != 10 || !strings.Contains(strings.Join(r.Notes, " "), "1 workload(s) ran on unpriced nodes") {
		t.Errorf("totals %g GPU-h, $%g, notes %q", r.IdleGPUHours, r.IdleUSD, r.Notes)
	}
}

var approx = cmp.Comparer(func(a, b float64) bool { return math.Abs(a-b) <= 1e-9*math.Max(1, math.Abs(a)) })

func ptr(v float64) *float64 { return &v }

func TestPolicyValidate(t *testing.T) {
	t.Parallel()
	p := idlecause.DefaultPolicy()
	if err := p.Validate(); err != nil {
		t.Fatalf("default policy: %v", err)
	}
	p.CPUThrottled, p.PCIeBusy, p.MemoryAtLimit, p.InputActivity = 0, -1, 1.5, 0
	err := p.Validate()
	for _, want := range []string{"cpu_throttled_share 0", "pcie_busy_bytes_per_second -1", "memory_at_limit 1.5", "input_bound_below_activity 0"} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("Validate = %v, want it to name %q", err, want)
		}
	}
}

// demo is the simulated demo explained once for the tests that read it.
var demo = sync.OnceValues(func() (*idlecause.Result, error) {
	s, err := sim.Generate(sim.DefaultConfig())
	if err != nil {
		return nil, err
	}
	p, err := cluster.Prepare(s)
	if err != nil {
		return nil, err
	}
	a, err := cost.Allocate(p, pricing.Embedded(), cost.DefaultOptions())
	if err != nil {
		return nil, err
	}
	var idle []idlecause.Idle
	for _, w := range a.IdleByWorkload() {
		idle = append(idle, idlecause.Idle{Workload: w.Workload, GPUHours: w.IdleGPUHours, USD: w.IdleUSD, Priced: w.Priced})
	}
	return idlecause.Explain(p, idle, idlecause.DefaultPolicy())
})

// TestSimulatedCausesAreFound: the simulator builds each cause into a
// workload; the engine names it, for (nearly) all of its idle time.
func TestSimulatedCausesAreFound(t *testing.T) {
	t.Parallel()
	r, err := demo()
	if err != nil {
		t.Fatal(err)
	}
	by := map[string]idlecause.Workload{}
	for _, w := range r.Workloads {
		by[w.Workload] = w
	}
	for key, want := range map[string]idlecause.Cause{
		"batch/CronJob/risk-score":             idlecause.CPUStarved,
		"batch/CronJob/feature-backfill":       idlecause.InputBound,
		"batch/CronJob/ocr-batch":              idlecause.MemoryPressured,
		"notebooks/StatefulSet/cv-experiments": idlecause.NoWork,
		"notebooks/Pod/jupyter-judy":           idlecause.NoWork,
		"inference/Deployment/fraud-scorer":    idlecause.NoWork,
		"dev/Deployment/devbox-carol":          idlecause.Unknown, // time-sliced: no PCIe series
		"inference/Deployment/spam-filter":     idlecause.Unknown, // MIG: no PCIe series
	} {
		w, ok := by[key]
		if !ok {
			t.Errorf("%s: not among the idle workloads", key)
			continue
		}
		if w.Main != want || w.Causes[0].Share < 0.95 {
			t.Errorf("%s: main cause %s at %.0f%% (%s), want %s at ≥ 95%%", key, w.Main, 100*w.Causes[0].Share, w.Evidence, want)
		}
	}
	if w := by["notebooks/StatefulSet/llm-playground"]; !hasCause(w, idlecause.MemoryPressured) || w.Main != idlecause.NoWork {
		t.Errorf("llm-playground: %+v; want mostly no-work with some memory-pressured hours (its OOM kills)", w.Causes)
	}
}

func hasCause(w idlecause.Workload, c idlecause.Cause) bool {
	for _, s := range w.Causes {
		if s.Cause == c {
			return true
		}
	}
	return false
}

// TestDemoSplitAddsUp: per workload and in total, the causes' GPU-hours
// and dollars add up to the cost engine's idle figures they split.
func TestDemoSplitAddsUp(t *testing.T) {
	t.Parallel()
	r, err := demo()
	if err != nil {
		t.Fatal(err)
	}
	var hours, usd float64
	for _, w := range r.Workloads {
		var h, d float64
		for _, s := range w.Causes {
			h += s.GPUHours
			if s.USD != nil {
				d += *s.USD
			}
		}
		if math.Abs(h-w.IdleGPUHours) > 1e-9*math.Max(1, h) || (w.IdleUSD != nil && math.Abs(d-*w.IdleUSD) > 1e-9*math.Max(1, d)) {
			t.Errorf("%s: causes sum to %g GPU-h $%g, workload %g GPU-h $%v", w.Workload, h, d, w.IdleGPUHours, w.IdleUSD)
		}
	}
	for _, s := range r.Totals {
		hours += s.GPUHours
		if s.USD != nil {
			usd += *s.USD
		}
	}
	if math.Abs(hours-r.IdleGPUHours) > 1e-6 || math.Abs(usd-r.IdleUSD) > 0.005 {
		t.Errorf("totals sum to %g GPU-h $%g; want %g GPU-h $%g", hours, usd, r.IdleGPUHours, r.IdleUSD)
	}
}
