package prom

import (
	"cmp"
	"context"
	"fmt"
	"math"
	"slices"
	"sort"
	"strconv"
	"sync"

	"github.com/gpuwise/gpuwise/internal/cluster"
	"github.com/gpuwise/gpuwise/internal/prom/query"
	"github.com/gpuwise/gpuwise/internal/prom/wire"
	"github.com/gpuwise/gpuwise/internal/usage"
)

// AWS Neuron devices' activity from neuron-monitor's Prometheus exporter
// (docs/accelerators.md): neuroncore_utilization_ratio, one series per
// NeuronCore, 0–1, labelled with the instance (instance_id, …) and the
// core's index on it (neuroncore), with no pod or node label. A core is
// joined to its node by the EC2 instance id of the node's providerID and
// to its device by its index ÷ the cores per device; a device's holder is
// the pod that holds the device's unit at the time of the sample.

const neuronMetric = "neuroncore_utilization_ratio"

// neuronMemMetrics are neuron-monitor's device memory per NeuronCore, in
// bytes, one gauge per kind of use (docs/accelerators.md): a core's
// memory at a time is their sum. (neuron_runtime_memory_used_bytes is per
// runtime, with no core label, its device total the sum of these: it is
// not read.)
var neuronMemMetrics = []string{
	"neuroncore_memory_usage_constants",
	"neuroncore_memory_usage_model_code",
	"neuroncore_memory_usage_model_shared_scratchpad",
	"neuroncore_memory_usage_runtime_memory",
	"neuroncore_memory_usage_tensors",
}

// neuronCore is one NeuronCore: its node and its index on the node.
type neuronCore struct {
	node string
	core int
}

// neuronPoint is one weighted point of a core's series: the value v
// stands for the s seconds from Unix second t.
type neuronPoint struct{ t, v, s float64 }

// neuronRead is what the neuron-monitor reads left: each core's points,
// and the look-back of the points (0 for raw samples: a point is the
// sample at its time; a query_range point at T averages the samples in
// (T−lookback, T] and stands for the step before T).
type neuronRead struct {
	mu    sync.Mutex
	cores map[neuronCore][]neuronPoint
	// mem is each core's memory points, bytes, one per kind a time
	// (neuronMemMetrics): memSums adds them up.
	mem      map[neuronCore][]neuronPoint
	lookback float64
	nodes    int // Neuron nodes read
	queries  int
	failed   []query.Failure
}

// neuronNodes are the nodes that advertise whole Neuron devices, by the
// EC2 instance id of their providerID.
func neuronNodes(nodes nodeList, nf factSet) map[string]string {
	out := map[string]string{}
	for n, res := range gpuResources(nf.facts) {
		if res[cluster.ResNeuron] == 0 && res[cluster.ResNeuronDevice] == 0 {
			continue
		}
		if id := cluster.EC2InstanceID(nodes[n]); id != "" {
			out[id] = n
		}
	}
	return out
}

// readNeuron reads neuron-monitor's core activity for the Neuron nodes,
// shard by shard of instance ids, by query_range, raw samples or remote
// read as the other usage reads are.
func (r *reader) readNeuron(ctx context.Context, nodes nodeList, nf factSet) *neuronRead {
	nr := &neuronRead{cores: map[neuronCore][]neuronPoint{}, mem: map[neuronCore][]neuronPoint{}}
	if len(nf.failed) > 0 {
		return nr
	}
	byInst := neuronNodes(nodes, nf)
	if len(byInst) == 0 {
		return nr
	}
	nr.nodes = len(byInst)
	ids := make([]string, 0, len(byInst))
	for id := range byInst {
		ids = append(ids, id)
	}
	shards := query.Shards(ids, r.opts.ShardSize)
	mode := r.readMode(ctx, neuronMetric+"{instance_id=~"+shards[0].Quoted()+"}")
	var tasks []query.Task
	for _, metric := range append([]string{neuronMetric}, neuronMemMetrics...) {
		mem := metric != neuronMetric
		open := func() query.Batch {
			return &neuronBatch{r: nr, byInst: byInst, mem: mem, series: map[neuronCore][]neuronPoint{}}
		}
		for _, sh := range shards {
			sel := metric + "{instance_id=~" + sh.Quoted() + "}"
			names := make([]string, len(sh.Nodes)) // the shard's nodes, as failures name them
			for i, id := range sh.Nodes {
				names[i] = byInst[id]
			}
			if mode == ReadRange {
				nr.lookback = r.opts.Step.Seconds() - 0.001 // query.Lookback
				q := fmt.Sprintf("avg_over_time(%s[%s])", sel, query.Lookback(r.opts.Step))
				tasks = append(tasks, r.spanTasks(q, open, names)...)
				continue
			}
			ms := []wire.Matcher{{Type: wire.MatchEqual, Name: "__name__", Value: metric}, {Type: wire.MatchRegexp, Name: "instance_id", Value: sh.Regex}}
			tasks = append(tasks, rawOrRemote(mode == ReadRemote, sel, ms, neuronKeep, r.rawDays(sel, open, names))...)
		}
	}
	nr.queries, nr.failed = len(tasks), r.q.Run(ctx, tasks, 0)
	return nr
}

