package packing

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/gpuwise/gpuwise/internal/cluster"
	"github.com/gpuwise/gpuwise/internal/gpushape"
	"github.com/gpuwise/gpuwise/internal/nodeprice"
	"github.com/gpuwise/gpuwise/internal/pricing"
)

// Shapes says which GPU shapes the planner packs.
type Shapes string

// Shape sources.
const (
	// CurrentShapes packs what every pod holds now: consolidation alone.
	CurrentShapes Shapes = "current"
	// RecommendedShapes packs right-sized shapes (Recommendations):
	// MIG profiles, time-slice shares, cheaper models, and right-sized
	// CPU and memory requests.
	RecommendedShapes Shapes = "recommended"
)

// DefaultMaxPods is the kubelet's default max-pods, the pod limit of a
// node whose allocatable pod count the snapshot does not have.
const DefaultMaxPods = 110

// DefaultShapes is what the planner packs unless told otherwise.
const DefaultShapes = RecommendedShapes

// Validate says whether s is a shape source.
func (s Shapes) Validate() error {
	if s != CurrentShapes && s != RecommendedShapes {
		return fmt.Errorf("shapes: %q is not one of recommended, current", s)
	}
	return nil
}

// DevClass is the time-slice class of right-sized dev workloads; a
// time-sliced GPU never mixes it with another class.
const DevClass = "dev"

// SnapshotOptions steer FromSnapshot.
type SnapshotOptions struct {
	Prices pricing.Pricer
	Shapes Shapes
	// Recs are the right-sized shapes and requests for RecommendedShapes.
	Recs *Recommendations
}

// FromSnapshot builds the packing problem of a prepared snapshot (unit
// fractions set by cluster.Prepare): the GPU nodes alive at the window's
// end, and the pods running on them then. DaemonSet pods are not planned:
// their requests are taken off each node's capacity, since they run on
// every node that stays. Pods without a controller are pinned to their
// node. CPU-only nodes and their pods are outside the plan.
func FromSnapshot(s *cluster.Prepared, o SnapshotOptions) (*Problem, error) {
	if err := o.Shapes.Validate(); err != nil && o.Shapes != "" {
		return nil, err
	}
	if o.Shapes == RecommendedShapes && o.Recs == nil {
		return nil, fmt.Errorf("recommended shapes need right-sizing results")
	}
	b := &builder{s: s, o: o, ix: s.Index(), nodes: map[string]int{}, models: map[string]bool{}, unplanned: map[string]string{}}
	if o.Prices != nil {
		b.prices = nodeprice.New(o.Prices)
	}
	b.notes = append(b.notes, pricing.WarningsOf(o.Prices)...)
	b.notes = append(b.notes, unknownConstraints(s)...)
	b.addNodes()
	b.addPods()
	b.p.Notes = append(b.p.Notes, b.notes...)
	return &b.p, nil
}

type builder struct {
	s      *cluster.Prepared
	o      SnapshotOptions
	ix     *cluster.Index
	prices *nodeprice.Memo // nil: every node unpriced
	p      Problem
	nodes  map[string]int // name → index in p.Nodes
	models map[string]bool
	// unplanned are the nodes whose GPUs DRA or HAMi allocates, with how
	// (keepAsAllocated).
	unplanned map[string]string
	notes     []string
}

