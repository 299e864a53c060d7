package prom

import (
	"bytes"
	"context"
	"math"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gpuwise/gpuwise/internal/cluster"
	"github.com/gpuwise/gpuwise/internal/prom/promtest"
	"github.com/gpuwise/gpuwise/internal/sim"
)

// simulated is three days of the simulated demo cluster as Prometheus would
// hold it (the simulator's OpenMetrics history in promtest) and the
// simulator's own snapshot of it, made once.
var simulated = sync.OnceValues(func() (*simHistory, error) {
	var buf bytes.Buffer
	truth, err := sim.WriteOpenMetrics(sim.Config{Seed: 1, Scale: 1, Window: 72 * time.Hour}, &buf)
	if err != nil {
		return nil, err
	}
	series, err := promtest.ParseOpenMetrics(&buf)
	return &simHistory{series: series, truth: truth}, err
})

type simHistory struct {
	series []promtest.Series
	truth  *cluster.Snapshot
}

// TestHourlySeriesFromPrometheus reads the simulated day back by remote
// read and checks every workload's hourly series against the simulator's:
// lives and held GPU-hours exactly (kube-state-metrics timestamps),
// sample-weighted series to within the last sample's weight at a pod's
// end, counts exactly; and pod end reasons and checkpoint hints.
func TestHourlySeriesFromPrometheus(t *testing.T) {
	t.Parallel()
	h, err := simulated()
	if err != nil {
		t.Fatal(err)
	}
	srv := promtest.New(t, h.series)
	opts := testOptions(srv.URL, ReadRemote)
	opts.Window = h.truth.Window
	got, err := Build(context.Background(), opts)
	if err != nil {
		t.Fatalf("Build: %v", err)
	}
	if got.Hourly == nil {
		t.Fatal("no hourly series")
	}
	models, histograms := 0, 0
	for i := range h.truth.Hourly.Workloads {
		compareWorkload(t, &h.truth.Hourly.Workloads[i], got.Hourly.Find(h.truth.Hourly.Workloads[i].Workload))
		models += len(h.truth.Hourly.Workloads[i].Models)
		if h.truth.Hourly.Workloads[i].Latency != nil {
			histograms++
		}
	}
	if models == 0 || histograms == 0 {
		t.Errorf("the simulated days have %d per-model serving series and %d latency histograms to compare", models, histograms)
	}
	t.Logf("%d per-model series and %d latency histograms compared", models, histograms)
	if n, m := len(got.Hourly.Workloads), len(h.truth.Hourly.Workloads); n != m {
		t.Errorf("%d workloads with hourly series, the simulator has %d", n, m)
	}
	checkHints(t, h.truth, got)
}

// seriesTolerance is the relative difference allowed on sums of
// sample-weighted series: Prometheus weighs a pod's last sample a whole
// step where the simulator counted the part of the step the pod lived.
const seriesTolerance = 0.01

func compareWorkload(t *testing.T, want, got *cluster.WorkloadHours) {
	t.Helper()
	if got == nil {
		t.Errorf("%s: no hourly series from Prometheus", want.Workload)
		return
	}
	if got.From != want.From || got.Hours() != want.Hours() || got.Server != want.Server {
		t.Errorf("%s: hours %d+%d server %q, want %d+%d %q", want.Workload, got.From, got.Hours(), got.Server, want.From, want.Hours(), want.Server)
		return
	}
	for _, c := range []struct {
		name      string
		got, want cluster.Series
		tol       float64
	}{
		{"pods", got.Pods, want.Pods, 1e-6}, {"gpu_held", got.GPUHeld, want.GPUHeld, 1e-6},
		{"gpu_measured", got.GPUMeasured, want.GPUMeasured, seriesTolerance},
		{"gpu_active", got.GPUActive, want.GPUActive, seriesTolerance},
		{"gpu_idle", got.GPUIdle, want.GPUIdle, 2 * seriesTolerance},
		{"pcie_rx", got.PCIeRx, want.PCIeRx, seriesTolerance},
		{"nvlink_rx", got.NVLinkRx, want.NVLinkRx, seriesTolerance},
		{"cpu_throttled", got.CPUThrottled, want.CPUThrottled, 2 * seriesTolerance},
		{"cpu_of_limit", got.CPUOfLimit, want.CPUOfLimit, seriesTolerance},
		{"memory_of_limit", got.MemoryOfLimit, want.MemoryOfLimit, seriesTolerance},
		{"oom_kills", got.OOMKills, want.OOMKills, 1e-9},
		{"requests", got.Requests, want.Requests, seriesTolerance},
		{"generation_tokens", got.GenerationTokens, want.GenerationTokens, seriesTolerance},
		{"queue_depth", got.QueueDepth, want.QueueDepth, 2 * seriesTolerance},
	} {
		if (c.got == nil) != (c.want == nil) {
			t.Errorf("%s %s: present %v, want %v", want.Workload, c.name, c.got != nil, c.want != nil)
			continue
		}
		if g, w := c.got.Sum(), c.want.Sum(); math.Abs(g-w) > c.tol*math.Max(math.Abs(w), 1) {
			t.Errorf("%s %s: Σ %.6g, simulator %.6g (± %.1f%%)", want.Workload, c.name, g, w, 100*c.tol)
		}
	}
	compareModels(t, want, got, seriesTolerance)
	compareLatency(t, want, got, seriesTolerance)
}

