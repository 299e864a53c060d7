package sim

import (
	"math"
	"strings"
	"testing"
	"unsafe"

	"github.com/gpuwise/gpuwise/internal/cluster"
	"github.com/gpuwise/gpuwise/internal/cost"
	"github.com/gpuwise/gpuwise/internal/pricing"
)

// hourlyTolerance is how far an hourly sum may stray from the cost
// engine's figure: float32 rounding of each hour (6e-8 relative) plus
// float64 summation order, documented in docs/architecture.md.
const hourlyTolerance = 1e-6

// TestHourlySeriesMatchTheCostEngine checks the invariant every consumer
// of the hourly series relies on: per workload, Σ hourly held GPU-hours is
// the cost engine's allocated GPU-hours, and measured, active and idle
// GPU-hours agree too.
func TestHourlySeriesMatchTheCostEngine(t *testing.T) {
	t.Parallel()
	for _, cfg := range []Config{DefaultConfig(), {Seed: 7, Scale: 2}} {
		s, err := Generate(cfg)
		if err != nil {
			t.Fatal(err)
		}
		want := costByWorkload(t, s)
		if got := len(s.Hourly.Workloads); got != len(want) {
			t.Errorf("seed %d: %d workloads have hourly series, %d hold GPUs", cfg.Seed, got, len(want))
		}
		for i := range s.Hourly.Workloads {
			w := &s.Hourly.Workloads[i]
			h := want[w.Workload]
			for _, c := range []struct {
				what      string
				got, want float64
			}{
				{"held", w.GPUHeld.Sum(), h.Allocated},
				{"measured", w.GPUMeasured.Sum(), h.Allocated - h.Unmeasured},
				{"active", w.GPUActive.Sum(), h.Active},
				{"idle", w.GPUIdle.Sum(), h.Idle},
			} {
				if math.Abs(c.got-c.want) > hourlyTolerance*math.Max(c.want, 1) {
					t.Errorf("seed %d %s: Σ hourly %s GPU-hours = %.9g, cost engine %.9g", cfg.Seed, w.Workload, c.what, c.got, c.want)
				}
			}
		}
	}
}

func costByWorkload(t *testing.T, s *cluster.Snapshot) map[string]cost.Hours {
	t.Helper()
	p, err := cluster.Prepare(s)
	if err != nil {
		t.Fatal(err)
	}
	a, err := cost.Allocate(p, pricing.Embedded(), cost.DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]cost.Hours{}
	for _, l := range a.Lines {
		if l.Pod == nil || len(l.Pod.GPUs) == 0 {
			continue
		}
		h := out[l.Pod.WorkloadKey()]
		h.Allocated += l.GPUHours.Allocated
		h.Unmeasured += l.GPUHours.Unmeasured
		h.Active += l.GPUHours.Active
		h.Idle += l.GPUHours.Idle
		out[l.Pod.WorkloadKey()] = h
	}
	return out
}

// mean is the mean of a series over its hours with data, NaN when none.
func mean(s cluster.Series) float64 {
	var sum float64
	var n int
	for _, v := range s {
		if v == v {
			sum += float64(v)
			n++
		}
	}
	return sum / float64(n)
}

