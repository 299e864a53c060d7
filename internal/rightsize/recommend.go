package rightsize

import (
	"fmt"
	"sort"
	"time"

	"github.com/gpuwise/gpuwise/internal/cluster"
	"github.com/gpuwise/gpuwise/internal/cost"
	"github.com/gpuwise/gpuwise/internal/pricing"
)

// HoursPerMonth turns hourly savings into monthly ones (365 × 24 / 12).
const HoursPerMonth = cost.HoursPerMonth

// Prices is what recommendations need from a price catalog: a node's
// price split per GPU, core and GiB, and the rows a cheaper GPU model is
// looked up in. *pricing.Catalog satisfies it (with its overrides).
type Prices interface {
	Price(n pricing.NodeSpec) (pricing.NodePrice, error)
	Offers(cloud, region string) []pricing.Entry
}

// Recommend sizes every container and GPU workload of a prepared snapshot
// (cluster.Prepare has set unit fractions). It fails only on an invalid
// policy or snapshot; missing data, unknown models and unpriced nodes give
// skips and unpriced recommendations, never guesses.
func Recommend(s *cluster.Snapshot, p Policy, prices Prices) (*Result, error) {
	if err := p.Validate(); err != nil {
		return nil, fmt.Errorf("invalid policy: %w", err)
	}
	if s == nil || prices == nil {
		return nil, fmt.Errorf("recommending: no snapshot or no price catalog")
	}
	if err := s.Window.Validate(); err != nil {
		return nil, fmt.Errorf("recommending: %w", err)
	}
	e := newEngine(s, p, prices)
	e.note(pricing.WarningsOf(prices)...)
	r := &Result{Window: s.Window.End.Sub(s.Window.Start), Containers: []ContainerRec{}, GPU: []GPURec{}, Skipped: []Skip{}}
	for _, w := range e.workloads() {
		e.containers(w, r)
		e.gpu(w, r)
	}
	r.Notes = e.notes
	r.total()
	return r, nil
}

// engine holds the snapshot's indexes and the prices seen so far.
type engine struct {
	s      *cluster.Snapshot
	p      Policy
	prices Prices
	nodes  map[string]*cluster.Node
	units  map[string]unitRef
	priced map[string]*pricing.NodePrice
	notes  []string
}

// unitRef locates a GPU unit.
type unitRef struct {
	node *cluster.Node
	gpu  *cluster.GPU
	unit *cluster.Unit
}

func newEngine(s *cluster.Snapshot, p Policy, prices Prices) *engine {
	e := &engine{s: s, p: p, prices: prices, nodes: map[string]*cluster.Node{},
		units: map[string]unitRef{}, priced: map[string]*pricing.NodePrice{}}
	for i := range s.Nodes {
		n := &s.Nodes[i]
		e.nodes[n.Name] = n
		for j := range n.GPUs {
			g := &n.GPUs[j]
			for k := range g.Units {
				e.units[g.Units[k].ID] = unitRef{node: n, gpu: g, unit: &g.Units[k]}
			}
		}
	}
	return e
}

// price returns a node's price, nil when unpriced (noted once).
func (e *engine) price(n *cluster.Node) *pricing.NodePrice {
	if p, seen := e.priced[n.Name]; seen {
		return p
	}
	var out *pricing.NodePrice
	if p, err := e.prices.Price(cost.NodeSpec(n)); err == nil {
		out = &p
	} else {
		e.notes = append(e.notes, "savings not priced: "+err.Error())
	}
	e.priced[n.Name] = out
	return out
}

// workload is one owner's pods on GPU nodes over the window.
type workload struct {
	key, namespace, kind, name string
	pods                       []*cluster.Pod
	seconds                    []float64 // each pod's running seconds in the window
	totalSeconds               float64
	avgPods                    float64
}

// workloads groups the pods that ran on GPU nodes or asked for GPUs by
// owner, sorted by key. Pods that never ran in the window are left out.
func (e *engine) workloads() []*workload {
	by := map[string]*workload{}
	for i := range e.s.Pods {
		pod := &e.s.Pods[i]
		n := e.nodes[pod.Node]
		if n == nil || (!n.HasGPUs() && !pod.RequestsGPU()) {
			continue
		}
		sec := e.s.Window.Clip(pod.Start, pod.End)
		if sec <= 0 {
			continue
		}
		k := pod.WorkloadKey()
		w := by[k]
		if w == nil {
			w = &workload{key: k, namespace: pod.Namespace, kind: pod.Owner.Kind, name: pod.Owner.Name}
			if w.name == "" {
				w.kind, w.name = "Pod", pod.Name
			}
			by[k] = w
		}
		w.pods = append(w.pods, pod)
		w.seconds = append(w.seconds, sec)
		w.totalSeconds += sec
	}
	out := make([]*workload, 0, len(by))
	for _, w := range by {
		w.avgPods = w.totalSeconds / e.s.Window.Seconds()
		out = append(out, w)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].key < out[j].key })
	return out
}

// rate is a pod-time-weighted hourly rate over the workload's nodes, and
// false when any of its pod time ran on an unpriced node.
func (e *engine) rate(w *workload, pick func(*pricing.NodePrice) float64) (float64, bool) {
	var sum float64
	for i, pod := range w.pods {
		p := e.price(e.nodes[pod.Node])
		if p == nil {
			return 0, false
		}
		sum += pick(p) * w.seconds[i]
	}
	return sum / w.totalSeconds, true
}

// latest is the pod that started last: its spec is the workload's current
// one.
func (w *workload) latest() *cluster.Pod {
	best := w.pods[0]
	for _, p := range w.pods[1:] {
		if p.Start.After(best.Start) {
			best = p
		}
	}
	return best
}

// total sums the priced savings and counts the unpriced recommendations.
func (r *Result) total() {
	for _, c := range r.Containers {
		r.add(c.MonthlySavingsUSD, c.Priced)
	}
	for _, g := range r.GPU {
		r.add(g.MonthlySavingsUSD, g.Priced)
	}
	r.MonthlySavingsUSD = roundCents(r.MonthlySavingsUSD)
}

func (r *Result) add(usd float64, priced bool) {
	if !priced {
		r.Unpriced++
		return
	}
	r.MonthlySavingsUSD += usd
}

func hours(d time.Duration) float64 { return d.Hours() }
