package ledger

import (
	"math"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/gpuwise/gpuwise/internal/cluster"
	"github.com/gpuwise/gpuwise/internal/cost"
)

// flat is a series of n hours of v.
func flat(n int, v float32) cluster.Series {
	s := make(cluster.Series, n)
	for i := range s {
		s[i] = v
	}
	return s
}

// held is a workload's series from hour from to the window's end: one pod
// holding one whole GPU, measured throughout.
func held(key string, from int) cluster.WorkloadHours {
	n := weekHours - from
	return cluster.WorkloadHours{Workload: key, From: from, Pods: flat(n, 1), GPUHeld: flat(n, 1), GPUMeasured: flat(n, 1)}
}

// withHourly is the fixture with hourly series: h-0 serves vLLM (1,000
// requests and 50,000 generated tokens an hour) and is OOM-killed once in
// each of the window's last 10 hours; h-1 serves Triton (500 requests an
// hour, no tokens; one hour without data); train/a-0's series start at
// hour 100 with an OOM kill at hour 110 and one at the last hour.
func withHourly(t *testing.T) (*cluster.Prepared, map[string]string) {
	t.Helper()
	s := fixture(t).View()
	keys := map[string]string{}
	for i := range s.Pods {
		keys[s.Pods[i].Name] = s.Pods[i].WorkloadKey()
	}
	a0, h0, h1 := held(keys["a-0"], 100), held(keys["h-0"], 0), held(keys["h-1"], 0)
	a0.OOMKills = flat(weekHours-100, 0)
	a0.OOMKills[10], a0.OOMKills[len(a0.OOMKills)-1] = 1, 1
	h0.Server, h0.Requests, h0.GenerationTokens = cluster.ServerVLLM, flat(weekHours, 1000), flat(weekHours, 50000)
	h0.OOMKills = flat(weekHours, 0)
	for i := weekHours - 10; i < weekHours; i++ {
		h0.OOMKills[i] = 1
	}
	h1.Server, h1.Requests = cluster.ServerTriton, flat(weekHours, 500)
	h1.Requests[3] = float32(math.NaN())
	h1.Models = []cluster.ModelHours{{Model: "resnet", Requests: flat(weekHours, 300)}, {Model: "yolo", Requests: flat(weekHours, 200)}}
	h1.Models[0].Requests[3] = float32(math.NaN())
	ws := []cluster.WorkloadHours{h0, h1, a0}
	if !(h0.Workload < h1.Workload && h1.Workload < a0.Workload) {
		t.Fatalf("workload keys out of order: %s %s %s", a0.Workload, h0.Workload, h1.Workload)
	}
	s.Hourly = &cluster.Hourly{IdleThreshold: cluster.DefaultIdleThreshold, Workloads: ws}
	for i := range s.Pods {
		switch s.Pods[i].Name {
		case "a-0":
			s.Pods[i].OOMKills = 3 // one kill the hourly series do not place
		case "h-0":
			s.Pods[i].OOMKills = 10
		}
	}
	return prepareTest(t, s), keys
}

// TestSnapshotSignals: the OOM kills are summed per window hour (series
// offset by From), the request counters read per workload with their
// servers' metric names, NaN hours skipped.
func TestSnapshotSignals(t *testing.T) {
	t.Parallel()
	p, keys := withHourly(t)
	in := withSnapshotSignals(Input{Snapshot: p})
	kills, ok := in.Hourly.OOMKills()
	if !ok || len(kills) != weekHours {
		t.Fatalf("OOMKills: %d hours, %v; want %d, true", len(kills), ok, weekHours)
	}
	want := make([]int, weekHours)
	want[110] = 1
	for i := weekHours - 10; i < weekHours; i++ {
		want[i] = 1
	}
	want[weekHours-1] = 2
	if diff := cmp.Diff(want, kills); diff != "" {
		t.Errorf("OOMKills (-want +got):\n%s", diff)
	}
	counts, ok := in.Counters.Inference()
	wantCounts := []InferenceCount{
		{Workload: keys["h-0"], Requests: 168_000, Tokens: 8_400_000, Metric: "vllm:request_success_total"},
		{Workload: keys["h-1"], Requests: 167 * 500, Metric: "nv_inference_request_success",
			Models: []ModelCount{{Model: "resnet", Requests: 167 * 300}, {Model: "yolo", Requests: 168 * 200}}},
	}
	if diff := cmp.Diff(wantCounts, counts); !ok || diff != "" {
		t.Errorf("Inference (%v) (-want +got):\n%s", ok, diff)
	}
	if g, ok := in.Hourly.GPUActivity(); ok || g != nil {
		t.Errorf("GPUActivity from per-workload series: %v, %v; want none", g, ok)
	}
}

