package render

import (
	"bytes"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gpuwise/gpuwise/internal/cluster"
	"github.com/gpuwise/gpuwise/internal/cluster/clustertest"
	"github.com/gpuwise/gpuwise/internal/ledger"
	"github.com/gpuwise/gpuwise/internal/pricing"
	"github.com/gpuwise/gpuwise/internal/usage"
)

// sampleLedger is the ledger of a small week: two A100 nodes that
// consolidate into one, two H100 inference pods that share one GPU once
// cut to MIG slices (two prerequisites and their re-pack), a notebook
// bare pod the planner will not move, an on-prem node without a price and
// a node that left mid-window (the bridge's departed line).
func sampleLedger(t *testing.T) *ledger.Ledger {
	t.Helper()
	prices := pricing.NewCatalog([]pricing.Entry{
		{Cloud: "aws", Region: "us-east-1", InstanceType: "test.a100x4", GPUModel: "A100-80GB", GPUCount: 4, VCPUs: 32, MemoryGiB: 256, OnDemandUSDPerHour: 10, Source: "test"},
		{Cloud: "aws", Region: "us-east-1", InstanceType: "test.h100x1", GPUModel: "H100-80GB", GPUCount: 1, VCPUs: 8, MemoryGiB: 64, OnDemandUSDPerHour: 4, Source: "test"},
	})
	n := func(name, it string, gpus int, model string) cluster.Node {
		return clustertest.Node(name).Resources(32, 256).Instance(it, cluster.OnDemand).GPUs(gpus, model).Obj()
	}
	gone := n("a3", "test.a100x4", 4, "A100-80GB")
	gone.Deleted = clustertest.At(84)
	onprem := n("dgx", "dgx-a100", 1, "A100-80GB")
	onprem.Cloud = ""
	s := &cluster.Snapshot{Window: clustertest.Window(fixtureHours), Source: "render fixture",
		Nodes: []cluster.Node{n("a1", "test.a100x4", 4, "A100-80GB"), n("a2", "test.a100x4", 4, "A100-80GB"), gone, onprem,
			n("h1", "test.h100x1", 1, "H100-80GB"), n("h2", "test.h100x1", 1, "H100-80GB")}}
	week := float64(fixtureHours * 3600)
	add := func(ns, name, node string, gpu int, act, fbMiB float64) *cluster.Pod {
		p := clustertest.Pod(ns, name).On(node).Requests(2000, 8).Holds(fmt.Sprintf("%s/gpu%d", node, gpu), act, week).Obj()
		p.GPUs[0].FramebufferMiB = &usage.Gauge{}
		p.GPUs[0].FramebufferMiB.Add(fbMiB, week)
		s.Pods = append(s.Pods, p)
		return &s.Pods[len(s.Pods)-1]
	}
	add("train", "a-0", "a1", 0, 0.9, 70000)
	add("train", "a-1", "a2", 0, 0.9, 70000)
	add("inference", "h-0", "h1", 0, 0.05, 5000)
	add("inference", "h-1", "h2", 0, 0.05, 5000)
	nb := add("notebooks", "jupyter-ann", "dgx", 0, 0.01, 3000)
	nb.Owner = cluster.Owner{Kind: "Pod", Name: "jupyter-ann"}
	prep, err := cluster.Prepare(s)
	if err != nil {
		t.Fatal(err)
	}
	l, err := ledger.Build(ledger.Input{Snapshot: prep, Prices: prices}, ledger.DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	return l
}

func TestLedgerGolden(t *testing.T) {
	t.Parallel()
	l := sampleLedger(t)
	for _, c := range []struct {
		file   string
		format Format
	}{
		{"ledger.txt", Table}, {"ledger.json", JSON}, {"ledger.yaml", YAML}, {"ledger.csv", CSV}, {"ledger.md", Markdown}, {"ledger.html", HTML},
	} {
		var got bytes.Buffer
		if err := Ledger(&got, l, c.format, Options{}); err != nil {
			t.Fatalf("%s: %v", c.format, err)
		}
		checkGolden(t, filepath.Join("testdata", c.file), got.Bytes())
	}
}

// TestLedgerHTMLIsSelfContained: the page a manager opens loads nothing
// and runs nothing.
func TestLedgerHTMLIsSelfContained(t *testing.T) {
	t.Parallel()
	var b bytes.Buffer
	if err := Ledger(&b, sampleLedger(t), HTML, Options{}); err != nil {
		t.Fatal(err)
	}
	page := b.String()
	for _, bad := range []string{"<script", "http://", "https://", "<link", "@import", "src="} {
		if strings.Contains(page, bad) {
			t.Errorf("page contains %q", bad)
		}
	}
	for _, want := range []string{"Recoverable", "Before → after", `class="bar-after"`, "Days 0-30"} {
		if !strings.Contains(page, want) {
			t.Errorf("page lacks %q", want)
		}
	}
}

func TestLedgerFormatErrors(t *testing.T) {
	t.Parallel()
	if err := Ledger(&bytes.Buffer{}, sampleLedger(t), SARIF, Options{}); err == nil || !strings.Contains(err.Error(), "table, wide, json, yaml, csv, markdown, html") {
		t.Errorf("sarif: %v, want the list of formats", err)
	}
	if err := Ledger(&bytes.Buffer{}, nil, JSON, Options{}); err == nil {
		t.Error("nil ledger rendered")
	}
}

// TestUnitCostsInEveryTableFormat (issue 27): the unit-cost figures per
// serving workload and per model name are in the table, wide, markdown
// and HTML output of advise, and in CSV as their own table (UnitCostsCSV),
// not only in JSON and YAML.
func TestUnitCostsInEveryTableFormat(t *testing.T) {
	t.Parallel()
	l := sampleLedger(t)
	l.Metrics = append(l.Metrics, ledger.Metric{Name: "cost_per_1k_inferences", Title: "Cost per 1,000 inferences", Unit: "USD", Status: ledger.Info,
		UnitCosts: []ledger.UnitCost{
			{Workload: "inference/Deployment/chat", Metric: "vllm:request_success_total", CostUSD: 900, Count: 450000, PerUnit: 2},
			{Model: "meta-llama/Llama-3.1-8B", Workloads: []string{"inference/Deployment/chat"}, Metric: "vllm:request_success_total", CostUSD: 600, Count: 200000, PerUnit: 3},
		}})
	for _, f := range []Format{Table, Wide, Markdown, HTML} {
		var b bytes.Buffer
		if err := Ledger(&b, l, f, Options{}); err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(strings.ToLower(b.String()), "unit costs per serving workload and model name") {
			t.Errorf("%s output has no unit-costs section", f)
		}
		for _, want := range []string{"inference/Deployment/chat", "model meta-llama/Llama-3.1-8B (1 workload(s))", "$3.0000", "$2.0000", "200,000"} {
			if !strings.Contains(b.String(), want) {
				t.Errorf("%s output lacks %q", f, want)
			}
		}
	}
	var b bytes.Buffer
	if err := UnitCostsCSV(&b, []ClusterLedger{{Cluster: "east", Ledger: l}}); err != nil {
		t.Fatal(err)
	}
	want := "cluster,metric,workload,model,workloads,server_metric,cost_usd,count,per_unit_usd,partial\n" +
		"east,cost_per_1k_inferences,inference/Deployment/chat,,,vllm:request_success_total,900,450000,2,false\n" +
		"east,cost_per_1k_inferences,,meta-llama/Llama-3.1-8B,inference/Deployment/chat,vllm:request_success_total,600,200000,3,false\n"
	if b.String() != want {
		t.Errorf("unit-costs CSV:\n%s\nwant:\n%s", b.String(), want)
	}
}
