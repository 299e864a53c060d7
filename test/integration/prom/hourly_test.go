//go:build integration

package prom_test

import (
	"context"
	"math"
	"slices"
	"testing"
	"time"

	"github.com/gpuwise/gpuwise/internal/cluster"
	"github.com/gpuwise/gpuwise/internal/prom"
	"github.com/gpuwise/gpuwise/internal/snapshot"
)

// TestHourlySeriesMatchGroundTruth reads the 14 simulated days from the
// real Prometheus by remote read, raw samples over JSON and query_range,
// and checks every GPU workload's hourly series against the simulator's:
// pod-hours and held GPU-hours exactly (kube-state-metrics timestamps),
// sample-weighted series and counters to a tolerance (Prometheus weighs
// on a step grid), OOM kills exactly; and the interruptions and checkpoint
// hints the simulator built in.
func TestHourlySeriesMatchGroundTruth(t *testing.T) {
	url, truthFile := state(t)
	truth, err := snapshot.ReadFile(truthFile)
	if err != nil {
		t.Fatal(err)
	}
	end, _ := time.Parse(time.RFC3339, "2026-11-15T00:00:00Z")
	for _, read := range []string{prom.ReadRemote, prom.ReadRaw, prom.ReadRange} {
		t.Run(read, func(t *testing.T) {
			o := prom.Defaults()
			o.Client.URL, o.Read = url, read
			o.Window = cluster.Window{Start: end.Add(-14 * 24 * time.Hour), End: end}
			got, err := prom.Build(context.Background(), o)
			if err != nil {
				t.Fatalf("Build: %v", err)
			}
			tol, ratios := 0.01, 0.01
			if read == prom.ReadRange {
				// Step means on a grid aligned to the window, not samples:
				// sums within 5%; hourly ratios (whose partial first and
				// last hours move with the grid) within 15%.
				tol, ratios = 0.05, 0.15
			}
			compareHourly(t, truth.Hourly, got.Hourly, tol, ratios)
			compareInterruptions(t, truth, got)
		})
	}
}

func compareHourly(t *testing.T, want, got *cluster.Hourly, tol, ratios float64) {
	t.Helper()
	if got == nil || len(got.Workloads) != len(want.Workloads) {
		t.Fatalf("hourly series for %d workloads, want %d", lenOf(got), len(want.Workloads))
	}
	bad := 0
	for i := range want.Workloads {
		w := &want.Workloads[i]
		g := got.Find(w.Workload)
		if g == nil || g.From != w.From || g.Hours() != w.Hours() || g.Server != w.Server {
			t.Errorf("%s: got %+v, want hours %d+%d server %q", w.Workload, g, w.From, w.Hours(), w.Server)
			bad++
			continue
		}
		for _, c := range []struct {
			name      string
			got, want cluster.Series
			tol       float64
		}{
			{"pods", g.Pods, w.Pods, 1e-6}, {"gpu_held", g.GPUHeld, w.GPUHeld, 1e-6},
			{"gpu_measured", g.GPUMeasured, w.GPUMeasured, tol}, {"gpu_active", g.GPUActive, w.GPUActive, tol},
			{"gpu_idle", g.GPUIdle, w.GPUIdle, 2 * tol}, {"pcie_rx", g.PCIeRx, w.PCIeRx, ratios},
			{"nvlink_rx", g.NVLinkRx, w.NVLinkRx, ratios}, {"cpu_throttled", g.CPUThrottled, w.CPUThrottled, 2 * ratios},
			{"cpu_of_limit", g.CPUOfLimit, w.CPUOfLimit, ratios}, {"memory_of_limit", g.MemoryOfLimit, w.MemoryOfLimit, ratios},
			{"oom_kills", g.OOMKills, w.OOMKills, 1e-9}, {"requests", g.Requests, w.Requests, tol},
			{"generation_tokens", g.GenerationTokens, w.GenerationTokens, tol}, {"queue_depth", g.QueueDepth, w.QueueDepth, 2 * tol},
		} {
			gs, ws := c.got.Sum(), c.want.Sum()
			if (c.got == nil) != (c.want == nil) || math.Abs(gs-ws) > c.tol*math.Max(math.Abs(ws), 1) {
				t.Errorf("%s %s: present %v Σ %.6g, want present %v Σ %.6g (± %.1f%%)", w.Workload, c.name, c.got != nil, gs, c.want != nil, ws, 100*c.tol)
				bad++
			}
		}
		if len(g.Models) != len(w.Models) {
			t.Errorf("%s: %d models, want %d", w.Workload, len(g.Models), len(w.Models))
			bad++
		}
		for j := range w.Models {
			if j >= len(g.Models) {
				break
			}
			gm, wm := &g.Models[j], &w.Models[j]
			gs, ws := gm.Requests.Sum(), wm.Requests.Sum()
			if gm.Model != wm.Model || math.Abs(gs-ws) > tol*math.Max(ws, 1) {
				t.Errorf("%s model %d: %q Σ requests %.6g, want %q %.6g", w.Workload, j, gm.Model, gs, wm.Model, ws)
				bad++
			}
		}
		if !sameLatency(t, w, g, tol) {
			bad++
		}
		if bad > 20 {
			t.Fatal("too many differences")
		}
	}
}

