package prom

import (
	"cmp"
	"fmt"
	"math/rand/v2"
	"reflect"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/gpuwise/gpuwise/internal/cluster"
)

// measureNeuronRef is measureNeuron as it was before it read the
// device and node points on demand (issue 32 item 3), kept as the
// reference TestNeuronMeasureAsBefore compares it with. It gives the Neuron holdings the activity neuron-monitor
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
func measureNeuronRef(pods []*podFacts, g gpuRead, nr *neuronRead, alloc map[string]map[string]int, w cluster.Window) neuronMeasure {
	var out neuronMeasure
	if nr == nil || g.usage == nil {
		return out
	}
	type devKey struct {
		node string
		dev  int
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
	reported := map[string]bool{}
	devices := map[devKey][]neuronPoint{}
	nodePoints := map[string][]neuronPoint{}
	for k, ps := range nr.cores {
		c := cores[k.node]
		if c <= 0 {
			continue
		}
		reported[k.node] = true
		d := devKey{k.node, k.core / c}
		devices[d] = append(devices[d], ps...)
		nodePoints[k.node] = append(nodePoints[k.node], ps...)
	}
	for d, ps := range devices {
		devices[d] = deviceMeansRef(ps, cores[d.node])
	}
	coreMem := map[neuronCore][]neuronPoint{} // bytes a core held, by time
	devMem := map[devKey][]neuronPoint{}
	nodeMem := map[string][]neuronPoint{}
	for k, ps := range nr.mem {
		c := cores[k.node]
		if c <= 0 {
			continue
		}
		sum := memSumsRef(ps)
		coreMem[k] = sum
		d := devKey{k.node, k.core / c}
		devMem[d] = append(devMem[d], sum...)
		nodeMem[k.node] = append(nodeMem[k.node], sum...)
	}
	for d, ps := range devMem {
		devMem[d] = memSumsRef(ps)
	}
	for n, ps := range nodeMem {
		nodeMem[n] = memSumsRef(ps)
	}
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
			mean = deviceMeansRef(nodePoints[p.pod.Node], heldCores[p.pod.Key()])
			memShare = scaled(nodeMem[p.pod.Node], 1/float64(held))
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
				ps = deviceMeansRef(nr.cores[neuronCore{u.node, u.core}], 1) // sorted, one point a time
				mem = coreMem[neuronCore{u.node, u.core}]
			default:
				ps, mem = devices[devKey{u.node, u.dev}], devMem[devKey{u.node, u.dev}]
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
		if !reported[n] {
			out.silent = append(out.silent, n)
		}
	}
	sort.Strings(out.silent)
	return out
}

// deviceMeansRef is deviceMeans as it was, by map: it turns a device's core points into device points: at each
// point time the cores' mean, standing for the point's seconds × the
// share of the device's cores that reported.
func deviceMeansRef(ps []neuronPoint, cores int) []neuronPoint {
	type sum struct {
		v, s float64
		n    int
	}
	at := map[float64]*sum{}
	for _, p := range ps {
		s := at[p.t]
		if s == nil {
			s = &sum{}
			at[p.t] = s
		}
		s.v += p.v
		s.s = max(s.s, p.s)
		s.n++
	}
	out := make([]neuronPoint, 0, len(at))
	for t, s := range at {
		n := min(s.n, cores)
		out = append(out, neuronPoint{t: t, v: s.v / float64(s.n), s: s.s * float64(n) / float64(cores)})
	}
	slices.SortFunc(out, func(a, b neuronPoint) int {
		switch {
		case a.t < b.t:
			return -1
		case a.t > b.t:
			return 1
		}
		return 0
	})
	return out
}

// memSumsRef is memSums as it was, by map: it adds up memory points at the same time (a core's kinds of
// use, or a device's or node's cores), each standing for the longest of
// their seconds; in time order.
func memSumsRef(ps []neuronPoint) []neuronPoint {
	at := map[float64]*neuronPoint{}
	for _, p := range ps {
		if s := at[p.t]; s != nil {
			s.v += p.v
			s.s = max(s.s, p.s)
			continue
		}
		q := p
		at[p.t] = &q
	}
	out := make([]neuronPoint, 0, len(at))
	for _, p := range at {
		out = append(out, *p)
	}
	slices.SortFunc(out, func(a, b neuronPoint) int { return cmp.Compare(a.t, b.t) })
	return out
}

