package rightsize

import (
	"testing"

	"github.com/gpuwise/gpuwise/internal/cluster"
	"github.com/gpuwise/gpuwise/internal/cluster/clustertest"
	"github.com/gpuwise/gpuwise/internal/pricing"
	"github.com/gpuwise/gpuwise/internal/usage"
)

const weekHours = 168

// testCatalog is a realistic slice of AWS us-east-1 on-demand prices
// (the embedded catalog's rows, as of 2026-01-21) in a region without
// T4s, so that each test below has one clear best shape.
func testCatalog() *pricing.Catalog {
	row := func(it, model string, gpus float64, vcpu int, mem, usd float64) pricing.Entry {
		return pricing.Entry{Cloud: "aws", Region: "us-east-1", InstanceType: it, GPUModel: model, GPUCount: gpus,
			VCPUs: vcpu, MemoryGiB: mem, OnDemandUSDPerHour: usd, OnDemandAsOf: "2026-01-21", Source: "test"}
	}
	return pricing.NewCatalog([]pricing.Entry{
		row("p4de.24xlarge", "A100-80GB", 8, 96, 1152, 27.44705),
		row("p5.48xlarge", "H100-80GB", 8, 192, 2048, 55.04),
		row("g6.xlarge", "L4", 1, 4, 16, 0.8048),
		row("g6.2xlarge", "L4", 1, 8, 32, 0.9776),
		row("g5.xlarge", "A10G", 1, 4, 16, 1.006),
	})
}

// a100Node is a p4de.24xlarge with 8 whole A100-80GB.
func a100Node(name string) cluster.Node {
	return clustertest.Node(name).Resources(96, 1152).Instance("p4de.24xlarge", cluster.OnDemand).GPUs(8, "A100-80GB").Obj()
}

// gpuPod runs for the whole week holding the units at a constant activity
// and framebuffer use, with measured CPU (cores) and memory (GiB).
func gpuPod(ns, name, node string, activity, fbMiB float64, units ...string) cluster.Pod {
	b := clustertest.Pod(ns, name).On(node).Requests(2000, 8)
	for _, u := range units {
		b = b.Holds(u, activity, weekHours*3600)
	}
	p := b.Obj()
	for i := range p.GPUs {
		if fbMiB >= 0 {
			p.GPUs[i].FramebufferMiB = gauge(fbMiB)
		}
	}
	p.Containers[0].CPU = gauge(0.5)
	p.Containers[0].Memory = gauge(3 << 30)
	return p
}

func gauge(v float64) *usage.Gauge {
	g := &usage.Gauge{}
	g.Add(v, weekHours*3600)
	return g
}

// snapshot prepares a week-long snapshot of nodes and pods.
func snapshot(t *testing.T, nodes []cluster.Node, pods ...cluster.Pod) *cluster.Prepared {
	t.Helper()
	return clustertest.Prepare(t, &cluster.Snapshot{Window: clustertest.Window(weekHours), Nodes: nodes, Pods: pods})
}

func recommend(t *testing.T, s *cluster.Prepared, prices Prices) *Result {
	t.Helper()
	r, err := Recommend(s, DefaultPolicy(), prices)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func gpuRec(t *testing.T, r *Result, workload string) GPURec {
	t.Helper()
	for _, g := range r.GPU {
		if g.Workload == workload {
			return g
		}
	}
	t.Fatalf("no GPU recommendation for %s; skipped: %+v", workload, r.Skipped)
	return GPURec{}
}

// cluster96 is how the fixture's p4de node is priced.
func cluster96(e pricing.Entry) pricing.NodeSpec { return pricing.OfferSpec(e, pricing.OnDemand) }
