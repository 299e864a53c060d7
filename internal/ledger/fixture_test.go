package ledger

import (
	"fmt"
	"testing"

	"github.com/gpuwise/gpuwise/internal/cluster"
	"github.com/gpuwise/gpuwise/internal/cluster/clustertest"
	"github.com/gpuwise/gpuwise/internal/pricing"
	"github.com/gpuwise/gpuwise/internal/usage"
)

const weekHours = 168

// Fixture instance types and their hourly prices: round numbers so that
// every saving below is known by construction (× 730 h).
const (
	a100x4 = "test.a100x4" // 4 × A100-80GB, $10/h = $7,300/month
	h100x1 = "test.h100x1" // 1 × H100-80GB, $4/h = $2,920/month
	l4x2   = "test.l4x2"   // 2 × L4, $2/h = $1,460/month
)

// testPrices is a catalog of the fixture's instance types in one region.
func testPrices() *pricing.Catalog { return pricing.NewCatalog(testEntries()) }

// testEntries are testPrices' rows.
func testEntries() []pricing.Entry {
	row := func(it, model string, gpus float64, vcpu int, mem, usd float64) pricing.Entry {
		return pricing.Entry{Cloud: "aws", Region: "us-east-1", InstanceType: it, GPUModel: model, GPUCount: gpus,
			VCPUs: vcpu, MemoryGiB: mem, OnDemandUSDPerHour: usd, OnDemandAsOf: "2026-01-21", Source: "test"}
	}
	return []pricing.Entry{
		row(a100x4, "A100-80GB", 4, 32, 256, 10),
		row(h100x1, "H100-80GB", 1, 8, 64, 4),
		row(l4x2, "L4", 2, 8, 32, 2),
	}
}

func node(name, instance string, gpus int, model string, cores, gib int64) cluster.Node {
	return clustertest.Node(name).Resources(cores, gib).Instance(instance, cluster.OnDemand).GPUs(gpus, model).Obj()
}

// pod runs the whole window on node holding one whole GPU (unit index gpu)
// at a constant activity; fbMiB < 0 leaves framebuffer unmeasured,
// cpuUse < 0 leaves CPU and memory unmeasured.
func pod(ns, name, nodeName string, gpu int, activity, fbMiB float64, cpuMilli, memGiB int64, cpuUse, memUseGiB float64) cluster.Pod {
	p := clustertest.Pod(ns, name).On(nodeName).Requests(cpuMilli, memGiB).
		Holds(fmt.Sprintf("%s/gpu%d", nodeName, gpu), activity, weekHours*3600).Obj()
	if fbMiB >= 0 {
		p.GPUs[0].FramebufferMiB = gauge(fbMiB)
	}
	if cpuUse >= 0 {
		p.Containers[0].CPU, p.Containers[0].Memory = gauge(cpuUse), gauge(memUseGiB*(1<<30))
	}
	return p
}

func gauge(v float64) *usage.Gauge {
	g := &usage.Gauge{}
	g.Add(v, weekHours*3600)
	return g
}

// fixture is the hand-computed cluster (docs/savings.md walks through it):
//
//   - pool A, 2 × test.a100x4 ($7,300/month each): 2 busy training pods on
//     each, one whole GPU apiece. Consolidation alone fits all 4 on one
//     node: saves $7,300.00.
//   - pool L, 4 × test.l4x2 ($1,460 each, 8 cores): three pods requesting
//     6 cores and one requesting 1 core, each on its own node, all using
//     0.5 core. Consolidation alone pairs the 1-core pod with a 6-core one
//     (3 nodes, saves $1,460.00); right-sized to 0.5 core, the four pods
//     fit on two nodes: right-sizing realises $1,460.00 more.
//   - pool H, 2 × test.h100x1 ($2,920 each): two inference pods each on a
//     whole H100 at 5% activity and 5 GiB of framebuffer. Nothing moves as
//     they are; as MIG 1g.10gb slices both fit on one GPU: the shape
//     changes realise $2,920.00.
//
// Before $26,280.00, after $13,140.00. The overlap that naive addition
// double counts: consolidation alone, right-sizing with consolidation and
// shapes with consolidation each remove the A and first L node, so adding
// their stand-alone savings ($8,760 + $10,220 + $11,680) claims $30,660.
func fixture(t *testing.T) *cluster.Prepared {
	t.Helper()
	nodes := []cluster.Node{
		node("a1", a100x4, 4, "A100-80GB", 32, 256), node("a2", a100x4, 4, "A100-80GB", 32, 256),
		node("l1", l4x2, 2, "L4", 8, 32), node("l2", l4x2, 2, "L4", 8, 32), node("l3", l4x2, 2, "L4", 8, 32), node("l4", l4x2, 2, "L4", 8, 32),
		node("h1", h100x1, 1, "H100-80GB", 8, 64), node("h2", h100x1, 1, "H100-80GB", 8, 64),
	}
	pods := []cluster.Pod{
		pod("train", "a-0", "a1", 0, 0.9, -1, 4000, 16, -1, 0), pod("train", "a-1", "a1", 1, 0.9, -1, 4000, 16, -1, 0),
		pod("train", "a-2", "a2", 0, 0.9, -1, 4000, 16, -1, 0), pod("train", "a-3", "a2", 1, 0.9, -1, 4000, 16, -1, 0),
		pod("batch", "l-0", "l1", 0, 0.9, -1, 6000, 4, 0.5, 2), pod("batch", "l-1", "l2", 0, 0.9, -1, 6000, 4, 0.5, 2),
		pod("batch", "l-2", "l3", 0, 0.9, -1, 6000, 4, 0.5, 2), pod("batch", "l-3", "l4", 0, 0.9, -1, 1000, 4, 0.5, 2),
		pod("inference", "h-0", "h1", 0, 0.05, 5120, 1000, 8, -1, 0), pod("inference", "h-1", "h2", 0, 0.05, 5120, 1000, 8, -1, 0),
	}
	return prepareTest(t, &cluster.Snapshot{Window: clustertest.Window(weekHours), Source: "fixture", Nodes: nodes, Pods: pods})
}

// prepareTest checks a test snapshot.
func prepareTest(t *testing.T, s *cluster.Snapshot) *cluster.Prepared {
	t.Helper()
	p, err := cluster.Prepare(s)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func build(t *testing.T, s *cluster.Prepared, o Options) *Ledger {
	t.Helper()
	l, err := Build(Input{Snapshot: s, Prices: testPrices()}, o)
	if err != nil {
		t.Fatal(err)
	}
	return l
}

func options(levers ...string) Options {
	o := DefaultOptions()
	o.Levers = levers
	return o
}

// upToConsolidation are the levers the worked example (docs/savings.md)
// walks through; the capacity levers after consolidation have fixtures of
// their own (autoscale_test.go, spot_test.go, commit_test.go).
func upToConsolidation() Options {
	return options(LeverRightsize, LeverShape, LeverConsolidate)
}