// TestIdleCausesAreBuiltIn checks the signals behind each idle cause are
// where the simulator puts them, in every cell: the CPU-starved job at its
// limit and throttled, the input-bound one with PCIe busy, the
// memory-pressured one at its limit with OOM kills, notebooks quiet on
// every signal, and no PCIe series on shared GPUs.
func TestIdleCausesAreBuiltIn(t *testing.T) {
	t.Parallel()
	s, err := Generate(Config{Seed: 1, Scale: 2})
	if err != nil {
		t.Fatal(err)
	}
	for _, pfx := range []string{"", "c1-"} {
		h := func(key string) *cluster.WorkloadHours {
			w := s.Hourly.Find(withPrefix(key, pfx))
			if w == nil {
				t.Fatalf("no hourly series for %s", withPrefix(key, pfx))
			}
			return w
		}
		risk := h("batch/CronJob/risk-score")
		if thr, lim := mean(risk.CPUThrottled), mean(risk.CPUOfLimit); thr < 0.35 || lim < 0.95 {
			t.Errorf("%srisk-score: throttled %.2f, CPU of limit %.2f; want ≥ 0.35 and ≥ 0.95", pfx, thr, lim)
		}
		if pcie := mean(h("batch/CronJob/feature-backfill").PCIeRx); pcie < 15e9 {
			t.Errorf("%sfeature-backfill: PCIe rx %.3g B/s, want ≥ 15 GB/s", pfx, pcie)
		}
		ocr := h("batch/CronJob/ocr-batch")
		if kills, mem := ocr.OOMKills.Sum(), mean(ocr.MemoryOfLimit); kills < 20 || mem < 0.9 {
			t.Errorf("%socr-batch: %g OOM kills, memory peak %.2f of limit; want ≥ 20 and ≥ 0.9", pfx, kills, mem)
		}
		nb := h("notebooks/StatefulSet/cv-experiments")
		if nb.CPUThrottled != nil || mean(nb.MemoryOfLimit) > 0.5 || nb.OOMKills.Sum() != 0 || mean(nb.PCIeRx) > 0.2e9 {
			t.Errorf("%scv-experiments is not quiet: %+v", pfx, nb)
		}
		for _, shared := range []string{"inference/Deployment/spam-filter", "dev/Deployment/devbox-" + users[0]} {
			if w := s.Hourly.Find(withPrefix(shared, pfx)); w != nil && w.PCIeRx != nil {
				t.Errorf("%s on a shared GPU has a PCIe series", w.Workload)
			}
		}
	}
}

// withPrefix puts a cell prefix before a workload key's name.
func withPrefix(key, pfx string) string {
	i := strings.LastIndexByte(key, '/')
	return key[:i+1] + pfx + key[i+1:]
}

// TestInterruptionsInTheDemo: the reclaimed spot node, the job lost with
// it and the evicted job are each counted once.
func TestInterruptionsInTheDemo(t *testing.T) {
	t.Parallel()
	s := demoSnapshot(t)
	var nodes, lost, evicted int
	for _, it := range cluster.Interruptions(s) {
		switch {
		case it.Kind == "node" && it.Reason == cluster.NodeSpotInterrupted && it.Name == "train-h100-3":
			nodes++
		case it.Kind == "pod" && strings.HasPrefix(it.Reason, "lost with node train-h100-3"):
			lost++
		case it.Kind == "pod" && it.Reason == "Evicted" && strings.Contains(it.Workload, "spot-b-3"):
			evicted++
		default:
			t.Errorf("unexpected interruption %+v", it)
		}
	}
	if nodes != 1 || lost != 1 || evicted != 1 {
		t.Errorf("interruptions: %d spot nodes, %d pods lost with them, %d evicted; want 1 each", nodes, lost, evicted)
	}
}

// TestCheckpointHints: training jobs carry the hint, nothing else does.
func TestCheckpointHints(t *testing.T) {
	t.Parallel()
	s := demoSnapshot(t)
	for i := range s.Pods {
		p := &s.Pods[i]
		var want int64
		switch p.Owner.Kind {
		case "Job":
			if p.Namespace == "ml-training" {
				want = 1800
			}
		case "PyTorchJob":
			want = 3600
		}
		if p.CheckpointSeconds != want {
			t.Errorf("%s (%s): checkpoint interval %ds, want %ds", p.Key(), p.Owner.Kind, p.CheckpointSeconds, want)
		}
	}
}

// TestDiurnalTroughNeedsOneReplica: asr-whisper's four replicas serve a
// day whose quietest hour one replica at 65% of its peak rate could carry
// and whose busiest hour needs all four.
func TestDiurnalTroughNeedsOneReplica(t *testing.T) {
	t.Parallel()
	w := demoSnapshot(t).Hourly.Find("inference/Deployment/asr-whisper")
	if w == nil || w.Server != cluster.ServerTriton || w.Requests == nil || w.QueueDepth == nil {
		t.Fatalf("asr-whisper lacks Triton series: %+v", w)
	}
	perReplica := 12.0 * 3600 * 0.65 // requests an hour at 65% of full activity
	lo, hi := math.Inf(1), 0.0
	for _, r := range w.Requests {
		lo, hi = math.Min(lo, float64(r)), math.Max(hi, float64(r))
	}
	if need := math.Ceil(lo / perReplica); need != 1 {
		t.Errorf("quietest hour: %.0f requests need %.0f replicas, want 1", lo, need)
	}
	if need := math.Ceil(hi / perReplica); need != 4 {
		t.Errorf("busiest hour: %.0f requests need %.0f replicas, want 4", hi, need)
	}
}

