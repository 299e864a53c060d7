package ledger

import (
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/gpuwise/gpuwise/internal/cluster"
	"github.com/gpuwise/gpuwise/internal/cluster/clustertest"
	"github.com/gpuwise/gpuwise/internal/cost"
	"github.com/gpuwise/gpuwise/internal/ledger/lever"
)

func metric(t *testing.T, l *Ledger, name string) Metric {
	t.Helper()
	for _, m := range l.Metrics {
		if m.Name == name {
			return m
		}
	}
	t.Fatalf("no metric %s", name)
	return Metric{}
}

func flag(t *testing.T, l *Ledger, name string) RedFlag {
	t.Helper()
	for _, f := range l.RedFlags {
		if f.Name == name {
			return f
		}
	}
	t.Fatalf("no red flag %s", name)
	return RedFlag{}
}

// TestMissingDataIsNeverZero: without hourly series or request counters
// the metrics that need them say so and carry no value.
func TestMissingDataIsNeverZero(t *testing.T) {
	t.Parallel()
	l := build(t, fixture(t), DefaultOptions())
	for name, why := range map[string]string{
		"gpus_below_30pct_6h":    "needs hourly series",
		"cost_per_1k_inferences": "no request counters found",
		"cost_per_100k_tokens":   "no request counters found",
	} {
		m := metric(t, l, name)
		if m.Value != nil || m.Status != Unavailable || !strings.Contains(m.Detail, why) {
			t.Errorf("%s: value %v status %s detail %q; want null, unavailable, %q", name, m.Value, m.Status, m.Detail, why)
		}
	}
	if f := flag(t, l, "oom_kills_rising"); f.Status != Unavailable || !strings.Contains(f.Detail, "needs hourly series") {
		t.Errorf("oom_kills_rising: %+v", f)
	}
}

// TestUtilizationBands: the fixture's 4 A100 and 4 L4 pods at 90%, 2 H100
// pods at 5%, on 16 GPUs: 7.3 ÷ 18 provisioned = 40.6%, review (30–60%).
func TestUtilizationBands(t *testing.T) {
	t.Parallel()
	l := build(t, fixture(t), DefaultOptions())
	m := metric(t, l, "gpu_utilization")
	if m.Value == nil || math.Abs(*m.Value-100*7.3/18) > 1e-9 || m.Status != Review {
		t.Errorf("gpu_utilization %v %s, want 40.56%% review", m.Value, m.Status)
	}
}

// fakeHourly is hour-by-hour data for the metrics that need it.
type fakeHourly struct {
	gpus map[string][]float64
	oom  []int
}

func (f fakeHourly) GPUActivity() (map[string][]float64, bool) { return f.gpus, f.gpus != nil }
func (f fakeHourly) OOMKills() ([]int, bool)                   { return f.oom, f.oom != nil }

func series(hours int, v float64, low, from int) []float64 {
	out := make([]float64, hours)
	for i := range out {
		out[i] = v
		if i >= from && i < from+low {
			out[i] = 0.1
		}
	}
	return out
}

