package sim

import (
	"fmt"
	"math/rand/v2"
	"time"

	"github.com/gpuwise/gpuwise/internal/cluster"
	"github.com/gpuwise/gpuwise/internal/usage"
)

// cell is one scale unit under construction: the demo cluster, with its own
// random streams so that cells can be built in parallel.
type cell struct {
	cfg    Config
	pfx    string // name prefix: "" for cell 0, "c<k>-" after
	rng    *rand.Rand
	unix0  float64 // window start, Unix seconds
	window int64   // window length, seconds
	step   float64 // sample step, seconds
	nodes  []*cluster.Node
	pods   []cluster.Pod
	blind  []string        // nodes whose dcgm-exporter is down
	names  map[string]bool // pod keys in use
	acts   slab[usage.Activity]
	gauges slab[usage.Gauge]
	// hourly builds the cell's hour-by-hour workload series.
	hourly *cluster.HourlyBuilder
	// sink, when set, receives every sample as it is generated (the
	// metrics exporter); it draws no random numbers, so it cannot change
	// the snapshot.
	sink sampleSink
}

// built is a finished cell: what Generate assembles.
type built struct {
	nodes  []cluster.Node
	pods   []cluster.Pod
	blind  []string
	hourly []cluster.WorkloadHours
	dra    *cluster.DRAInfo
}

func newCell(cfg Config, k int) *cell {
	c := &cell{
		cfg:    cfg,
		rng:    rand.New(rand.NewPCG(cfg.Seed, 0x9e3779b97f4a7c15^uint64(k))),
		unix0:  float64(cfg.Start.Unix()) + float64(cfg.Start.Nanosecond())/1e9,
		window: int64(cfg.Window / time.Second),
		step:   cfg.Step.Seconds(),
		names:  map[string]bool{},
	}
	c.hourly = cluster.NewHourlyBuilder(cluster.Window{Start: cfg.Start, End: cfg.Start.Add(cfg.Window)}, cluster.DefaultIdleThreshold)
	if k > 0 {
		c.pfx = fmt.Sprintf("c%d-", k)
	}
	return c
}

// layout is the cell's nodes by role.
type layout struct {
	train            [4]*cluster.Node // p5: a pair for 2-node jobs, two spot
	serve            [2]*cluster.Node // Azure ND H100 v5
	serveL4, edgeL4  *cluster.Node    // g6.12xlarge (dcgm-exporter down), g6.xlarge spot
	notebook         [3]*cluster.Node // Azure NC A100 v4
	hub              *cluster.Node    // p4d for JupyterHub, untainted
	mig, dev         *cluster.Node    // p4de MIG mixed, g6.12xlarge time-sliced
	batchA100, batch *cluster.Node    // p4d, g5.12xlarge spot
	onprem, system   *cluster.Node    // DGX (unpriced), CPU-only
}

// build generates the cell: nodes, then every archetype's pods and usage.
func (c *cell) build() built {
	l := c.layout()
	c.daemonSets()
	c.training(l)
	c.research(l.onprem)
	c.serving(l)
	c.migServing(l.mig)
	c.notebooks(l)
	c.devBoxes(l.dev)
	c.batchJobs(l)
	c.services(l)
	c.accelerators()
	c.allocations()
	out := built{nodes: make([]cluster.Node, len(c.nodes)), pods: c.pods, blind: c.blind, hourly: c.hourly.Build(), dra: c.draInfo()}
	c.hourly.Release()
	for i, n := range c.nodes {
		out.nodes[i] = *n
	}
	return out
}