// neuronKeep says which labels of a neuron-monitor series route it.
func neuronKeep(name []byte) bool {
	s := string(name)
	return s == "instance_id" || s == "neuroncore"
}

// neuronBatch collects one request's core points.
type neuronBatch struct {
	r      *neuronRead
	byInst map[string]string
	mem    bool // a memory metric's (bytes), not activity's
	series map[neuronCore][]neuronPoint
}

func (b *neuronBatch) Series(l wire.Labels) query.Target {
	node := b.byInst[l.Get("instance_id")]
	core, err := strconv.Atoi(l.Get("neuroncore"))
	if node == "" || err != nil || core < 0 || core > 4096 {
		return query.Target{}
	}
	return pointsOf(b.series, neuronCore{node, core}, b.mem, 1)
}

func (b *neuronBatch) Commit() {
	to := b.r.cores
	if b.mem {
		to = b.r.mem
	}
	commitPoints(&b.r.mu, to, b.series)
}

// pointsOf is the target that keeps a series' samples under k: a memory
// series any non-negative value, an activity series a ratio (its value
// divided by scale: 100 for a percent) up to ratioMax.
func pointsOf[K comparable](series map[K][]neuronPoint, k K, mem bool, scale float64) query.Target {
	return query.Target{Acc: query.Acc{Timed: func(t, v, s float64) {
		if !mem {
			v /= scale
		}
		if v >= 0 && (mem || v <= ratioMax) && s > 0 {
			series[k] = append(series[k], neuronPoint{t, v, s})
		}
	}}}
}

// commitPoints adds a batch's series to the read's, under its lock.
func commitPoints[K comparable](mu *sync.Mutex, to, from map[K][]neuronPoint) {
	mu.Lock()
	defer mu.Unlock()
	for k, ps := range from {
		if len(to[k]) == 0 {
			to[k] = ps // the batch's own, not copied: it is done with them
			continue
		}
		to[k] = append(to[k], ps...)
	}
}

// coresPerDevice is the NeuronCores per Neuron device of a node: the
// device plugin's allocatable NeuronCores over its devices where it
// advertises both, else the model's (cluster.NeuronCoresPerDevice).
func coresPerDevice(n *cluster.Node, alloc map[string]int) int {
	devs := max(alloc[cluster.ResNeuron], alloc[cluster.ResNeuronDevice])
	if c := alloc[cluster.ResNeuronCore]; devs > 0 && c > 0 && c%devs == 0 {
		return c / devs
	}
	return cluster.NeuronCoresPerDevice(n.GPUModel)
}

// neuronMeasure is what measureNeuron did: the holdings it measured, the
// holdings it could not attribute (their pod shared its node's Neuron
// devices with other pods at the same time: which devices or cores each
// got is not in Prometheus) and the Neuron nodes with held devices and no
// core series.
type neuronMeasure struct {
	measured, shared int
	silent           []string
	// gaudiUnmeasured is measureGaudi's: the Gaudi holdings no exporter
	// series named the pod of.
	gaudiUnmeasured int
}

// neuronUnit is where a Neuron unit is: its node and device, and for a
// NeuronCore unit its core's index on the instance (-1 for a whole
// device).
type neuronUnit struct {
	node      string
	dev, core int
}

