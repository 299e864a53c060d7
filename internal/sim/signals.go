package sim

import (
	"hash/fnv"
	"math"

	"github.com/gpuwise/gpuwise/internal/cluster"
)

// The signals behind "why a GPU idles" and the capacity levers: PCIe and
// NVLink receive traffic, CFS throttling, OOM kills and inference-server
// counters. They draw from a per-pod stream seeded from the pod's UID, not
// from the cell's PCG or the pod's activity stream, so that adding them
// left every earlier number of the demo as it was.

// Link bandwidths in bytes per second.
const (
	gbps = 1e9
	mbps = 1e6
)

// linkLoad is the receive traffic of each held whole GPU: PCIe at base
// plus swing × activity; NVLink at nvSwing × activity (0: the node has no
// NVLink, or the exporter does not collect it).
type linkLoad struct {
	pcieBase, pcieSwing float64
	nvSwing             float64
}

// defaultLink is a GPU fed by a healthy input pipeline: a few hundred MB/s
// to a couple of GB/s of host-to-device copies while computing.
var defaultLink = linkLoad{pcieBase: 30 * mbps, pcieSwing: 1.5 * gbps}

// nvlinkModels have NVLink between their GPUs (SXM boards).
var nvlinkModels = map[string]bool{"p5.48xlarge": true, "p4d.24xlarge": true, "p4de.24xlarge": true,
	"Standard_ND96isr_H100_v5": true, "dgx-a100-640gb": true}

// serveLoad is an inference server's traffic, in proportion to the pod's
// activity: rps requests per second at full activity, tokens per request,
// and a queue that builds once activity passes queueFrom.
type serveLoad struct {
	server, model        string
	rps                  float64
	genTok, promptTok    float64 // per request; 0: the server counts none
	queueFrom, queueGain float64
	batch                float64 // Triton inferences per request
	// latShares are the requests' shares in each VLLMLatencyBounds
	// bucket (the last +Inf); nil: no latency histogram.
	latShares []float64
}

// gpuSample is one sample of a held unit, for the metrics exporter.
// pcie and nvlink are NaN where the exporter reports none.
type gpuSample struct {
	v, sm, fb    float64
	pcie, nvlink float64
}

// ctrSample is one sample of a container over [t, t+dt): CPU cores and
// working-set bytes; CFS periods and throttled periods when it has a CPU
// limit (0 otherwise).
type ctrSample struct {
	cpu, mem           float64
	periods, throttled float64
	// kills OOM kills happened at killAt in [t, t+dt).
	kills  int
	killAt float64
}

// serveSample is one sample of an inference server over [t, t+dt).
type serveSample struct {
	requests, genTokens, promptTokens, waiting float64
}

// signalNoise seeds a pod's signal stream from its UID.
func signalNoise(p *cluster.Pod) noise {
	h := fnv.New64a()
	h.Write([]byte(p.UID))
	return noise{h.Sum64()}
}

// cfsPeriodsPerSecond is the CFS enforcement rate: one 100 ms period.
const cfsPeriodsPerSecond = 10

// throttledShare is the share of CFS periods throttled for a container
// using used of its limit cores: a container pinned at its limit is
// throttled in a third to two thirds of its periods; one well below it
// hardly ever.
func throttledShare(used, limit float64, n *noise) float64 {
	x := used / limit
	if x >= 0.95 {
		return n.between(0.35, 0.65)
	}
	return max(x-0.7, 0) * 0.1 * n.next()
}

// linkSample is the PCIe and NVLink receive rate of a whole GPU at
// activity v with the sample's jitter, NaN where not reported.
func (l *load) linkSample(v, jitter float64) (pcie, nvlink float64) {
	pcie = (l.link.pcieBase + l.link.pcieSwing*v) * jitter
	nvlink = math.NaN()
	if l.link.nvSwing > 0 {
		nvlink = l.link.nvSwing * v * jitter
	}
	return pcie, nvlink
}

// serveSample is the server's counts over dt seconds at pod activity a.
func (s *serveLoad) sample(a, dt float64, n *noise) serveSample {
	req := s.rps * a * dt * n.between(0.95, 1.05)
	out := serveSample{requests: req, genTokens: -1, promptTokens: -1}
	if s.genTok > 0 {
		out.genTokens = req * s.genTok * n.between(0.9, 1.1)
		out.promptTokens = req * s.promptTok * n.between(0.9, 1.1)
	}
	out.waiting = max(a-s.queueFrom, 0) * s.queueGain * n.between(0.8, 1.2)
	if s.server == cluster.ServerVLLM {
		out.waiting = math.Round(out.waiting) // a gauge of whole requests
	}
	return out
}

