package prom

import (
	"cmp"
	"slices"
	"sort"

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