// measureNeuron gives the Neuron holdings the activity neuron-monitor
// measured, in the pods' lives (the holdings placeUnmeasured made are
// unmeasured until then), where a series can be attributed to a pod:
//
//   - a pod holding every Neuron unit of its node: each whole device its
//     cores' mean, weighted by the share of its cores that reported; each
//     NeuronCore its core's series;
//   - a pod holding some of them while no other pod holds any on its node
//     (its life overlaps no other holder's): every core series of the node
//     is its own (neuron-monitor reports only the cores a runtime uses),
//     but which device or core each series is on is not in Prometheus, so
//     each of its holdings gets the mean of the node's reporting cores,
//     weighted by the share of its k held cores that reported.
//
// A pod sharing its node's devices with other pods at the same time is
// left unmeasured, never idle (counted in shared).
func measureNeuron(pods []*podFacts, g gpuRead, nr *neuronRead, alloc map[string]map[string]int, w cluster.Window) neuronMeasure {
	var out neuronMeasure
	if nr == nil || g.usage == nil {
		return out
	}
	units := map[string]neuronUnit{}
	perNode := map[string]int{} // units of a Neuron node
	cores := map[string]int{}
	for i := range g.nodes {
		n := &g.nodes[i]
		if !n.HasGPUs() || n.Vendor() != cluster.VendorNeuron {
			continue
		}
		cores[n.Name] = coresPerDevice(n, alloc[n.Name])
		for _, gpu := range n.GPUs {
			for j, u := range gpu.Units {
				nu := neuronUnit{n.Name, gpu.Index, -1}
				if u.Kind == cluster.NeuronCoreUnit {
					nu.core = gpu.Index*len(gpu.Units) + j
				}
				units[u.ID] = nu
				perNode[n.Name]++
			}
		}
	}
	if len(units) == 0 {
		return out
	}
	pts := newNeuronPoints(nr, cores)
	type life struct {
		key string
		iv  interval
	}
	holders := map[string][]life{} // Neuron holders by node
	heldCores := map[string]int{}  // NeuronCores a pod holds, by pod key
	for _, p := range pods {
		for _, h := range p.pod.GPUs {
			if u, ok := units[h.UnitID]; ok && u.node == p.pod.Node {
				if heldCores[p.pod.Key()] == 0 {
					holders[u.node] = append(holders[u.node], life{p.pod.Key(), p.interval(w)})
				}
				if u.core >= 0 {
					heldCores[p.pod.Key()]++
				} else {
					heldCores[p.pod.Key()] += max(cores[u.node], 1)
				}
			}
		}
	}
	alone := func(p *podFacts) bool {
		iv := p.interval(w)
		for _, o := range holders[p.pod.Node] {
			if o.key != p.pod.Key() && overlaps([]interval{o.iv}, iv) {
				return false
			}
		}
		return true
	}
	for _, p := range pods {
		held := 0
		for _, h := range p.pod.GPUs {
			if u, ok := units[h.UnitID]; ok && u.node == p.pod.Node {
				held++
			}
		}
		if held == 0 {
			continue
		}
		whole := held == perNode[p.pod.Node]
		var mean, memShare []neuronPoint // the node's cores as the pod's, for a lone partial holder
		switch {
		case whole:
		case alone(p):
			mean = meansOf(pts.node(p.pod.Node), heldCores[p.pod.Key()])
			memShare = scaled(pts.nodeMem(p.pod.Node), 1/float64(held))
		default:
			out.shared += held
			continue
		}
		iv := p.interval(w)
		from, to := float64(iv.from.UnixMilli())/1000, float64(iv.to.UnixMilli())/1000
		for i := range p.pod.GPUs {
			h := &p.pod.GPUs[i]
			u, ok := units[h.UnitID]
			if h.Activity != nil || !ok {
				continue
			}
			ps, mem := mean, memShare
			switch {
			case !whole:
			case u.core >= 0:
				k := neuronCore{u.node, u.core}
				ps, mem = pts.core(k), pts.coreMem(k)
			default:
				d := neuronDev{u.node, u.dev}
				ps, mem = pts.device(d), pts.devMem(d)
			}
			h.FramebufferMiB = neuronGauge(mem, from, to, nr.lookback)
			s := neuronSeries(ps, from, to, nr.lookback, g.usage.clock)
			if s == nil {
				continue
			}
			s.fb = h.FramebufferMiB
			h.Activity = s.act
			g.usage.holds[holdKey{p.pod.Key(), h.UnitID}] = s
			out.measured++
		}
	}
	for n := range holders {
		if !pts.reported[n] {
			out.silent = append(out.silent, n)
		}
	}
	sort.Strings(out.silent)
	return out
}

// neuronDev is one Neuron device: its node and its index on the node.
type neuronDev struct {
	node string
	dev  int
}

