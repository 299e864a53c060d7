package rightsize

import (
	"fmt"
	"sort"
	"time"

	"github.com/gpuwise/gpuwise/internal/cluster"
	"github.com/gpuwise/gpuwise/internal/nodeprice"
	"github.com/gpuwise/gpuwise/internal/pricing"
)

// Prices is what recommendations need from a price catalog: a node's
// price split per GPU, core and GiB (the pricing.Pricer every engine
// takes), and the rows a cheaper GPU model is looked up in. *pricing.Catalog
// satisfies it (with its overrides).
type Prices interface {
	pricing.Pricer
	Offers(cloud, region string) []pricing.Entry
}

// Recommend sizes every container and GPU workload of a prepared snapshot.
// It fails only on an invalid policy or snapshot; missing data, unknown
// models and unpriced nodes give skips and unpriced recommendations, never
// guesses.
func Recommend(s *cluster.Prepared, p Policy, prices Prices) (*Result, error) {
	if err := p.Validate(); err != nil {
		return nil, fmt.Errorf("invalid policy: %w", err)
	}
	if s == nil || prices == nil {
		return nil, fmt.Errorf("recommending: no snapshot or no price catalog")
	}
	if err := s.Window().Validate(); err != nil {
		return nil, fmt.Errorf("recommending: %w", err)
	}
	return newEngine(s, p, prices).recommend(), nil
}

// recommend sizes every workload.
func (e *engine) recommend() *Result {
	e.note(pricing.WarningsOf(e.prices)...)
	r := &Result{Window: e.s.Window().End.Sub(e.s.Window().Start), Containers: []ContainerRec{}, GPU: []GPURec{}, Skipped: []Skip{}}
	for _, w := range e.workloads() {
		e.containers(w, r)
		e.gpu(w, r)
	}
	r.Notes = e.notes
	r.total()
	return r
}

// engine holds the prepared snapshot and the prices seen so far.
type engine struct {
	s        *cluster.Prepared
	p        Policy
	prices   Prices
	nodes    *nodeprice.Memo
	unpriced map[string]bool // nodes whose missing price is noted
	notes    []string
	// offerMemo and priceMemo remember catalog rows per region and their
	// prices per capacity type (offers.go).
	offerMemo map[regionKey][]offer
	priceMemo map[offerPriceKey]offerPrice
}

func newEngine(s *cluster.Prepared, p Policy, prices Prices) *engine {
	return &engine{s: s, p: p, prices: prices, nodes: nodeprice.New(prices), unpriced: map[string]bool{},
		offerMemo: map[regionKey][]offer{}, priceMemo: map[offerPriceKey]offerPrice{}}
}

// price returns a node's price, nil when unpriced (noted once).
func (e *engine) price(n *cluster.Node) *pricing.NodePrice {
	p, err := e.nodes.Node(n)
	if err == nil {
		return &p
	}
	if !e.unpriced[n.Name] {
		e.unpriced[n.Name] = true
		e.notes = append(e.notes, "savings not priced: "+err.Error())
	}
	return nil
}

// workload is one owner's pods on GPU nodes over the window.
type workload struct {
	key, namespace, kind, name string
	pods                       []*cluster.Pod
	seconds                    []float64 // each pod's running seconds in the window
	totalSeconds               float64
	avgPods                    float64
	// runs and runSeconds are the pods the usage evidence is read from:
	// the union of its template's runs (template.go), else its own pods;
	// nRuns counts the template's runs (1: none) and template names it.
	runs       []*cluster.Pod
	runSeconds []float64
	nRuns      int
	template   string
}

// workloads groups the pods that ran on GPU nodes or asked for GPUs by
// owner, sorted by key. Pods that never ran in the window are left out.
func (e *engine) workloads() []*workload {
	by := map[string]*workload{}
	for i := range e.s.Pods() {
		pod := &e.s.Pods()[i]
		n := e.s.Index().Nodes[pod.Node]
		if n == nil || (!n.HasGPUs() && !pod.RequestsGPU()) {
			continue
		}
		sec := e.s.Window().Clip(pod.Start, pod.End)
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
		w.avgPods = w.totalSeconds / e.s.Window().Seconds()
		out = append(out, w)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].key < out[j].key })
	templates(out)
	return out
}

// rate is a pod-time-weighted hourly rate over the workload's nodes, and
// false when any of its pod time ran on an unpriced node.
func (e *engine) rate(w *workload, pick func(*pricing.NodePrice) float64) (float64, bool) {
	var sum float64
	for i, pod := range w.pods {
		p := e.price(e.s.Index().Nodes[pod.Node])
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
// A change that costs more (a negative figure: a CPU-starved container
// raised, a share too small for its use) is shown as such and not
// counted: it is no saving (docs/recommendations.md).
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
	r.MonthlySavingsUSD += max(usd, 0)
}

func hours(d time.Duration) float64 { return d.Hours() }
