package packing

import (
	"cmp"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/gpuwise/gpuwise/internal/gpushape"
)

// maxEmptyAttempts bounds the emptying pass: nodes tried, most expensive
// and least filled first.
const maxEmptyAttempts = 2000

// work is a workload as the packer sees it.
type work struct {
	w       *Workload
	d       Demand // the shape being placed (Demand, or Current when pinned)
	prof    string // canonical MIG profile
	cls     int32  // time-slice class id
	sig     int    // eligibility signature
	cpu     int64
	mem     int64
	frac    float64
	perNode bool                // the selector names per-node labels: check every node
	hostSel map[string][]string // those selector terms
	only    []int               // the nodes those terms name, when they name nodes
	pinned  bool
	// asIs marks a stand-in with the workload's current shape, on its
	// current GPU model but any node.
	asIs bool
	// models are the allowed GPU models; nil for a pinned workload, whose
	// node (where it runs now) decides.
	models []string
}

// class is a set of interchangeable nodes (same model, GPUs, capacity,
// price, taints and scheduling labels), in keep-preference order.
type class struct {
	key     string
	rep     int   // a representative node
	nodes   []int // all, in order
	next    int   // first possibly unopened position in nodes
	open    []int // opened, not closed, in opening order
	gpuOpen []int // opened, not closed, not GPU-full
}

type solver struct {
	p       *Problem
	ms      models
	nodes   []node
	works   []work
	classes []class
	sigs    map[string]int
	names   map[string]bool // node names, to spot per-node selector values
	tsCls   map[string]int32
	ids     map[string]int // workload id → index, for the plan
	// asIs holds the planned-shape work of workloads placed with their
	// current shape by the emptying pass.
	asIs map[int32]work
	// revertWhy says why a workload keeps its current shape (a stand-in
	// work with asIs set) by the shape choice rather than by the packer.
	revertWhy map[int32]string
	nodeIdx   map[string]int
	// fallbackWhy holds, per workload placed with its current shape on its
	// current node, why its new shape fit nowhere.
	fallbackWhy map[int32]string
	elig        [][]int // signature → eligible classes, preference order
	order       []int32 // FFD order of works
	slots       []slot
	buf         []int16
	cand        []*Node // explain's candidates, reused
	// explained remembers explain's answers (explain.go).
	explained map[explainKey]string
}

func usd(v float64) string { return "$" + strconv.FormatFloat(v, 'f', 2, 64) }

// solve packs p once. Workloads named in revert keep their current shape
// (on their current GPU model, any node), for the reason given.
func solve(p *Problem, revert map[string]string) (*Plan, error) {
	s := newSolver(p, revert)
	slots := s.pass()
	// A workload pinned to its current node after the fact may find the
	// node taken; pinned ones go first in a new pass.
	for range 2 {
		if !s.strandedPinned(slots) {
			break
		}
		slots = s.pass()
	}
	s.empty()
	final := s.fewerDisruptions(s.relabel(s.snapshotSlots()))
	s.revertLonely(final)
	final = s.placeStragglers(final)
	pl := s.plan(final)
	if err := pl.Check(); err != nil {
		return nil, fmt.Errorf("packing: the plan failed its own check (a gpuwise bug; please report it): %w", err)
	}
	return pl, nil
}

// fewerDisruptions re-packs the kept nodes so that fewer running pods are
// disturbed: every pod that keeps its node and shape on its own GPUs
// first; if that does not fit, only the pods of GPUs they fill (a
// partly used MIG GPU is the one to re-cut); then pods on their node,
// any GPU. The packing with the fewest disruptions wins.
func (s *solver) fewerDisruptions(final []slot) []slot {
	best := s.disruptions(final)
	full := s.fullGPUs()
	for _, own := range []func(int32) bool{
		func(int32) bool { return true },
		func(wi int32) bool { return full[wi] },
		func(int32) bool { return false },
	} {
		again, ok, owned := s.sticky(final, own)
		if ok {
			if d := s.disruptions(again); d < best {
				final, best = again, d
			}
			break
		}
		if owned == 0 {
			break // the next tries would pack the same way
		}
	}
	return final
}