// TestSnapshotSignalsLightUpTheLedger: a snapshot with hourly series gives
// cost per inference and per token, and the OOM flag (kills rising, the
// kill the series do not place named); the per-GPU rule says what it
// lacks instead of claiming there are no hourly series.
func TestSnapshotSignalsLightUpTheLedger(t *testing.T) {
	t.Parallel()
	p, keys := withHourly(t)
	l := build(t, p, DefaultOptions())
	a, err := cost.Allocate(p, testPrices(), cost.DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	spend := map[string]float64{}
	for i := range a.Lines {
		if pod := a.Lines[i].Pod; pod != nil {
			spend[pod.WorkloadKey()] += a.Lines[i].Total()
		}
	}
	h0, h1 := spend[keys["h-0"]], spend[keys["h-1"]]
	for name, want := range map[string]float64{
		"cost_per_1k_inferences": (h0 + h1) / (168_000 + 83_500) * 1000,
		"cost_per_100k_tokens":   h0 / 8_400_000 * 100_000,
	} {
		m := metric(t, l, name)
		if m.Value == nil || math.Abs(*m.Value-want) > 0.005 || m.Status != Info {
			t.Errorf("%s = %v (%s), want %.2f", name, m.Value, m.Status, want)
		}
	}
	f := flag(t, l, "oom_kills_rising")
	if f.Status != Act || !strings.Contains(f.Detail, "0 OOM kill(s) in the first half of the window, 12 in the second") ||
		!strings.Contains(f.Detail, "12 of the window's 13 OOM kill(s) across 2 pod(s)") {
		t.Errorf("oom_kills_rising: %s %q", f.Status, f.Detail)
	}
	if m := metric(t, l, "gpus_below_30pct_6h"); m.Value != nil || m.Status != Unavailable || m.Detail != needsGPUHourly {
		t.Errorf("gpus_below_30pct_6h: %v %s %q; want unavailable, %q", m.Value, m.Status, m.Detail, needsGPUHourly)
	}
}

// needsGPUHourly is why the 6-hour rule per GPU is unavailable from a
// snapshot's series (finops).
const needsGPUHourly = "needs hour-by-hour activity per physical GPU: the hourly series at hand are per GPU workload"

// TestCallerSignalsWin: Hourly and Counters the caller gives are used
// over the snapshot's series.
func TestCallerSignalsWin(t *testing.T) {
	t.Parallel()
	p, _ := withHourly(t)
	h, c := fakeHourly{oom: []int{1}}, fakeCounters{{Workload: "x", Requests: 1}}
	in := withSnapshotSignals(Input{Snapshot: p, Hourly: h, Counters: c})
	if got, ok := in.Hourly.(fakeHourly); !ok || got.oom[0] != 1 {
		t.Errorf("Hourly replaced: %#v", in.Hourly)
	}
	if got, ok := in.Counters.(fakeCounters); !ok || got[0].Workload != "x" {
		t.Errorf("Counters replaced: %#v", in.Counters)
	}
}

// TestSeriesWithoutSignals: hourly series without OOM or request series
// leave those metrics unavailable, never zero.
func TestSeriesWithoutSignals(t *testing.T) {
	t.Parallel()
	s := fixture(t).View()
	s.Hourly = &cluster.Hourly{IdleThreshold: cluster.DefaultIdleThreshold, Workloads: []cluster.WorkloadHours{held(s.Pods[0].WorkloadKey(), 0)}}
	l := build(t, prepareTest(t, s), DefaultOptions())
	for _, name := range []string{"cost_per_1k_inferences", "cost_per_100k_tokens"} {
		if m := metric(t, l, name); m.Value != nil || m.Status != Unavailable || !strings.Contains(m.Detail, "no request counters found") {
			t.Errorf("%s: %v %s %q", name, m.Value, m.Status, m.Detail)
		}
	}
	if f := flag(t, l, "oom_kills_rising"); f.Status != Unavailable {
		t.Errorf("oom_kills_rising: %s %q", f.Status, f.Detail)
	}
}