// TestHourlyMetricsLightUp: with hourly series the 6-hour rule lists the
// GPU with a 7-hour low stretch (not the one with two 5-hour ones) and
// OOM kills that triple in the second half are flagged.
func TestHourlyMetricsLightUp(t *testing.T) {
	t.Parallel()
	h := fakeHourly{
		gpus: map[string][]float64{
			"a1/gpu0": series(24, 0.9, 7, 3),
			"a1/gpu1": append(series(12, 0.9, 5, 0), series(12, 0.9, 5, 6)...),
			"l1/gpu0": series(24, 0.9, 0, 0),
		},
		oom: []int{0, 1, 0, 0, 1, 0, 2, 1, 1, 2},
	}
	l, err := Build(Input{Snapshot: fixture(t), Prices: testPrices(), Hourly: h}, DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	m := metric(t, l, "gpus_below_30pct_6h")
	if m.Value == nil || *m.Value != 1 || len(m.Items) != 1 || m.Items[0] != "a1/gpu0 (7 h)" || m.Status != Act {
		t.Errorf("gpus_below_30pct_6h: %v %v %s", m.Value, m.Items, m.Status)
	}
	if f := flag(t, l, "oom_kills_rising"); f.Status != Act || !strings.Contains(f.Detail, "2 OOM kill(s) in the first half of the window, 6 in the second") {
		t.Errorf("oom_kills_rising: %s %q", f.Status, f.Detail)
	}
}

type fakeCounters []InferenceCount

func (f fakeCounters) Inference() ([]InferenceCount, bool) { return f, len(f) > 0 }

// TestCostPerInference divides the counted workloads' window cost by
// their requests and tokens.
func TestCostPerInference(t *testing.T) {
	t.Parallel()
	s := fixture(t)
	c := fakeCounters{{Workload: "inference/Deployment/h-0", Requests: 500_000, Tokens: 80_000_000, Metric: "vllm:request_success_total"}}
	l, err := Build(Input{Snapshot: s, Prices: testPrices(), Counters: c}, DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	a, err := cost.Allocate(s, testPrices(), cost.DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	var spend float64
	for i := range a.Lines {
		if p := a.Lines[i].Pod; p != nil && p.Name == "h-0" {
			spend += a.Lines[i].Total()
		}
	}
	if spend <= 0 {
		t.Fatal("fixture pod h-0 has no cost")
	}
	for name, want := range map[string]float64{"cost_per_1k_inferences": spend / 500, "cost_per_100k_tokens": spend / 800} {
		m := metric(t, l, name)
		if m.Value == nil || math.Abs(*m.Value-want) > 0.005 || m.Status != Info {
			t.Errorf("%s = %v (%s), want %.2f", name, m.Value, m.Status, want)
		}
	}
}

// TestRedFlagsPriceWhatIsHeldHostage: an unused MIG instance is priced at
// its share of the GPU; a GPU node whose GPUs nobody held for the last day
// but that runs a web pod is priced at all its GPUs, and the action that
// removes it is named.
func TestRedFlagsPriceWhatIsHeldHostage(t *testing.T) {
	t.Parallel()
	s := fixture(t).View()
	mig := clustertest.Node("m1").Resources(32, 256).Instance(a100x4, cluster.OnDemand).
		MIG("A100-80GB", "3g.40gb", "3g.40gb").MIG("A100-80GB", "7g.80gb").MIG("A100-80GB", "7g.80gb").MIG("A100-80GB", "7g.80gb").Obj()
	used := clustertest.Pod("inference", "m-0").On("m1").Requests(1000, 4).Obj()
	used.GPUs = []cluster.Holding{{UnitID: "m1/gpu0/3g.40gb-0"}}
	idle := node("idle", l4x2, 2, "L4", 8, 32)
	web := clustertest.Pod("web", "shop").On("idle").Requests(500, 1).Obj()
	old := clustertest.Pod("batch", "done").On("idle").Holds("idle/gpu0", 0.5, 3600).Life(clustertest.At(10), clustertest.At(20)).Obj()
	s.Nodes = append(s.Nodes, mig, idle)
	s.Pods = append(s.Pods, used, web, old)
	p := prepareTest(t, s)
	l := build(t, p, DefaultOptions())
	a, err := cost.Allocate(p, testPrices(), cost.DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	gpu := func(node string) float64 {
		if a.Prices[node].GPUUSDPerHour <= 0 {
			t.Fatalf("node %s has no GPU price", node)
		}
		return a.Prices[node].GPUUSDPerHour
	}
	f := flag(t, l, "unused_mig_instances")
	// the unused 3g.40gb (half a GPU) and the three 7g.80gb nobody held
	want := round2((0.5 + 3) * gpu("m1") * HoursPerMonth)
	if f.Status != Act || len(f.Targets) != 4 || f.AtStakeUSDMonth == nil || *f.AtStakeUSDMonth != want {
		t.Errorf("unused MIG: %s %v at stake %v, want act, 4 instances, %.2f", f.Status, f.Targets, f.AtStakeUSDMonth, want)
	}
	h := flag(t, l, "idle_gpu_nodes_kept_by_non_gpu_pods")
	want = round2(2 * gpu("idle") * HoursPerMonth)
	if h.Status != Act || len(h.Targets) != 1 || h.Targets[0] != "idle" || h.AtStakeUSDMonth == nil || *h.AtStakeUSDMonth != want || len(h.Actions) == 0 {
		t.Errorf("hostage: %s %v at stake %v actions %v, want act, [idle], %.2f, the removal", h.Status, h.Targets, h.AtStakeUSDMonth, h.Actions, want)
	}
	for _, a := range l.Actions {
		// Which lever takes node idle away (consolidation, a repack, or the
		// autoscaler scaling the pool down) depends on how ties between the
		// equal L4 nodes break (by name since issue 26.3); the flag must name one that does.
		if len(h.Actions) > 0 && a.ID == h.Actions[0] && a.Kind != lever.KindRemoveNodes && a.Kind != lever.KindRepack && a.Kind != lever.KindScaleNodes {
			t.Errorf("hostage flag names %s (%s), want the action that removes node idle", a.ID, a.Kind)
		}
	}
}

// TestNoUsageDataIsNotZeroUtilization is the regression test for the live
// tier's finding: with no activity series at all, active ÷ provisioned is
// 0 ÷ x, which is no data, not 0% (status act).
func TestNoUsageDataIsNotZeroUtilization(t *testing.T) {
	t.Parallel()
	s := fixture(t).View()
	for i := range s.Pods {
		for j := range s.Pods[i].GPUs {
			s.Pods[i].GPUs[j].Activity, s.Pods[i].GPUs[j].FramebufferMiB = nil, nil
		}
	}
	l := build(t, prepareTest(t, s), DefaultOptions())
	if m := metric(t, l, "gpu_utilization"); m.Value != nil || m.Status != Unavailable {
		t.Errorf("gpu_utilization without usage data: %v %s, want null, unavailable", m.Value, m.Status)
	}
	if l.Summary.Utilization != nil || !strings.Contains(l.Summary.Lines[0], "n/a (no usage data)") {
		t.Errorf("summary utilization %v, line %q", l.Summary.Utilization, l.Summary.Lines[0])
	}
}

// TestTokensOnlyOverServersThatCountThem (issue 27): h-0 (vLLM) counts
// requests and tokens, h-1 (Triton) requests only. Cost per 100,000 tokens
// divides h-0's cost alone by h-0's tokens and lists h-0 alone; cost per
// 1,000 inferences divides both by both; each item is its workload's own
// unit cost.
func TestTokensOnlyOverServersThatCountThem(t *testing.T) {
	t.Parallel()
	s := fixture(t)
	c := fakeCounters{
		{Workload: "inference/Deployment/h-0", Requests: 500_000, Tokens: 80_000_000, Metric: "vllm:request_success_total"},
		{Workload: "inference/Deployment/h-1", Requests: 100_000, Metric: "nv_inference_request_success"},
	}
	l, err := Build(Input{Snapshot: s, Prices: testPrices(), Counters: c}, DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	a, err := cost.Allocate(s, testPrices(), cost.DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	spend := map[string]float64{}
	for i := range a.Lines {
		if p := a.Lines[i].Pod; p != nil {
			spend[p.Name] += a.Lines[i].Total()
		}
	}
	tok, per := metric(t, l, "cost_per_100k_tokens"), metric(t, l, "cost_per_1k_inferences")
	if tok.Value == nil || math.Abs(*tok.Value-spend["h-0"]/800) > 0.005 || len(tok.Items) != 1 || !strings.HasPrefix(tok.Items[0], "inference/Deployment/h-0") {
		t.Errorf("tokens: %v over %q; want h-0's $%.2f alone", tok.Value, tok.Items, spend["h-0"]/800)
	}
	if want := (spend["h-0"] + spend["h-1"]) / 600; per.Value == nil || math.Abs(*per.Value-want) > 0.005 || len(per.Items) != 2 {
		t.Errorf("inferences: %v over %q; want $%.2f over both", per.Value, per.Items, want)
	}
	if wantItem := fmt.Sprintf("$%.4f per 1,000", spend["h-1"]/100_000*1000); len(per.Items) == 2 && !strings.Contains(per.Items[1], wantItem) {
		t.Errorf("h-1's item %q: want its own %s", per.Items[1], wantItem)
	}
}

// TestUnitCostsPerModelName (issue 27): h-0 (vLLM) serves llama (300,000
// requests, 60 M tokens) and mistral (200,000, 20 M); h-1 (Triton, no
// tokens) serves llama (40,000) and resnet (60,000). Each model name's
// cost is, over the workloads serving it, the workload's cost × the
// model's share of its requests; its tokens figure counts only h-0, the
// server that counted its tokens. The cluster figures stay what they were.
func TestUnitCostsPerModelName(t *testing.T) {
	t.Parallel()
	s := fixture(t)
	h0, h1 := "inference/Deployment/h-0", "inference/Deployment/h-1"
	c := fakeCounters{
		{Workload: h0, Requests: 500_000, Tokens: 80_000_000, Metric: "vllm:request_success_total",
			Models: []ModelCount{{Model: "llama", Requests: 300_000, Tokens: 60_000_000}, {Model: "mistral", Requests: 200_000, Tokens: 20_000_000}}},
		{Workload: h1, Requests: 100_000, Metric: "nv_inference_request_success",
			Models: []ModelCount{{Model: "llama", Requests: 40_000}, {Model: "resnet", Requests: 60_000}}},
	}
	l, err := Build(Input{Snapshot: s, Prices: testPrices(), Counters: c}, DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	a, err := cost.Allocate(s, testPrices(), cost.DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	spend := map[string]float64{}
	for i := range a.Lines {
		if p := a.Lines[i].Pod; p != nil {
			spend[p.Name] += a.Lines[i].Total()
		}
	}
	s0, s1 := spend["h-0"], spend["h-1"]
	if s0 <= 0 || s1 <= 0 {
		t.Fatalf("fixture costs h-0 $%v h-1 $%v: want both", s0, s1)
	}
	type row struct {
		model, workload string
		cost, count     float64
		workloads       int
	}
	want := map[string][]row{
		"cost_per_1k_inferences": {
			{"", h0, s0, 500_000, 0}, {"", h1, s1, 100_000, 0},
			{"llama", "", 0.6*s0 + 0.4*s1, 340_000, 2}, {"mistral", "", 0.4 * s0, 200_000, 1}, {"resnet", "", 0.6 * s1, 60_000, 1},
		},
		"cost_per_100k_tokens": {
			{"", h0, s0, 80_000_000, 0},
			{"llama", "", 0.6 * s0, 60_000_000, 2}, {"mistral", "", 0.4 * s0, 20_000_000, 1},
		},
	}
	unit := map[string]float64{"cost_per_1k_inferences": 1000, "cost_per_100k_tokens": 100_000}
	cluster := map[string]float64{"cost_per_1k_inferences": (s0 + s1) / 600, "cost_per_100k_tokens": s0 / 800}
	for name, rows := range want {
		m := metric(t, l, name)
		if m.Value == nil || math.Abs(*m.Value-cluster[name]) > 0.005 {
			t.Errorf("%s = %v, want the cluster figure %.2f unchanged", name, m.Value, cluster[name])
		}
		if len(m.UnitCosts) != len(rows) || len(m.Items) != len(rows) {
			t.Fatalf("%s: %d unit costs, %d items (%q), want %d", name, len(m.UnitCosts), len(m.Items), m.Items, len(rows))
		}
		for i, w := range rows {
			g := m.UnitCosts[i]
			per := w.cost / w.count * unit[name]
			if g.Model != w.model || g.Workload != w.workload || len(g.Workloads) != w.workloads ||
				math.Abs(g.CostUSD-w.cost) > 1e-9*w.cost || g.Count != w.count || math.Abs(g.PerUnit-per) > 1e-9*per {
				t.Errorf("%s row %d: %+v, want %s%s $%.6f over %.0f = %.6f", name, i, g, w.model, w.workload, w.cost, w.count, per)
			}
			if !strings.Contains(m.Items[i], fmt.Sprintf("$%.4f", per)) {
				t.Errorf("%s item %d %q: want $%.4f", name, i, m.Items[i], per)
			}
		}
	}
	if got := metric(t, l, "cost_per_1k_inferences").UnitCosts[2].Metric; got != "several servers" {
		t.Errorf("llama served by vLLM and Triton: metric %q, want several servers", got)
	}
}