// neuronPoints gives measureNeuron the points its holdings read, each
// made when a holding first asks for it from the read's core series (a
// node's, for a lone partial holder, only then): a device's, a node's, a
// core's memory. Cores go in index order; points of one time add up in
// that order, each core's in its read order.
type neuronPoints struct {
	nr                      *neuronRead
	perDevice               map[string]int // NeuronCores per device, by Neuron node
	reported                map[string]bool
	devCores, devMemCores   map[neuronDev][]neuronCore
	nodeCores, nodeMemCores map[string][]neuronCore
	dev, devM               map[neuronDev][]neuronPoint
	nodeAct, nodeM          map[string][]neuronPoint
	coreM                   map[neuronCore][]neuronPoint
	buf, one                []neuronPoint // scratch: gather's, a core's
}

func newNeuronPoints(nr *neuronRead, perDevice map[string]int) *neuronPoints {
	p := &neuronPoints{nr: nr, perDevice: perDevice, reported: map[string]bool{},
		devCores: map[neuronDev][]neuronCore{}, devMemCores: map[neuronDev][]neuronCore{},
		nodeCores: map[string][]neuronCore{}, nodeMemCores: map[string][]neuronCore{},
		dev: map[neuronDev][]neuronPoint{}, devM: map[neuronDev][]neuronPoint{},
		nodeAct: map[string][]neuronPoint{}, nodeM: map[string][]neuronPoint{}, coreM: map[neuronCore][]neuronPoint{}}
	for k := range nr.cores {
		if c := perDevice[k.node]; c > 0 {
			p.reported[k.node] = true
			d := neuronDev{k.node, k.core / c}
			p.devCores[d] = append(p.devCores[d], k)
			p.nodeCores[k.node] = append(p.nodeCores[k.node], k)
		}
	}
	for k := range nr.mem {
		if c := perDevice[k.node]; c > 0 {
			d := neuronDev{k.node, k.core / c}
			p.devMemCores[d] = append(p.devMemCores[d], k)
			p.nodeMemCores[k.node] = append(p.nodeMemCores[k.node], k)
		}
	}
	byIndex(p.devCores)
	byIndex(p.devMemCores)
	byIndex(p.nodeCores)
	byIndex(p.nodeMemCores)
	return p
}

// byIndex puts each list of cores in index order.
func byIndex[K comparable](m map[K][]neuronCore) {
	for _, ks := range m {
		slices.SortFunc(ks, func(a, b neuronCore) int { return cmp.Compare(a.core, b.core) })
	}
}

// gather is the points of the cores ks (of what gives each core's) in
// time order, those of one time in the order of ks: in p's scratch,
// good until the next call.
func (p *neuronPoints) gather(ks []neuronCore, of func(neuronCore) []neuronPoint) []neuronPoint {
	p.buf = p.buf[:0]
	for _, k := range ks {
		p.buf = append(p.buf, of(k)...)
	}
	sortByTime(p.buf)
	return p.buf
}

// activity is a core's points as read.
func (p *neuronPoints) activity(k neuronCore) []neuronPoint { return p.nr.cores[k] }

// core is a NeuronCore's points, one a time.
func (p *neuronPoints) core(k neuronCore) []neuronPoint {
	p.one = append(p.one[:0], p.nr.cores[k]...)
	sortByTime(p.one)
	return meansOf(p.one, 1)
}

// device is a device's points: its cores' means (deviceMeans).
func (p *neuronPoints) device(d neuronDev) []neuronPoint {
	ps, ok := p.dev[d]
	if !ok {
		ps = meansOf(p.gather(p.devCores[d], p.activity), p.perDevice[d.node])
		p.dev[d] = ps
	}
	return ps
}

// node is every reporting core's points of a node, in time order (for
// meansOf with the cores a lone holder holds).
func (p *neuronPoints) node(n string) []neuronPoint {
	ps, ok := p.nodeAct[n]
	if !ok {
		ps = slices.Clone(p.gather(p.nodeCores[n], p.activity))
		p.nodeAct[n] = ps
	}
	return ps
}

// coreMem is a core's memory, bytes, its kinds of use summed by time.
func (p *neuronPoints) coreMem(k neuronCore) []neuronPoint {
	ps, ok := p.coreM[k]
	if !ok {
		// Not in p.buf: devMem and nodeMem gather these there.
		p.one = append(p.one[:0], p.nr.mem[k]...)
		sortByTime(p.one)
		ps = sumsOf(p.one)
		p.coreM[k] = ps
	}
	return ps
}

// devMem is a device's memory: its cores' summed by time.
func (p *neuronPoints) devMem(d neuronDev) []neuronPoint {
	ps, ok := p.devM[d]
	if !ok {
		ps = sumsOf(p.gather(p.devMemCores[d], p.coreMem))
		p.devM[d] = ps
	}
	return ps
}