func (b *builder) addNodes() {
	end := b.s.Window().End
	var gone []string
	defer func() { b.noteGone(gone) }()
	// Nodes in name order, whatever order the source listed them in: the
	// packer and the ledger break ties by position, so a snapshot file and
	// a Prometheus read of the same week (nodes sorted by name) would
	// otherwise remove different equal nodes and split the levers
	// differently (issue 26.3).
	order := make([]int, len(b.s.Nodes()))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(x, y int) int { return strings.Compare(b.s.Nodes()[x].Name, b.s.Nodes()[y].Name) })
	for _, i := range order {
		n := &b.s.Nodes()[i]
		if !n.HasGPUs() {
			continue
		}
		if !n.Deleted.IsZero() && n.Deleted.Before(end) {
			gone = append(gone, n.Name+" (deleted "+n.Deleted.UTC().Format(time.RFC3339)+")")
			continue
		}
		pods := n.Pods
		if pods == 0 {
			pods = DefaultMaxPods
		}
		pn := Node{Name: n.Name, Pool: poolOf(n), Model: modelOf(n), GPUs: len(n.GPUs), CPUMilli: n.CPUMilli,
			MemoryBytes: n.MemoryBytes, MaxPods: &pods, Labels: n.Labels, Taints: n.Taints}
		if b.prices != nil {
			if price, err := b.prices.Node(n); err == nil {
				pn.USDPerHour, pn.Priced = price.NodeUSDPerHour, true
			}
		}
		if m, notes, _, ok := gpushape.FromNode(n); ok && m.MIGCapable() {
			if b.p.Models == nil {
				b.p.Models = map[string]gpushape.Model{}
			}
			if _, seen := b.p.Models[pn.Model]; !seen {
				b.p.Models[pn.Model] = m
				b.notes = append(b.notes, notes...)
			}
		}
		pn.CurrentMIG = currentMIG(n)
		if via := UnplannedAllocation(n); via != "" {
			b.keepAsAllocated(&pn, via)
		}
		b.nodes[n.Name] = len(b.p.Nodes)
		b.models[pn.Model] = true
		b.p.Nodes = append(b.p.Nodes, pn)
	}
}

// noteGone says which GPU nodes the plan leaves out because they were
// deleted before the window's end (a reclaimed spot node): the report,
// which covers the whole window, counts them, so the node counts differ.
func (b *builder) noteGone(gone []string) {
	if len(gone) == 0 {
		return
	}
	const show = 3
	list := strings.Join(gone[:min(len(gone), show)], ", ")
	if len(gone) > show {
		list += fmt.Sprintf(" and %d more", len(gone)-show)
	}
	b.notes = append(b.notes, fmt.Sprintf("%d GPU node(s) were deleted before the window's end and are not in the plan, though the cost report (which covers the whole window) counts them: %s",
		len(gone), list))
}

// currentMIG is the MIG layout of each partitioned GPU of n.
func currentMIG(n *cluster.Node) map[int]gpushape.Layout {
	var out map[int]gpushape.Layout
	for _, g := range n.GPUs {
		for _, u := range g.Units {
			if u.Kind != cluster.MIGSlice {
				continue
			}
			if out == nil {
				out = map[int]gpushape.Layout{}
			}
			if out[g.Index] == nil {
				out[g.Index] = gpushape.Layout{}
			}
			out[g.Index][gpushape.CanonicalProfile(u.Profile)]++
		}
	}
	return out
}

func modelOf(n *cluster.Node) string {
	if n.GPUModel != "" {
		return n.GPUModel
	}
	return n.GPUs[0].Model
}