func (c *cell) layout() layout {
	w := c.window
	od, spot := cluster.OnDemand, cluster.Spot
	old := func() int64 { return -c.secs(3*day, 120*day) }
	var l layout
	for i, capacity := range []string{od, od, spot, spot} {
		s := nodeSpec{name: fmt.Sprintf("train-h100-%d", i+1), inst: p5, capacity: capacity, tainted: true, created: old()}
		if i == 2 { // scaled up by Karpenter, then reclaimed by the cloud
			s.created, s.deleted, s.endReason = w*18/100, w*78/100, cluster.NodeSpotInterrupted
		}
		l.train[i] = c.addNode(s)
	}
	l.serve[0] = c.addNode(nodeSpec{name: "serve-h100-1", inst: ndH100, capacity: od, created: old()})
	l.serve[1] = c.addNode(nodeSpec{name: "serve-h100-2", inst: ndH100, capacity: od, tainted: true, created: old()})
	l.serveL4 = c.addNode(nodeSpec{name: "serve-l4-1", inst: g6x12, capacity: od, tainted: true, created: old()})
	c.blind = append(c.blind, l.serveL4.Name)
	l.edgeL4 = c.addNode(nodeSpec{name: "serve-l4-2", inst: g6x1, capacity: spot, created: old()})
	for i := range l.notebook {
		l.notebook[i] = c.addNode(nodeSpec{name: fmt.Sprintf("nb-a100-%d", i+1), inst: ncA100, capacity: od, tainted: i != 1, created: old()})
	}
	l.hub = c.addNode(nodeSpec{name: "hub-a100-1", inst: p4d, capacity: od, created: old()})
	l.mig = c.addNode(nodeSpec{name: "mig-a100-1", inst: p4de, capacity: od, tainted: true, mig: migLayout, created: old()})
	l.dev = c.addNode(nodeSpec{name: "dev-l4-1", inst: g6x12, capacity: od, tainted: true, replicas: 4, created: old()})
	l.batchA100 = c.addNode(nodeSpec{name: "batch-a100-1", inst: p4d, capacity: od, tainted: true, created: old()})
	l.batch = c.addNode(nodeSpec{name: "batch-a10g-1", inst: g5x12, capacity: spot, tainted: true, created: old()})
	l.onprem = c.addNode(nodeSpec{name: "onprem-dgx-1", inst: dgxA100, tainted: true, created: old()})
	l.system = c.addNode(nodeSpec{name: "system-1", inst: m7i, capacity: od, created: old()})
	return l
}

// migLayout is the MIG node's per-GPU layout. Some layouts leave slices
// uncarved (3g+2g+1g uses 6 of 7), the way hand-made configs do.
var migLayout = [][]string{
	{"3g.40gb", "2g.20gb", "1g.10gb"},
	{"3g.40gb", "3g.40gb"},
	{"2g.20gb", "2g.20gb", "2g.20gb", "1g.10gb"},
	{"1g.10gb", "1g.10gb", "1g.10gb", "1g.10gb", "1g.10gb", "1g.10gb", "1g.10gb"},
	{"4g.40gb", "2g.20gb", "1g.10gb"},
	{"7g.80gb"},
	{"3g.40gb", "2g.20gb", "1g.10gb"},
	{"1g.20gb", "1g.20gb", "1g.20gb", "1g.20gb"},
}

// at turns seconds from the window start into a time.
func (c *cell) at(sec int64) time.Time { return c.cfg.Start.Add(time.Duration(sec) * time.Second) }

// Durations in seconds, the unit of all scheduling in a cell.
const (
	minute = 60
	hour   = 3600
	day    = 86400
)

// secs returns a random whole number of seconds in [lo, hi).
func (c *cell) secs(lo, hi int64) int64 { return lo + c.rng.Int64N(max(hi-lo, 1)) }

func (c *cell) between(lo, hi float64) float64 { return lo + (hi-lo)*c.rng.Float64() }

func (c *cell) chance(p float64) bool { return c.rng.Float64() < p }

func (c *cell) pick(xs []string) string { return xs[c.rng.IntN(len(xs))] }

func (c *cell) noise() noise { return noise{c.rng.Uint64()} }

// nameAlphabet is the alphabet Kubernetes uses for generated name suffixes.
const nameAlphabet = "bcdfghjklmnpqrstvwxz2456789"

func (c *cell) suffix(n int) string {
	b := make([]byte, n)
	for i := range b {
		b[i] = nameAlphabet[c.rng.IntN(len(nameAlphabet))]
	}
	return string(b)
}

// claim reserves a pod name in a namespace; false if it is taken.
func (c *cell) claim(ns, name string) bool {
	k := ns + "/" + name
	if c.names[k] {
		return false
	}
	c.names[k] = true
	return true
}

// generated returns base-<5 random chars>, unique in the namespace.
func (c *cell) generated(ns, base string) string {
	for {
		if name := base + "-" + c.suffix(5); c.claim(ns, name) {
			return name
		}
	}
}

func (c *cell) uid() string {
	a, b := c.rng.Uint64(), c.rng.Uint64()
	return fmt.Sprintf("%08x-%04x-4%03x-%04x-%012x", a>>32, a>>16&0xffff, a&0xfff, 0x8000|b>>48&0x3fff, b&0xffffffffffff)
}