// TestServingSeries: vLLM services count tokens, Triton ones do not, and
// workloads without a server have no serving series.
func TestServingSeries(t *testing.T) {
	t.Parallel()
	s := demoSnapshot(t)
	servers := map[string]string{}
	for i := range s.Hourly.Workloads {
		w := &s.Hourly.Workloads[i]
		servers[w.Workload] = w.Server
		tokens := w.GenerationTokens != nil && w.PromptTokens != nil
		switch w.Server {
		case cluster.ServerVLLM:
			if !tokens || w.Requests.Sum() <= 0 {
				t.Errorf("%s: vLLM without request or token counts", w.Workload)
			}
		case cluster.ServerTriton:
			if w.GenerationTokens != nil || w.Requests.Sum() <= 0 {
				t.Errorf("%s: Triton series wrong (tokens %v, requests %g)", w.Workload, w.GenerationTokens != nil, w.Requests.Sum())
			}
		default:
			if w.Requests != nil || w.QueueDepth != nil || tokens {
				t.Errorf("%s: serving series without a server", w.Workload)
			}
		}
	}
	for k, want := range map[string]string{"inference/Deployment/chat-llm": "vllm", "inference/Deployment/llm-7b-chat": "vllm",
		"inference/Deployment/embed-api": "triton", "inference/Deployment/fraud-scorer": "triton"} {
		if servers[k] != want {
			t.Errorf("%s: server %q, want %q", k, servers[k], want)
		}
	}
}

// hourlyBytes is the memory the hourly series hold: 4 B per value, the
// slice headers and the per-workload struct.
func hourlyBytes(h *cluster.Hourly) (bytes, workloadHours int) {
	for i := range h.Workloads {
		w := &h.Workloads[i]
		bytes += int(unsafe.Sizeof(*w))
		for _, s := range w.Series() {
			bytes += 4 * len(*s.Series)
		}
		workloadHours += w.Hours()
	}
	return bytes, workloadHours
}

// TestHourlyFootprint keeps the hourly series small: under 64 bytes per
// workload-hour (float32 values, sparse in time), the budget the 10k-GPU
// snapshot was sized with (docs/performance.md).
func TestHourlyFootprint(t *testing.T) {
	t.Parallel()
	s := demoSnapshot(t)
	b, wh := hourlyBytes(s.Hourly)
	per := float64(b) / float64(wh)
	t.Logf("hourly series: %d workloads, %d workload-hours, %d bytes (%.1f B per workload-hour)", len(s.Hourly.Workloads), wh, b, per)
	if per > 64 {
		t.Errorf("%.1f bytes per workload-hour, want ≤ 64", per)
	}
}

// TestLivesMatchTheSimulator: the pod and held series a source builds
// from the finished snapshot (cluster.HourlyBuilder.Lives, what the
// Prometheus adapter does) are the ones the simulator streamed.
func TestLivesMatchTheSimulator(t *testing.T) {
	t.Parallel()
	s := demoSnapshot(t)
	p, err := cluster.Prepare(s)
	if err != nil {
		t.Fatal(err)
	}
	b := cluster.NewHourlyBuilder(s.Window, cluster.DefaultIdleThreshold)
	b.Lives(s, p.Index())
	got := b.Build()
	if len(got) != len(s.Hourly.Workloads) {
		t.Fatalf("%d workloads from lives, %d simulated", len(got), len(s.Hourly.Workloads))
	}
	for i, g := range got {
		w := s.Hourly.Workloads[i]
		if g.Workload != w.Workload || g.From != w.From || g.Hours() != w.Hours() {
			t.Fatalf("%s from %d for %d h, simulated %s from %d for %d h", g.Workload, g.From, g.Hours(), w.Workload, w.From, w.Hours())
		}
		for h := range g.Pods {
			if g.Pods[h] != w.Pods[h] || math.Abs(float64(g.GPUHeld[h]-w.GPUHeld[h])) > 1e-6 {
				t.Errorf("%s hour %d: pods %g held %g from lives, simulated %g and %g", g.Workload, h, g.Pods[h], g.GPUHeld[h], w.Pods[h], w.GPUHeld[h])
			}
		}
	}
}
