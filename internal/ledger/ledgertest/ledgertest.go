// Package ledgertest is the savings ledger's test support: a price
// catalog of round numbers, node and pod builders, the hand-computed
// cluster docs/savings.md walks through, and random clusters, shared by the
// tests of ledger, its levers and its FinOps metrics.
//
// Test support: imported by tests only (internal/archtest).
package ledgertest

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/gpuwise/gpuwise/internal/cluster"
	"github.com/gpuwise/gpuwise/internal/cluster/clustertest"
	"github.com/gpuwise/gpuwise/internal/pricing"
	"github.com/gpuwise/gpuwise/internal/usage"
)

// WeekHours is the fixtures' window: one week.
const WeekHours = 168

// Fixture instance types and their hourly prices: round numbers so that
// every saving below is known by construction (× 730 h).
const (
	A100x4 = "test.a100x4" // 4 × A100-80GB, $10/h = $7,300/month
	H100x1 = "test.h100x1" // 1 × H100-80GB, $4/h = $2,920/month
	L4x2   = "test.l4x2"   // 2 × L4, $2/h = $1,460/month
)

// Prices is a catalog of the fixture's instance types in one region.
func Prices() *pricing.Catalog { return pricing.NewCatalog(Entries()) }

// Entries are Prices' rows.
func Entries() []pricing.Entry {
	row := func(it, model string, gpus float64, vcpu int, mem, usd float64) pricing.Entry {
		return pricing.Entry{Cloud: "aws", Region: "us-east-1", InstanceType: it, GPUModel: model, GPUCount: gpus,
			VCPUs: vcpu, MemoryGiB: mem, OnDemandUSDPerHour: usd, OnDemandAsOf: "2026-01-21", Source: "test"}
	}
	return []pricing.Entry{
		row(A100x4, "A100-80GB", 4, 32, 256, 10),
		row(H100x1, "H100-80GB", 1, 8, 64, 4),
		row(L4x2, "L4", 2, 8, 32, 2),
	}
}

// Node is an on-demand GPU node of the given instance type and shape.
func Node(name, instance string, gpus int, model string, cores, gib int64) cluster.Node {
	return clustertest.Node(name).Resources(cores, gib).Instance(instance, cluster.OnDemand).GPUs(gpus, model).Obj()
}

// Pod runs the whole window on node holding one whole GPU (unit index gpu)
// at a constant activity; fbMiB < 0 leaves framebuffer unmeasured,
// cpuUse < 0 leaves CPU and memory unmeasured.
func Pod(ns, name, nodeName string, gpu int, activity, fbMiB float64, cpuMilli, memGiB int64, cpuUse, memUseGiB float64) cluster.Pod {
	p := clustertest.Pod(ns, name).On(nodeName).Requests(cpuMilli, memGiB).
		Holds(fmt.Sprintf("%s/gpu%d", nodeName, gpu), activity, WeekHours*3600).Obj()
	if fbMiB >= 0 {
		p.GPUs[0].FramebufferMiB = Gauge(fbMiB)
	}
	if cpuUse >= 0 {
		p.Containers[0].CPU, p.Containers[0].Memory = Gauge(cpuUse), Gauge(memUseGiB*(1<<30))
	}
	return p
}

// Gauge is a usage gauge at v for the whole week.
func Gauge(v float64) *usage.Gauge {
	g := &usage.Gauge{}
	g.Add(v, WeekHours*3600)
	return g
}

// Fixture is the hand-computed cluster (docs/savings.md walks through it):
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
func Fixture(t *testing.T) *cluster.Prepared {
	t.Helper()
	nodes := []cluster.Node{
		Node("a1", A100x4, 4, "A100-80GB", 32, 256), Node("a2", A100x4, 4, "A100-80GB", 32, 256),
		Node("l1", L4x2, 2, "L4", 8, 32), Node("l2", L4x2, 2, "L4", 8, 32), Node("l3", L4x2, 2, "L4", 8, 32), Node("l4", L4x2, 2, "L4", 8, 32),
		Node("h1", H100x1, 1, "H100-80GB", 8, 64), Node("h2", H100x1, 1, "H100-80GB", 8, 64),
	}
	pods := []cluster.Pod{
		Pod("train", "a-0", "a1", 0, 0.9, -1, 4000, 16, -1, 0), Pod("train", "a-1", "a1", 1, 0.9, -1, 4000, 16, -1, 0),
		Pod("train", "a-2", "a2", 0, 0.9, -1, 4000, 16, -1, 0), Pod("train", "a-3", "a2", 1, 0.9, -1, 4000, 16, -1, 0),
		Pod("batch", "l-0", "l1", 0, 0.9, -1, 6000, 4, 0.5, 2), Pod("batch", "l-1", "l2", 0, 0.9, -1, 6000, 4, 0.5, 2),
		Pod("batch", "l-2", "l3", 0, 0.9, -1, 6000, 4, 0.5, 2), Pod("batch", "l-3", "l4", 0, 0.9, -1, 1000, 4, 0.5, 2),
		Pod("inference", "h-0", "h1", 0, 0.05, 5120, 1000, 8, -1, 0), Pod("inference", "h-1", "h2", 0, 0.05, 5120, 1000, 8, -1, 0),
	}
	return Prepare(t, &cluster.Snapshot{Window: clustertest.Window(WeekHours), Source: "fixture", Nodes: nodes, Pods: pods})
}