// neuronInput is one generated input of measureNeuron.
type neuronInput struct {
	w     cluster.Window
	nodes []cluster.Node
	alloc map[string]map[string]int
	nr    *neuronRead
	pods  []*podFacts
}

// Neuron nodes' holders in genNeuron, by node.
const (
	neuronWhole      = iota // one pod holds every unit, the whole window
	neuronSequential        // two pods hold every unit, one after the other
	neuronLone              // one pod holds 3 units, part of the window
	neuronShared            // two pods hold 2 units each at the same time
	neuronSilent            // one pod holds every unit; no series
)

// genNeuron makes Neuron nodes of devs Trainium devices (2 NeuronCores
// each; the even nodes laid out as NeuronCore units, the odd as whole
// devices), their holders by kinds (node i's kinds[i%len(kinds)]), and
// neuron-monitor's points over days at step seconds, as the batches of a
// read commit them: each core's activity and 5 memory kinds in three
// batches of random order, with gaps (a tenth of the points missing),
// some cores that never report, a few points read twice, and a
// non-Neuron node's series. Activity values are multiples of 1/1024 and
// memory whole bytes, so that sums are exact in any order. lookback > 0
// makes the points query_range's (the step before T). The same seed
// makes the same input.
func genNeuron(seed uint64, nodes, devs int, days, step float64, lookback float64, kinds []int) neuronInput {
	rng := rand.New(rand.NewPCG(seed, 32))
	in := neuronInput{w: cluster.Window{Start: time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)}, alloc: map[string]map[string]int{},
		nr: &neuronRead{cores: map[neuronCore][]neuronPoint{}, mem: map[neuronCore][]neuronPoint{}, lookback: lookback}}
	in.w.End = in.w.Start.Add(time.Duration(days * 24 * float64(time.Hour)))
	t0, n := float64(in.w.Start.Unix()), int(days*86400/step)
	series := func(to map[neuronCore][]neuronPoint, k neuronCore, val func() float64) {
		var ps []neuronPoint
		for i := range n {
			if rng.IntN(10) == 0 {
				continue
			}
			p := neuronPoint{t0 + float64(i)*step, val(), step}
			ps = append(ps, p)
			if rng.IntN(100) == 0 {
				ps = append(ps, neuronPoint{p.t, val(), step})
			}
		}
		a, b := rng.IntN(len(ps)+1), rng.IntN(len(ps)+1)
		a, b = min(a, b), max(a, b)
		parts := [][]neuronPoint{ps[:a], ps[a:b], ps[b:]}
		rng.Shuffle(len(parts), func(i, j int) { parts[i], parts[j] = parts[j], parts[i] })
		for _, part := range parts {
			to[k] = append(to[k], part...)
		}
	}
	act := func() float64 { return float64(rng.IntN(1025)) / 1024 }
	bytes := func() float64 { return float64(rng.IntN(1 << 30)) }
	for i := range nodes {
		node := cluster.Node{Name: fmt.Sprintf("trn-%d", i), GPUModel: "Trainium"}
		if i%2 == 0 {
			node.GPUs = neuronCoreGPUs(&node, devs, 2)
			in.alloc[node.Name] = map[string]int{cluster.ResNeuron: devs, cluster.ResNeuronCore: 2 * devs}
		} else {
			for d := range devs {
				node.GPUs = append(node.GPUs, cluster.GPU{Index: d, Model: node.GPUModel, Sharing: cluster.Exclusive, Replicas: 1,
					Units: []cluster.Unit{{ID: fmt.Sprintf("%s/gpu%d", node.Name, d), Kind: cluster.WholeGPU}}})
			}
			in.alloc[node.Name] = map[string]int{cluster.ResNeuron: devs}
		}
		in.nodes = append(in.nodes, node)
		var units []string
		for _, g := range node.GPUs {
			for _, u := range g.Units {
				units = append(units, u.ID)
			}
		}
		kind := kinds[i%len(kinds)]
		hold := func(name string, from, to float64, us []string) {
			p := &podFacts{pod: cluster.Pod{Namespace: "ml", Name: fmt.Sprintf("%s-%s", node.Name, name), Node: node.Name}}
			if from > 0 {
				p.pod.Start = in.w.Start.Add(time.Duration(from * float64(in.w.End.Sub(in.w.Start))))
			}
			if to < 1 {
				p.pod.End = in.w.Start.Add(time.Duration(to * float64(in.w.End.Sub(in.w.Start))))
			}
			for _, u := range us {
				p.pod.GPUs = append(p.pod.GPUs, cluster.Holding{UnitID: u})
			}
			p.key = p.pod.Key()
			in.pods = append(in.pods, p)
		}
		switch kind {
		case neuronWhole, neuronSilent:
			hold("all", 0, 1, units)
		case neuronSequential:
			hold("first", 0, 0.4, units)
			hold("then", 0.4, 1, units)
		case neuronLone:
			hold("lone", 0.2, 0.9, units[1:4])
		case neuronShared:
			hold("a", 0, 0.7, units[:2])
			hold("b", 0.3, 1, units[2:4])
		}
		if kind == neuronSilent {
			continue
		}
		for c := range 2 * devs {
			if rng.IntN(8) == 0 {
				continue // a core that never reports
			}
			k := neuronCore{node.Name, c}
			series(in.nr.cores, k, act)
			for range neuronMemMetrics {
				series(in.nr.mem, k, bytes)
			}
		}
	}
	series(in.nr.cores, neuronCore{"gpu-1", 0}, act) // not a Neuron node's
	return in
}