// fullGPUs marks the workloads on a MIG GPU whose current layout they
// fill (no free instance): GPUs worth keeping as they are.
func (s *solver) fullGPUs() map[int32]bool {
	type gk struct {
		node string
		gpu  int
	}
	held := map[gk]gpushape.Layout{}
	for wi := range s.works {
		w := s.works[wi].w
		if d := w.current(); d.Kind == MIG && len(w.CurrentGPUs) == 1 {
			k := gk{w.Node, w.CurrentGPUs[0]}
			if held[k] == nil {
				held[k] = gpushape.Layout{}
			}
			held[k][gpushape.CanonicalProfile(d.Profile)]++
		}
	}
	out := map[int32]bool{}
	for wi := range s.works {
		w := s.works[wi].w
		if len(w.CurrentGPUs) != 1 {
			continue
		}
		k := gk{w.Node, w.CurrentGPUs[0]}
		if ni, ok := s.nodeIndex(w.Node); ok && held[k] != nil && maps.Equal(held[k], s.nodes[ni].CurrentMIG[k.gpu]) {
			out[int32(wi)] = true
		}
	}
	return out
}

func newSolver(p *Problem, revert map[string]string) *solver {
	s := &solver{p: p, ms: models{over: p.Models}, sigs: map[string]int{}, revertWhy: map[int32]string{}, explained: map[explainKey]string{}}
	s.nodes = make([]node, len(p.Nodes))
	for i := range p.Nodes {
		n := &p.Nodes[i]
		s.nodes[i] = node{Node: n, m: s.ms.get(n.Model), gpus: make([]gpu, n.GPUs)}
		s.nodes[i].reset()
	}
	s.buildClasses()
	s.names = make(map[string]bool, len(p.Nodes))
	for i := range p.Nodes {
		s.names[p.Nodes[i].Name] = true
	}
	s.works = make([]work, len(p.Workloads))
	s.tsCls = map[string]int32{}
	for i := range p.Workloads {
		w := &p.Workloads[i]
		s.works[i] = s.newWork(w, w.Pinned)
		if why, ok := revert[w.ID]; ok && !w.Pinned && reshaped(w) {
			s.works[i] = s.currentWork(s.works[i])
			s.revertWhy[int32(i)] = why
		}
	}
	s.slots = make([]slot, len(s.works))
	return s
}

// newWork prepares a workload; pinned ones keep their current shape on
// their current node.
func (s *solver) newWork(w *Workload, pinned bool) work {
	k := work{w: w, d: w.Demand, cpu: w.CPUMilli, mem: w.MemoryBytes, pinned: pinned, models: w.Models}
	if pinned {
		k.d, k.models = w.current(), nil
	}
	k.prof = gpushape.CanonicalProfile(k.d.Profile)
	if k.d.Kind == TimeSlice {
		k.cls = s.classID(k.d.Class)
	}
	k.frac = k.d.Fraction(s.ms.get(firstOr(k.models, "")).Model)
	if k.d.Kind == MIG {
		k.frac = s.migFraction(k.prof, k.models)
	}
	for key, vals := range w.NodeSelector {
		if perNodeKey(key) || slices.ContainsFunc(vals, func(v string) bool { return s.names[v] }) {
			k.perNode = true
			if k.hostSel == nil {
				k.hostSel = map[string][]string{}
			}
			k.hostSel[key] = vals
			for _, v := range vals {
				if ni, ok := s.nodeIndex(v); ok {
					k.only = append(k.only, ni)
				}
			}
		}
	}
	k.sig = s.signature(&k)
	return k
}

func firstOr(xs []string, def string) string {
	if len(xs) > 0 {
		return xs[0]
	}
	return def
}