// poolOf names a node's pool: instance type, capacity type and GPU model.
func poolOf(n *cluster.Node) string {
	it := n.InstanceType
	if it == "" {
		it = "unknown-type"
	}
	pool := strings.Join([]string{it, orDash(n.Capacity), modelOf(n)}, "/")
	if c := n.Labels[cluster.ClusterLabel]; c != "" {
		return c + ":" + pool // a merged snapshot's pools stay per cluster
	}
	return pool
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

func (b *builder) addPods() {
	var recs Recommendations
	if b.o.Shapes == RecommendedShapes {
		recs = *b.o.Recs
	}
	for i := range b.s.Pods() {
		pod := &b.s.Pods()[i]
		ni, ok := b.nodes[pod.Node]
		if !ok || !pod.End.IsZero() || (pod.Phase != "" && pod.Phase != "Running") {
			continue
		}
		wk := pod.WorkloadKey()
		cpu, mem := requests(pod, wk, recs.Requests)
		if pod.Owner.Kind == "DaemonSet" {
			n := &b.p.Nodes[ni]
			n.CPUMilli, n.MemoryBytes = max(n.CPUMilli-cpu, 0), max(n.MemoryBytes-mem, 0)
			*n.MaxPods = max(*n.MaxPods-1, 0)
			continue
		}
		var rec *Reshape
		if r, ok := recs.Shapes[wk]; ok {
			rec = &r
		}
		b.p.Workloads = append(b.p.Workloads, b.workload(pod, &b.p.Nodes[ni], rec, cpu, mem))
	}
}

// requests sums a pod's CPU and memory requests, right-sized where a
// container recommendation exists for its workload's container.
func requests(pod *cluster.Pod, workload string, recs map[ContainerKey]Requests) (cpu, mem int64) {
	for _, c := range pod.Containers {
		if r, ok := recs[ContainerKey{workload, c.Name}]; ok {
			cpu, mem = cpu+r.CPUMilli, mem+r.MemoryBytes
			continue
		}
		cpu, mem = cpu+c.CPURequestMilli, mem+c.MemoryRequest
	}
	return cpu, mem
}

func (b *builder) workload(pod *cluster.Pod, n *Node, rec *Reshape, cpu, mem int64) Workload {
	w := Workload{ID: pod.Key(), Group: pod.WorkloadKey(), Node: pod.Node, CPUMilli: cpu, MemoryBytes: mem,
		Tolerations: pod.Tolerations, NodeSelector: confined(pod.NodeSelector, n.Labels)}
	cur, why := b.currentDemand(pod)
	w.Demand = cur
	if cur.Kind != NoGPU {
		w.Models = []string{n.Model}
	}
	if why != "" {
		w.Pinned, w.PinReason = true, why
	}
	if pod.Owner.Name == "" || pod.Owner.Kind == "Pod" {
		w.Pinned, w.PinReason = true, "bare pod: no controller would recreate it after a move"
	}
	if via, ok := b.unplanned[pod.Node]; ok {
		w.Tolerations = append(slices.Clone(w.Tolerations), unplannedToleration)
		if cur.Kind != NoGPU {
			w.Pinned, w.PinReason = true, "holds its GPU through "+via+", which gpuwise does not repack"
		}
		if cur.Kind == TimeSlice {
			// A shared claim's share or a HAMi vGPU is a fraction of one
			// GPU, not a replica of a node-wide time-slicing config.
			w.Demand = Demand{Kind: Shared, Milli: b.heldMilli(pod)}
		}
	}
	w.CurrentGPUs = b.currentGPUs(pod)
	w.ActiveGPUs, w.Measured = b.active(pod)
	if rec != nil && !w.Pinned {
		b.applyRec(&w, rec, n)
	}
	return w
}

// currentDemand reads the shape a pod holds now from its GPU units; a
// shape the planner cannot move (several MIG instances, units on several
// kinds) pins the pod, with the reason.
func (b *builder) currentDemand(pod *cluster.Pod) (Demand, string) {
	var whole int
	var d Demand
	for _, h := range pod.GPUs {
		ref, ok := b.ix.Units[h.UnitID]
		if !ok {
			continue
		}
		switch ref.Unit.Kind {
		case cluster.WholeGPU:
			whole++
			d = Demand{Kind: Whole, GPUs: whole}
		case cluster.MIGSlice:
			if d.Kind != "" {
				return d, "holds several MIG instances or mixed GPU units; gpuwise does not move such pods"
			}
			d = Demand{Kind: MIG, Profile: gpushape.CanonicalProfile(ref.Unit.Profile)}
		case cluster.TimeSlice:
			if d.Kind != "" {
				return d, "holds several time-slice replicas; gpuwise does not move such pods"
			}
			d = Demand{Kind: TimeSlice, Replicas: max(ref.GPU.Replicas, 2)}
		case cluster.NeuronCoreUnit:
			return Demand{Kind: Whole, GPUs: max(whole, 1)}, "holds AWS NeuronCores; gpuwise does not move such pods"
		}
	}
	if d.Kind == "" {
		return Demand{Kind: NoGPU}, ""
	}
	if d.Kind == Whole && whole != len(pod.GPUs) {
		return d, "holds whole GPUs and shared units together; gpuwise does not move such pods"
	}
	return d, ""
}

// currentGPUs are the indices of the GPUs a pod holds units on.
func (b *builder) currentGPUs(pod *cluster.Pod) []int {
	var out []int
	for _, h := range pod.GPUs {
		if ref, ok := b.ix.Units[h.UnitID]; ok && !slices.Contains(out, ref.GPU.Index) {
			out = append(out, ref.GPU.Index)
		}
	}
	slices.Sort(out)
	return out
}

// active is the pod's busy GPU-equivalents: Σ unit fraction × mean
// activity; unmeasured when any unit has no activity series.
func (b *builder) active(pod *cluster.Pod) (float64, bool) {
	if len(pod.GPUs) == 0 {
		return 0, false
	}
	var sum float64
	for _, h := range pod.GPUs {
		ref, ok := b.ix.Units[h.UnitID]
		if !ok || h.Activity == nil {
			return 0, false
		}
		m := h.Activity.Mean()
		if math.IsNaN(m) {
			return 0, false
		}
		sum += ref.Unit.Fraction * m
	}
	return sum, true
}

// applyRec sets the right-sized shape; a target model no node has keeps
// the current shape and says so.
func (b *builder) applyRec(w *Workload, r *Reshape, n *Node) {
	model := r.TargetModel
	if model == "" {
		model = n.Model
	}
	w.Current = w.Demand
	switch r.Kind {
	case ToMIG:
		if !b.models[model] {
			w.Note = fmt.Sprintf("recommended MIG %s on %s, but no node has that model: current shape kept", r.Profile, model)
			return
		}
		w.Demand, w.Models = Demand{Kind: MIG, Profile: gpushape.CanonicalProfile(r.Profile)}, []string{model}
	case ToTimeSlice:
		w.Demand = Demand{Kind: TimeSlice, Replicas: r.Replicas, Class: DevClass}
		if w.Current.Kind == TimeSlice {
			w.Current.Class = DevClass // a dev pod already shared: same class
		}
	case ToCheaperModel:
		if !b.models[model] {
			w.Note = fmt.Sprintf("recommended cheaper model %s, but no node has it: current shape kept (add a %s pool to take this saving)", model, model)
			return
		}
		w.Demand, w.Models = Demand{Kind: Whole, GPUs: max(r.GPUsPerPod, 1)}, []string{model}
	default:
		return
	}
	if w.Demand == w.Current {
		w.Current = Demand{}
	}
	w.Note = r.Reason
}

// unplannedTaint keeps the planner's other workloads off a node whose
// GPUs DRA or HAMi allocates (its pods tolerate it): such GPUs are not
// offered as nvidia.com/gpu, so no device-plugin pod could move there.
// It exists in the problem only, never on a node.
var (
	unplannedTaint      = cluster.Taint{Key: UnplannedTaintKey, Effect: "NoSchedule"}
	unplannedToleration = cluster.Toleration{Key: unplannedTaint.Key, Operator: "Exists", Effect: "NoSchedule"}
)

// UnplannedTaintKey is the key of unplannedTaint: a problem node that
// carries it is one whose GPUs DRA or HAMi allocates, kept as it is.
const UnplannedTaintKey = "gpuwise.io/unplanned-allocation"

// UnplannedAllocation says how a node's GPUs are allocated when it is a
// way the planner does not repack: "DRA ResourceClaims" (a DRA driver's
// devices: the claims, not a device-plugin count, say who holds what) or
// "HAMi vGPUs" (HAMi's scheduler places its fractions) or "AWS
// NeuronCores" (Neuron devices offered core by core); "" otherwise.
func UnplannedAllocation(n *cluster.Node) string {
	for _, g := range n.GPUs {
		switch {
		case g.Allocator == cluster.DRA:
			return "DRA ResourceClaims"
		case g.Sharing == cluster.HAMi:
			return "HAMi vGPUs"
		case g.Sharing == cluster.NeuronCores:
			return "AWS NeuronCores"
		}
	}
	return ""
}

// keepAsAllocated keeps a DRA or HAMi node as it is: it stays, its GPU
// pods are pinned to it with their shapes (workload), and no other
// workload is placed on it (unplannedTaint).
func (b *builder) keepAsAllocated(pn *Node, via string) {
	pn.Keep, pn.KeepReason = true, "its GPUs are allocated through "+via+", which gpuwise does not repack"
	pn.Taints = append(slices.Clone(pn.Taints), unplannedTaint)
	b.unplanned[pn.Name] = via
}

// heldMilli is the thousandths of one GPU a pod's units are (1–999).
func (b *builder) heldMilli(pod *cluster.Pod) int64 {
	var f float64
	for _, h := range pod.GPUs {
		if ref, ok := b.ix.Units[h.UnitID]; ok {
			f += ref.Unit.Fraction
		}
	}
	return min(max(int64(math.Round(f*MilliPerGPU)), 1), MilliPerGPU-1)
}