// nodeMem is a node's memory: its cores' summed by time.
func (p *neuronPoints) nodeMem(n string) []neuronPoint {
	ps, ok := p.nodeM[n]
	if !ok {
		ps = sumsOf(p.gather(p.nodeMemCores[n], p.coreMem))
		p.nodeM[n] = ps
	}
	return ps
}

// sortByTime puts points in time order, those of one time in the order
// they had.
func sortByTime(ps []neuronPoint) {
	slices.SortStableFunc(ps, func(a, b neuronPoint) int { return cmp.Compare(a.t, b.t) })
}

// deviceMeans turns a device's core points into device points (meansOf
// them in time order).
func deviceMeans(ps []neuronPoint, cores int) []neuronPoint {
	ps = slices.Clone(ps)
	sortByTime(ps)
	return meansOf(ps, cores)
}

// meansOf turns a device's core points, in time order, into device
// points: at each point time the cores' mean, standing for the point's
// seconds × the share of the device's cores that reported.
func meansOf(ps []neuronPoint, cores int) []neuronPoint {
	out := make([]neuronPoint, 0, times(ps))
	for i := 0; i < len(ps); {
		t, v, s, n := ps[i].t, 0.0, 0.0, 0
		for ; i < len(ps) && ps[i].t == t; i++ {
			v += ps[i].v
			s = max(s, ps[i].s)
			n++
		}
		out = append(out, neuronPoint{t: t, v: v / float64(n), s: s * float64(min(n, cores)) / float64(cores)})
	}
	return out
}

// times is how many times points in time order have.
func times(ps []neuronPoint) int {
	n := 0
	for i := range ps {
		if i == 0 || ps[i].t != ps[i-1].t {
			n++
		}
	}
	return n
}

// memSums adds up memory points at the same time (a core's kinds of
// use, or a device's or node's cores), each standing for the longest of
// their seconds; in time order.
func memSums(ps []neuronPoint) []neuronPoint {
	ps = slices.Clone(ps)
	sortByTime(ps)
	return sumsOf(ps)
}

// sumsOf is memSums of points in time order.
func sumsOf(ps []neuronPoint) []neuronPoint {
	out := make([]neuronPoint, 0, times(ps))
	for i := 0; i < len(ps); {
		q := ps[i]
		for i++; i < len(ps) && ps[i].t == q.t; i++ {
			q.v += ps[i].v
			q.s = max(q.s, ps[i].s)
		}
		out = append(out, q)
	}
	return out
}

// scaled is ps with every value times f.
func scaled(ps []neuronPoint, f float64) []neuronPoint {
	out := make([]neuronPoint, len(ps))
	for i, p := range ps {
		out[i] = neuronPoint{p.t, p.v * f, p.s}
	}
	return out
}

// inLife says whether a point counts in a life [from, to): a raw sample
// by its time, a query_range point at T by the samples it averages,
// (T−lookback, T].
func inLife(p neuronPoint, from, to, lookback float64) bool {
	at := p.t
	if lookback > 0 {
		at = p.t + p.s
	}
	return at >= from && at-lookback < to && !math.IsNaN(p.v)
}

// neuronGauge is a holding's device memory in MiB from its memory points
// (bytes) in the pod's life, as neuronSeries times them; nil when none
// falls in it.
func neuronGauge(ps []neuronPoint, from, to, lookback float64) *usage.Gauge {
	var g *usage.Gauge
	for _, p := range ps {
		if !inLife(p, from, to, lookback) {
			continue
		}
		if g == nil {
			g = &usage.Gauge{}
		}
		g.Add(p.v/(1<<20), p.s)
	}
	return g
}

// neuronSeries is a holding's usage from its device's points in the
// pod's life [from, to): a raw sample at its time, a query_range point by
// the samples it averages, (T−lookback, T] for the point at T (which
// stands for the step before T); nil when none falls in it.
func neuronSeries(ps []neuronPoint, from, to, lookback float64, clock *hourClock) *gpuSeries {
	var s *gpuSeries
	var timed func(t, v, dt float64)
	for _, p := range ps {
		if !inLife(p, from, to, lookback) {
			continue
		}
		if s == nil {
			s = &gpuSeries{act: &usage.Activity{}}
			if clock != nil {
				s.hours = &holdHours{}
				timed = s.hours.activity(clock)
			}
		}
		s.act.Add(p.v, p.s)
		if timed != nil {
			timed(p.t, p.v, p.s)
		}
	}
	return s
}