// migFraction sizes a MIG demand for ordering on the first allowed model
// that has the profile.
func (s *solver) migFraction(prof string, allowed []string) float64 {
	for i := range s.nodes {
		m := s.nodes[i].m
		if !modelAllowed(allowed, m.Name) {
			continue
		}
		if pi := m.profileIndex(prof); pi >= 0 {
			return m.Fraction(m.Profiles[pi])
		}
	}
	return 0
}

// buildClasses groups nodes into classes and orders classes by keep
// preference: price per GPU (unpriced nodes first: their cost is sunk or
// unknown, so gpuwise never claims savings from removing them), then more
// GPUs, then the key; nodes in a class by name.
func (s *solver) buildClasses() {
	idx := map[string]int{}
	for i := range s.nodes {
		k := classKey(s.nodes[i].Node)
		c, ok := idx[k]
		if !ok {
			c = len(s.classes)
			idx[k] = c
			s.classes = append(s.classes, class{key: k, rep: i})
		}
		s.classes[c].nodes = append(s.classes[c].nodes, i)
	}
	slices.SortStableFunc(s.classes, func(a, b class) int {
		na, nb := s.nodes[a.rep].Node, s.nodes[b.rep].Node
		return cmp.Or(cmp.Compare(perGPU(na), perGPU(nb)), cmp.Compare(cpuPerGPU(nb), cpuPerGPU(na)), cmp.Compare(nb.GPUs, na.GPUs), strings.Compare(a.key, b.key))
	})
	for ci := range s.classes {
		c := &s.classes[ci]
		slices.SortFunc(c.nodes, func(a, b int) int { return strings.Compare(s.nodes[a].Name, s.nodes[b].Name) })
		for _, ni := range c.nodes {
			s.nodes[ni].class = ci
		}
	}
}

func perGPU(n *Node) float64 {
	if !n.Priced {
		return 0
	}
	return n.USDPerHour / float64(max(n.GPUs, 1))
}

// cpuPerGPU is the CPU a node has per GPU: among equally priced nodes,
// those that can feed more pods per GPU come first.
func cpuPerGPU(n *Node) float64 { return float64(n.CPUMilli) / float64(max(n.GPUs, 1)) }

func classKey(n *Node) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s|%s|%d|%d|%d|%g|%v|", n.Pool, n.Model, n.GPUs, n.CPUMilli, n.MemoryBytes, n.USDPerHour, n.Priced)
	if n.MaxPods != nil {
		fmt.Fprintf(&b, "pods=%d|", *n.MaxPods)
	}
	for _, t := range n.Taints {
		b.WriteString(t.Key + "=" + t.Value + ":" + t.Effect + ",")
	}
	keys := make([]string, 0, len(n.Labels))
	for k, v := range n.Labels {
		if !perNodeLabel(k, v, n.Name) {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys)
	for _, k := range keys {
		b.WriteString("|" + k + "=" + n.Labels[k])
	}
	if n.Keep {
		b.WriteString("|keep:" + n.Name)
	}
	return b.String()
}

// signature keys the static eligibility of a workload: shape kind and
// size, allowed models, tolerations and selector.
func (s *solver) signature(k *work) int {
	w := k.w
	var b strings.Builder
	fmt.Fprintf(&b, "%s|%d|%s|%d|%v|", k.d.Kind, k.d.GPUs, k.prof, k.d.Replicas, k.models)
	for _, t := range w.Tolerations {
		b.WriteString(t.Key + "/" + t.Operator + "/" + t.Value + "/" + t.Effect + ",")
	}
	sel := make([]string, 0, len(w.NodeSelector))
	for key, vals := range w.NodeSelector {
		sel = append(sel, key+"="+strings.Join(vals, ","))
	}
	slices.Sort(sel)
	b.WriteString(strings.Join(sel, ";"))
	key := b.String()
	if id, ok := s.sigs[key]; ok {
		return id
	}
	id := len(s.elig)
	s.sigs[key] = id
	var el []int
	for ci := range s.classes {
		if s.staticReason(k, s.nodes[s.classes[ci].rep].Node, false) == "" {
			el = append(el, ci)
		}
	}
	s.elig = append(s.elig, el)
	return id
}