// compareLatency: the same latency histogram (metric, bounds) with the
// same requests and quantiles over the window, hours with data alike.
func compareLatency(t *testing.T, want, got *cluster.WorkloadHours, tol float64) {
	t.Helper()
	g, w := got.Latency, want.Latency
	if (g == nil) != (w == nil) {
		t.Errorf("%s latency: present %v, want %v", want.Workload, g != nil, w != nil)
		return
	}
	if w == nil {
		return
	}
	if g.Metric != w.Metric || !slices.Equal(g.Bounds, w.Bounds) {
		t.Errorf("%s latency: %s %v, want %s %v", want.Workload, g.Metric, g.Bounds, w.Metric, w.Bounds)
		return
	}
	gs, gn := g.Sum(0, got.Hours(), nil)
	ws, wn := w.Sum(0, want.Hours(), nil)
	if gn != wn {
		t.Errorf("%s latency: %d hours with data, want %d", want.Workload, gn, wn)
	}
	var gt, wt float64
	for j := range ws {
		gt, wt = gt+gs[j], wt+ws[j]
	}
	if math.Abs(gt-wt) > tol*math.Max(wt, 1) {
		t.Errorf("%s latency: %.6g requests, want %.6g", want.Workload, gt, wt)
	}
	for _, q := range []float64{0.5, 0.95, 0.99} {
		if gq, wq := cluster.HistogramQuantile(q, g.Bounds, gs), cluster.HistogramQuantile(q, w.Bounds, ws); math.Abs(gq-wq) > tol*wq {
			t.Errorf("%s latency p%.0f: %.4g s, want %.4g s", want.Workload, 100*q, gq, wq)
		}
	}
}

// compareModels: the same model names (vLLM model_name, Triton model) with
// the same requests and generated tokens.
func compareModels(t *testing.T, want, got *cluster.WorkloadHours, tol float64) {
	t.Helper()
	if len(got.Models) != len(want.Models) {
		t.Errorf("%s: %d models, want %d (%+v)", want.Workload, len(got.Models), len(want.Models), want.Models)
		return
	}
	for i := range want.Models {
		g, w := &got.Models[i], &want.Models[i]
		if g.Model != w.Model {
			t.Errorf("%s: model %d is %q, want %q", want.Workload, i, g.Model, w.Model)
			continue
		}
		for _, c := range [][2]cluster.Series{{g.Requests, w.Requests}, {g.GenerationTokens, w.GenerationTokens}} {
			gs, ws := c[0].Sum(), c[1].Sum()
			if (c[0] == nil) != (c[1] == nil) || math.Abs(gs-ws) > tol*math.Max(ws, 1) {
				t.Errorf("%s model %s: present %v Σ %.6g, want present %v Σ %.6g", want.Workload, w.Model, c[0] != nil, gs, c[1] != nil, ws)
			}
		}
	}
}

func checkHints(t *testing.T, truth, got *cluster.Snapshot) {
	t.Helper()
	byKey := map[string]*cluster.Pod{}
	for i := range got.Pods {
		byKey[got.Pods[i].Key()] = &got.Pods[i]
	}
	var reasons, hints int
	for i := range truth.Pods {
		w := &truth.Pods[i]
		g := byKey[w.Key()]
		if g == nil {
			continue
		}
		if g.EndReason != w.EndReason || g.CheckpointSeconds != w.CheckpointSeconds {
			t.Errorf("%s: end reason %q checkpoint %ds, want %q %ds", w.Key(), g.EndReason, g.CheckpointSeconds, w.EndReason, w.CheckpointSeconds)
		}
		if w.EndReason != "" {
			reasons++
		}
		if w.CheckpointSeconds > 0 {
			hints++
		}
	}
	if hints == 0 || reasons == 0 {
		t.Errorf("the simulated days have %d checkpoint hints and %d end reasons to check, want some of each", hints, reasons)
	}
	t.Logf("%d end reasons and %d checkpoint hints compared", reasons, hints)
}

// TestAbsentSeriesAreNil: without the PCIe, OOM and serving metrics the
// hourly series have no such series (never zeros), and notes name the
// metrics; the idle hours then have an unknown cause, never a guessed one.
func TestAbsentSeriesAreNil(t *testing.T) {
	t.Parallel()
	h, err := simulated()
	if err != nil {
		t.Fatal(err)
	}
	srv := promtest.New(t, h.series)
	srv.Edit(promtest.Drop(pcieMetric, "container_oom_events_total", "vllm:request_success_total", "vllm:generation_tokens_total",
		"vllm:prompt_tokens_total", "vllm:num_requests_waiting", "nv_inference_request_success", "nv_inference_queue_duration_us",
		"vllm:e2e_request_latency_seconds_bucket"))
	opts := testOptions(srv.URL, ReadRemote)
	opts.Window = h.truth.Window
	got, err := Build(context.Background(), opts)
	if err != nil {
		t.Fatalf("Build: %v", err)
	}
	for _, w := range got.Hourly.Workloads {
		if w.PCIeRx != nil || w.OOMKills != nil || w.Requests != nil || w.QueueDepth != nil || w.Server != "" || w.Latency != nil {
			t.Errorf("%s: series of dropped metrics: pcie %v oom %v requests %v", w.Workload, w.PCIeRx != nil, w.OOMKills != nil, w.Requests != nil)
		}
		if w.GPUActive == nil && w.GPUMeasured.Sum() > 0 {
			t.Errorf("%s: measured but no activity series", w.Workload)
		}
	}
	notes := strings.Join(got.Notes, "\n")
	for _, m := range []string{pcieMetric, "container_oom_events_total", "vllm:request_success_total", "nv_inference_request_success"} {
		if !strings.Contains(notes, m) {
			t.Errorf("notes do not name %s:\n%s", m, notes)
		}
	}
}