// oomPlan says when a pod's containers are OOM-killed: a fixed number of
// kills spread evenly over its life in the window, or (every > 0) a
// working set that climbs to the first container's limit and is killed
// every `every` seconds of its life.
type oomPlan struct {
	fixed int
	every float64
}

// sawtooth is the first container's working set under an OOM cycle: it
// loads its data to 92% of the limit at once, then creeps to 100% over
// each period of the pod's life.
func (o oomPlan) sawtooth(rel, limit float64) float64 {
	phase := math.Mod(rel, o.every) / o.every
	return limit * (0.92 + 0.08*phase)
}

// kills counts the OOM kills in [t, t+dt) of a life [from, to), times in
// seconds of the window, and returns the time of the first.
func (o oomPlan) kills(from, to, t, dt float64) (int, float64) {
	if o.every > 0 { // kill m ≥ 1 at from + m·every, inside [t, t+dt)
		first := max(math.Ceil((t-from)/o.every), 1)
		n := int(math.Ceil((t+dt-from)/o.every) - first)
		return max(n, 0), from + first*o.every
	}
	n, at := 0, 0.0
	for k := o.fixed; k >= 1; k-- {
		if x := from + (to-from)*float64(k)/float64(o.fixed+1); x >= t && x < t+dt {
			n, at = n+1, x
		}
	}
	return n, at
}

// signals is a pod's signal state while it streams.
type signals struct {
	acc      *cluster.HourlyAcc // nil for pods without GPUs
	sig      noise
	fraction []float64 // per holding: the unit's share of its GPU
	whole    []bool    // per holding: a whole GPU (PCIe/NVLink reported)
	gpuCtr   int       // the container requesting the GPUs; -1: none
	from, to float64   // the pod's life in the window, seconds
	kills    int
	spans    []cluster.Span // buffer for the current sample's spans
	lat      []float64      // buffer for a sample's latency bucket rates
	sp       cluster.Span   // the current sample's place in the hours
}

// newSignals starts a pod's signals; a GPU pod's life goes into its
// workload's hourly series at once.
func (c *cell) newSignals(p *cluster.Pod, from, to float64) *signals {
	st := &signals{sig: signalNoise(p), gpuCtr: -1, from: from, to: to}
	if len(p.GPUs) == 0 {
		return st
	}
	node := c.node(p.Node)
	st.acc, st.gpuCtr = c.hourly.Workload(p.WorkloadKey()), 0
	st.fraction, st.whole = make([]float64, len(p.GPUs)), make([]bool, len(p.GPUs))
	var held float64
	for i, h := range p.GPUs {
		u := unitOf(node, h.UnitID)
		st.fraction[i], st.whole[i] = u.Fraction, u.Kind == cluster.WholeGPU
		held += u.Fraction
	}
	st.acc.Life(from, to, held)
	st.acc.TrackOOM()
	return st
}

// gpuContainer feeds the GPU container's CPU, memory and OOM kills into
// the hourly series.
func (st *signals) gpuContainer(k *ctr, x ctrSample, dt float64, kills int, at float64) {
	sp := st.sp
	if k.cpuLim > 0 {
		st.acc.CPU(sp, x.cpu, float64(k.cpuLim)/1000)
		st.acc.Throttle(sp, x.periods/dt, x.throttled/dt)
	}
	if k.memLim > 0 {
		st.acc.Memory(sp, x.mem/float64(k.memLim))
	}
	if kills > 0 {
		st.acc.OOMKills(at, float64(kills))
	}
}

// finish records a pod's OOM kills from its plan.
func (st *signals) finish(p *cluster.Pod) {
	if st.kills > 0 {
		p.OOMKills = st.kills
	}
}

func (c *cell) node(name string) *cluster.Node {
	for _, n := range c.nodes {
		if n.Name == name {
			return n
		}
	}
	return nil
}

func unitOf(n *cluster.Node, id string) cluster.Unit {
	for _, g := range n.GPUs {
		for _, u := range g.Units {
			if u.ID == id {
				return u
			}
		}
	}
	return cluster.Unit{}
}