// staticReason is why a node can never hold the workload, or "": GPU
// model, MIG profile, GPU count, taints, selector, CPU and memory capacity.
// perNode includes the selector's per-node labels.
func (s *solver) staticReason(k *work, n *Node, perNode bool) string {
	w := k.w
	if k.d.Kind != NoGPU {
		if n.GPUs == 0 {
			return "node has no GPUs"
		}
		if !modelAllowed(k.models, n.Model) {
			return "GPU model " + n.Model + " not in " + strings.Join(k.models, "|")
		}
	}
	switch k.d.Kind {
	case Whole:
		if n.GPUs < k.d.GPUs {
			return fmt.Sprintf("%d GPUs on the node, the pod needs %d", n.GPUs, k.d.GPUs)
		}
	case MIG:
		if s.ms.get(n.Model).profileIndex(k.prof) < 0 {
			return fmt.Sprintf("%s has no MIG profile %s", n.Model, k.d.Profile)
		}
	}
	if t := untolerated(n.Taints, w.Tolerations); t != nil {
		return fmt.Sprintf("taint %s=%s:%s not tolerated", t.Key, t.Value, t.Effect)
	}
	sel := w.NodeSelector
	if !perNode && k.perNode {
		sel = sharedTerms(sel, n)
	}
	if term := unmatched(sel, n.Labels); term != "" {
		return "node selector " + term + " not matched"
	}
	if k.cpu > n.CPUMilli {
		return fmt.Sprintf("requests %dm CPU, the node has %dm for workloads", k.cpu, n.CPUMilli)
	}
	if k.mem > n.MemoryBytes {
		return fmt.Sprintf("requests %s memory, the node has %s for workloads", gib(k.mem), gib(n.MemoryBytes))
	}
	if n.MaxPods != nil && *n.MaxPods < 1 {
		return "no pod slot left beside its DaemonSets"
	}
	return ""
}

func sharedTerms(sel map[string][]string, n *Node) map[string][]string {
	out := make(map[string][]string, len(sel))
	for k, v := range sel {
		if !perNodeLabel(k, n.Labels[k], n.Name) {
			out[k] = v
		}
	}
	return out
}

func gib(b int64) string {
	return strconv.FormatFloat(float64(b)/(1<<30), 'f', 1, 64) + " GiB"
}

// classID numbers time-slice classes; the unclassified "" is -1 (it goes
// with any class).
func (s *solver) classID(class string) int32 {
	if class == "" {
		return -1
	}
	id, ok := s.tsCls[class]
	if !ok {
		id = int32(len(s.tsCls))
		s.tsCls[class] = id
	}
	return id
}

// nodeModel is the GPU model of a node by name ("" when unknown).
func (s *solver) nodeModel(name string) string {
	if i, ok := s.nodeIndex(name); ok {
		return s.nodes[i].Model
	}
	return ""
}

func (s *solver) nodeIndex(name string) (int, bool) {
	if s.nodeIdx == nil {
		s.nodeIdx = make(map[string]int, len(s.nodes))
		for i := range s.nodes {
			s.nodeIdx[s.nodes[i].Name] = i
		}
	}
	i, ok := s.nodeIdx[name]
	return i, ok
}

// eligible reports whether node ni can ever hold the workload: its class
// is eligible for the signature and the per-node selector terms match.
func (s *solver) eligible(k *work, ni int) bool {
	n := &s.nodes[ni]
	if !slices.Contains(s.elig[k.sig], n.class) {
		return false
	}
	for key, vals := range k.hostSel {
		v, ok := n.Labels[key]
		if !ok || (len(vals) > 0 && !slices.Contains(vals, v)) {
			return false
		}
	}
	return true
}

// strandedPinned reports a pinned workload left unplaced while its node
// may have had room before other workloads took it.
func (s *solver) strandedPinned(slots []slot) bool {
	for wi, sl := range slots {
		if sl.node < 0 && s.works[wi].pinned && !s.works[wi].w.Pinned {
			return true
		}
	}
	return false
}