// measureWith runs measure on in, with hourly bins, and gives what it
// wrote: its result, the pods' holdings and the usage's holds.
func measureWith(measure func([]*podFacts, gpuRead, *neuronRead, map[string]map[string]int, cluster.Window) neuronMeasure, in neuronInput) (neuronMeasure, [][]cluster.Holding, map[holdKey]*gpuSeries) {
	g := gpuRead{nodes: in.nodes, usage: &gpuUsage{holds: map[holdKey]*gpuSeries{}, clock: newHourClock(in.w)}}
	out := measure(in.pods, g, in.nr, in.alloc, in.w)
	var held [][]cluster.Holding
	for _, p := range in.pods {
		held = append(held, p.pod.GPUs)
	}
	return out, held, g.usage.holds
}

// TestNeuronMeasureAsBefore (issue 32 item 3): measureNeuron, reading
// device and node points on demand, writes bit for bit what the map-based
// measureNeuronRef wrote (its result, every holding's activity and
// memory, every hold's hourly bins) on generated nodes of every kind of
// holder, with gaps, cores that never report, points read twice and
// several devices per node, raw and query_range.
func TestNeuronMeasureAsBefore(t *testing.T) {
	t.Parallel()
	kinds := []int{neuronWhole, neuronSequential, neuronLone, neuronShared, neuronSilent}
	for _, lookback := range []float64{0, 60 - 0.001} {
		for seed := range uint64(4) {
			t.Run(fmt.Sprintf("lookback=%v/seed=%d", lookback, seed), func(t *testing.T) {
				t.Parallel()
				gen := func() neuronInput { return genNeuron(seed, 10, 4, 0.5, 60, lookback, kinds) }
				wantOut, wantHeld, wantHolds := measureWith(measureNeuronRef, gen())
				gotOut, gotHeld, gotHolds := measureWith(measureNeuron, gen())
				if wantOut.measured == 0 || wantOut.shared == 0 || len(wantOut.silent) == 0 || len(wantHolds) != wantOut.measured {
					t.Fatalf("reference %+v with %d holds: the input leaves a kind of holder out", wantOut, len(wantHolds))
				}
				if !reflect.DeepEqual(gotOut, wantOut) {
					t.Errorf("result %+v; want %+v", gotOut, wantOut)
				}
				for i := range wantHeld {
					if !reflect.DeepEqual(gotHeld[i], wantHeld[i]) {
						t.Errorf("pod %d holdings differ:\n got %s\nwant %s", i, holdingsText(gotHeld[i]), holdingsText(wantHeld[i]))
					}
				}
				if !reflect.DeepEqual(gotHolds, wantHolds) {
					t.Errorf("the holds' series differ (%d holds, want %d)", len(gotHolds), len(wantHolds))
				}
			})
		}
	}
}

// holdingsText is holdings' activity and memory, for a failure.
func holdingsText(hs []cluster.Holding) string {
	var b strings.Builder
	for _, h := range hs {
		fmt.Fprintf(&b, "%s:", h.UnitID)
		if a := h.Activity; a != nil {
			fmt.Fprintf(&b, " act %v/%v s", a.Mean(), a.Seconds)
		}
		if m := h.FramebufferMiB; m != nil {
			fmt.Fprintf(&b, " mem %v/%v", m.Mean(), m.Max)
		}
		b.WriteString("; ")
	}
	return b.String()
}