// sameLatency: the same latency histogram (metric, bounds) with the
// same requests and p50/p95/p99 over the window.
func sameLatency(t *testing.T, want, got *cluster.WorkloadHours, tol float64) bool {
	t.Helper()
	g, w := got.Latency, want.Latency
	if (g == nil) != (w == nil) {
		t.Errorf("%s latency: present %v, want %v", want.Workload, g != nil, w != nil)
		return false
	}
	if w == nil {
		return true
	}
	if g.Metric != w.Metric || !slices.Equal(g.Bounds, w.Bounds) {
		t.Errorf("%s latency: %s %v, want %s %v", want.Workload, g.Metric, g.Bounds, w.Metric, w.Bounds)
		return false
	}
	gs, _ := g.Sum(0, got.Hours(), nil)
	ws, _ := w.Sum(0, want.Hours(), nil)
	var gt, wt float64
	for j := range ws {
		gt, wt = gt+gs[j], wt+ws[j]
	}
	ok := math.Abs(gt-wt) <= tol*math.Max(wt, 1)
	if !ok {
		t.Errorf("%s latency: %.6g requests, want %.6g", want.Workload, gt, wt)
	}
	for _, q := range []float64{0.5, 0.95, 0.99} {
		if gq, wq := cluster.HistogramQuantile(q, g.Bounds, gs), cluster.HistogramQuantile(q, w.Bounds, ws); math.Abs(gq-wq) > tol*wq {
			t.Errorf("%s latency p%.0f: %.4g s, want %.4g s", want.Workload, 100*q, gq, wq)
			ok = false
		}
	}
	return ok
}

func lenOf(h *cluster.Hourly) int {
	if h == nil {
		return 0
	}
	return len(h.Workloads)
}

// compareInterruptions: the same spot nodes gone and pods evicted or lost
// with them (Prometheus cannot tell a node's end reason, so nodes are
// compared by name and time), and the same checkpoint hints.
func compareInterruptions(t *testing.T, truth, got *cluster.Snapshot) {
	t.Helper()
	type key struct {
		kind, name string
		at         int64
	}
	seen := map[key]bool{}
	for _, it := range cluster.Interruptions(got) {
		seen[key{it.Kind, it.Name, it.At.Unix() / 60}] = true
	}
	want := cluster.Interruptions(truth)
	for _, it := range want {
		if !seen[key{it.Kind, it.Name, it.At.Unix() / 60}] {
			t.Errorf("interruption %+v not seen in Prometheus", it)
		}
	}
	if n := len(cluster.Interruptions(got)); n != len(want) {
		t.Errorf("%d interruptions from Prometheus, %d in the simulation", n, len(want))
	}
	hints := map[string]int64{}
	for _, p := range got.Pods {
		hints[p.Key()] = p.CheckpointSeconds
	}
	for _, p := range truth.Pods {
		if hints[p.Key()] != p.CheckpointSeconds {
			t.Errorf("%s: checkpoint %ds, want %ds", p.Key(), hints[p.Key()], p.CheckpointSeconds)
		}
	}
}