// Prepare prepares a test snapshot, failing the test on an error.
func Prepare(t *testing.T, s *cluster.Snapshot) *cluster.Prepared {
	t.Helper()
	p, err := cluster.Prepare(s)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// pool is a node shape for generated clusters; "test.unpriced" is in
// no catalog.
type pool struct {
	instance, model string
	gpus            int
	cores, gib      int64
}

var pools = []pool{
	{A100x4, "A100-80GB", 4, 32, 256},
	{H100x1, "H100-80GB", 1, 8, 64},
	{L4x2, "L4", 2, 8, 32},
	{"test.unpriced", "T4", 1, 4, 16},
}

var namespaces = []string{"inference", "train", "dev", "batch"}

// Cluster is a random week: 2–4 pools of 1–4 nodes, some created or
// deleted during the window; GPU pods on about 60% of GPUs with random
// requests, lives, activity and usage (some unmeasured), bare pods and
// Jobs among Deployments, and a few pods without GPUs.
func Cluster(t *testing.T, rng *rand.Rand) *cluster.Prepared {
	t.Helper()
	s := &cluster.Snapshot{Window: clustertest.Window(WeekHours), Source: "generated"}
	for _, pi := range rng.Perm(len(pools))[:2+rng.IntN(3)] {
		gp := pools[pi]
		for j := range 1 + rng.IntN(4) {
			n := Node(fmt.Sprintf("%s-%d", gp.model, j), gp.instance, gp.gpus, gp.model, gp.cores, gp.gib)
			switch rng.IntN(10) {
			case 0:
				n.Deleted = clustertest.At(float64(24 + rng.IntN(120)))
			case 1:
				n.Created = clustertest.At(float64(24 + rng.IntN(120)))
			}
			s.Nodes = append(s.Nodes, n)
			s.Pods = append(s.Pods, pods(rng, &n, gp)...)
		}
	}
	return Prepare(t, s)
}

// pods fills a node's GPUs and CPU with random pods that fit it now:
// up to one per GPU, sharing 90% of its CPU; half of them nearly idle
// (MIG and time-slice candidates), most using far less CPU than they ask.
func pods(rng *rand.Rand, n *cluster.Node, gp pool) []cluster.Pod {
	var out []cluster.Pod
	k := rng.IntN(gp.gpus + 1)
	for g := range k {
		ns := namespaces[rng.IntN(len(namespaces))]
		fb := -1.0
		if rng.IntN(5) != 0 {
			fb = float64(1024 * (1 + rng.IntN(70)))
		}
		use := -1.0
		if rng.IntN(5) != 0 {
			use = 0.1 + rng.Float64()
		}
		act := rng.Float64()
		if rng.IntN(2) == 0 {
			act *= 0.1
		}
		cpu := 500 + rng.Int64N(gp.cores*900/int64(k))
		p := Pod(ns, fmt.Sprintf("%s-g%d", n.Name, g), n.Name, g, act, fb, cpu, 1+rng.Int64N(8), use, 1+rng.Float64())
		switch rng.IntN(6) {
		case 0:
			p.Owner = cluster.Owner{Kind: "Pod", Name: p.Name}
		case 1:
			p.Owner = cluster.Owner{Kind: "Job", Name: p.Name}
			p.End = clustertest.At(float64(12 + rng.IntN(150)))
		}
		out = append(out, p)
	}
	if rng.IntN(3) == 0 {
		out = append(out, clustertest.Pod("web", n.Name+"-web").On(n.Name).Requests(250, 1).Obj())
	}
	return out
}
