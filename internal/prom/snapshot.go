package prom

import (
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/gpuwise/gpuwise/internal/cluster"
)

// assembly is everything the stages of a build read.
type assembly struct {
	nodeFacts, podFacts factSet
	pods                []*podFacts
	gpu                 gpuRead
	ctr                 ctrRead
	serve               serveRead
	// hami is what HAMi's scheduler and vGPU monitor exported (hami.go);
	// empty without HAMi.
	hami hamiSources
	// neuron is neuron-monitor's core activity (neuron.go); empty
	// without Neuron nodes.
	neuron *neuronRead
	// gaudi is Intel's Gaudi exporter's device usage (gaudi.go); empty
	// without Gaudi nodes.
	gaudi *gaudiRead
}

// hamiSources are HAMi's scheduler grants and vGPU monitor usage.
type hamiSources struct {
	facts factSet
	usage hamiUsage
}

// assemble puts nodes, pods and usage together and writes the
// data-quality notes and what is missing.
func (r *reader) assemble(a assembly) (*cluster.Snapshot, error) {
	s := &cluster.Snapshot{
		Window:         r.w,
		Source:         "prometheus " + r.url,
		ActivityMetric: a.gpu.metric,
		Nodes:          a.gpu.nodes,
	}
	// Containers' usage goes in beside the GPU holdings (other fields of
	// the pods), on the other core: Prometheus has nothing left to do.
	if a.podFacts.facts["kube_pod_container_resource_requests"].len() == 0 {
		measured := containersByPod(a.ctr.usage)
		for _, p := range a.pods {
			addMeasuredContainers(&p.pod, measured[p.key])
		}
	}
	attached := async(func() struct{} {
		for _, p := range a.pods {
			attachContainers(&p.pod, a.ctr.usage)
		}
		return struct{}{}
	})
	endNodes(s.Nodes, a.nodeFacts.facts, r.w, r.opts.InfoStep)
	held, conflicts, cuts := attachMeasured(a.pods, a.gpu, r.w)
	unplaced := placeUnmeasured(a.pods, a.gpu, held, r.w)
	nm := measureNeuron(a.pods, a.gpu, a.neuron, gpuResources(a.nodeFacts.facts), r.w)
	_, nm.gaudiUnmeasured = measureGaudi(a.pods, a.gpu, a.gaudi, r.w)
	attached()
	if len(a.pods) > 0 {
		s.Pods = make([]cluster.Pod, 0, len(a.pods))
	}
	for _, p := range a.pods {
		s.Pods = append(s.Pods, p.pod)
	}
	hamiNotes := applyHAMi(s, readHAMi(a.hami.facts), gpuResources(a.nodeFacts.facts), a.gpu.usage)
	hamiNotes = append(hamiNotes, measureHAMi(s, a.hami.usage, a.gpu.usage)...)
	if f := a.hami.facts.failed; len(f) > 0 {
		hamiNotes = append(hamiNotes, fmt.Sprintf("%d of %d reads of HAMi's scheduler grants failed (%v): HAMi GPUs may be laid out as the device plugin's", len(f), a.hami.facts.queries, f[0].Err))
	}
	s.Notes = notes(s, a, conflicts, r.opts.Step)
	s.Notes = append(s.Notes, hamiNotes...)
	s.Notes = append(s.Notes, estimateNotes(a, cuts, r.opts.InfoStep)...)
	if note := acceleratorNote(s.Nodes, nm); note != "" {
		s.Notes = append(s.Notes, note)
	}
	schedPartial := schedulingNotes(s, a.podFacts)
	s.Unknown = append(s.Unknown, lifeFacts(a)...)
	var hourlyNotes []string
	s.Hourly, s.HourSums, hourlyNotes = hourlyOf(s, a, r.opts.HourSums)
	s.Notes = append(s.Notes, hourlyNotes...)
	s.Partial = append(append(r.missing(a), unplacedPartial(unplaced)...), schedPartial...)
	if len(s.Partial) == 0 {
		return s, nil
	}
	failed := append(append(errorsOf(a.gpu.failed), errorsOf(a.ctr.failed)...), errorsOf(a.serve.failed)...)
	total := a.nodeFacts.queries + a.podFacts.queries + a.gpu.queries + a.ctr.queries + a.serve.queries
	return s, &PartialError{Missing: s.Partial, Failed: failed, Total: total}
}

// attachMeasured gives pods the holdings DCGM attributed to them, once
// cutEstimated has fitted estimated lives between the unit's other
// holders; it counts holdings left out for overlapping another on the
// same unit, and the estimated lives it cut.
func attachMeasured(pods []*podFacts, g gpuRead, w cluster.Window) (map[string][]interval, int, int) {
	byPod := map[string][]holdKey{}
	for k := range g.usage.holds {
		byPod[k.pod] = append(byPod[k.pod], k)
	}
	cuts := cutEstimated(pods, byPod, g.units)
	held := map[string][]interval{}
	conflicts := 0
	for _, p := range pods {
		ks := byPod[p.pod.Key()]
		sort.Slice(ks, func(i, j int) bool { return ks[i].unit < ks[j].unit })
		for _, k := range ks {
			ref := g.units.units[k.unit]
			if ref.Node == nil || ref.Node.Name != p.pod.Node {
				continue
			}
			if overlaps(held[k.unit], p.interval(w)) {
				conflicts++ // a reused pod name, or labels from a stale pod-resources answer
				continue
			}
			u := g.usage.holds[k]
			p.pod.GPUs = append(p.pod.GPUs, cluster.Holding{UnitID: k.unit, Activity: u.act, SMActive: u.sm, FramebufferMiB: u.fb})
			held[k.unit] = append(held[k.unit], p.interval(w))
		}
	}
	return held, conflicts, cuts
}

// lifeFacts are the pod facts the read could not measure (issue 31): the
// owners when kube_pod_owner is missing, or kube_replicaset_owner while
// pods are owned by ReplicaSets; the lifetimes when kube_pod_start_time is
// missing, or kube_pod_completion_time while pods ended. What rests on
// them (the reclaim lever's idle stretches per workload) is not decided.
func lifeFacts(a assembly) []string {
	if len(a.pods) == 0 {
		return nil
	}
	var out []string
	pf := a.podFacts.facts
	owners := pf["kube_pod_owner"].len() > 0
	ended := false
	for _, p := range a.pods {
		if p.pod.Owner.Kind == "ReplicaSet" && pf["kube_replicaset_owner"].len() == 0 {
			owners = false
		}
		if p.endEst && !p.pod.End.IsZero() {
			ended = true
		}
	}
	if !owners {
		out = append(out, cluster.FactOwners)
	}
	if pf["kube_pod_start_time"].len() == 0 || (pf["kube_pod_completion_time"].len() == 0 && ended) {
		out = append(out, cluster.FactPodLifetimes)
	}
	return out
}

// estimateNotes names the pod lives estimated from kube_pod_info's
// sightings where a whole family is missing (kube_pod_completion_time is
// not in expected: a cluster whose pods all ran on has none) and the
// estimated lives cutEstimated cut.
func estimateNotes(a assembly, cuts int, infoStep time.Duration) []string {
	var out []string
	if a.podFacts.facts["kube_pod_completion_time"].len() == 0 {
		ended := 0
		for _, p := range a.pods {
			if p.endEst && !p.pod.End.IsZero() {
				ended++
			}
		}
		if ended > 0 {
			out = append(out, fmt.Sprintf("no kube_pod_completion_time series in the window: the ends of %d pod(s) that ended are estimated as %s after kube_pod_info last saw them (never early, up to %s late), or at the next pod DCGM measured on the same GPU unit",
				ended, infoStep, 2*infoStep))
		}
	}
	if cuts > 0 {
		out = append(out, fmt.Sprintf("%d estimated pod life/lives (start or end from kube_pod_info's sightings) were cut where they overlapped the previous or next pod DCGM measured on the same GPU unit", cuts))
	}
	return out
}

// cutEstimated ends an estimated life (no kube_pod_completion_time) at
// the measured start of the next pod DCGM saw on the same GPU unit, and
// starts an estimated life (no kube_pod_start_time) at the measured end
// of the previous one: a unit has one holder at a time, and an estimate
// that overlaps a measured holding is the estimate's error. Where both
// sides are estimated they meet half-way. A pod last seen in the
// window's last info step has an open estimated end (it may have ended
// in that step): the next holder's start ends it. It returns how many
// lives it cut.
func cutEstimated(pods []*podFacts, byPod map[string][]holdKey, ix unitIndex) int {
	onUnit := map[string][]*podFacts{}
	estimated := false
	for _, p := range pods {
		estimated = estimated || p.startEst || p.endEst
		for _, k := range byPod[p.key] {
			if ref := ix.units[k.unit]; ref.Node != nil && ref.Node.Name == p.pod.Node {
				onUnit[k.unit] = append(onUnit[k.unit], p)
			}
		}
	}
	if !estimated {
		return 0
	}
	units := make([]string, 0, len(onUnit))
	for u := range onUnit {
		units = append(units, u)
	}
	sort.Strings(units)
	cut := map[*podFacts]bool{}
	for _, u := range units {
		ps := onUnit[u]
		sort.SliceStable(ps, func(i, j int) bool { return ps[i].pod.Start.Before(ps[j].pod.Start) })
		for i := 0; i+1 < len(ps); i++ {
			a, b := ps[i], ps[i+1]
			open := a.pod.End.IsZero()
			if open && !a.endEst || !open && !b.pod.Start.Before(a.pod.End) || !a.endEst && !b.startEst {
				continue // no overlap, or both measured (a conflict attachMeasured counts)
			}
			at := b.pod.Start
			switch {
			case a.endEst && b.startEst && !open:
				at = b.pod.Start.Add(a.pod.End.Sub(b.pod.Start) / 2)
			case !a.endEst:
				at = a.pod.End
			}
			if a.endEst && at.After(a.pod.Start) && (open || at.Before(a.pod.End)) {
				a.pod.End, cut[a] = at, true
			}
			if b.startEst && at.After(b.pod.Start) && (b.pod.End.IsZero() || at.Before(b.pod.End)) {
				b.pod.Start, cut[b] = at, true
			}
		}
	}
	return len(cut)
}

// interval is a pod's life clipped to the window.
type interval struct{ from, to time.Time }

func (p *podFacts) interval(w cluster.Window) interval {
	from, to, _ := w.Interval(p.pod.Start, p.pod.End)
	return interval{from, to}
}

// placeUnmeasured gives GPU pods that DCGM did not attribute (exporter
// down, labels missing) free units of the kind they requested on their
// node: allocation stays right, and their holdings are unmeasured. It
// returns the pods it could not place.
func placeUnmeasured(pods []*podFacts, g gpuRead, held map[string][]interval, w cluster.Window) []string {
	var unplaced []string
	order := append([]*podFacts(nil), pods...)
	sort.SliceStable(order, func(i, j int) bool { return order[i].pod.Start.Before(order[j].pod.Start) })
	for _, p := range order {
		if p.pod.Node == "" {
			continue // never scheduled: it held nothing
		}
		if iv := p.interval(w); !iv.to.After(iv.from) {
			continue // not alive in the window: it held nothing in it, and a unit given here could clash with its real one
		}
		want := map[string]int64{}
		for i := range p.pod.Containers { // by index: attachContainers sets other fields meanwhile
			for r, n := range p.pod.Containers[i].GPURequests {
				want[r] += n
			}
		}
		for _, r := range slices.Sorted(maps.Keys(want)) {
			n := want[r]
			if devs := coreDevices(g.nodes, p.pod.Node, r); devs != nil {
				if !placeDevices(&p.pod, devs, n, p.interval(w), held) {
					unplaced = append(unplaced, p.pod.Key())
				}
				continue
			}
			for missing := n - countKind(&p.pod, g.units, r); missing > 0; missing-- {
				id := freeUnit(g.nodes, p.pod.Node, r, p.interval(w), held)
				if id == "" {
					unplaced = append(unplaced, p.pod.Key())
					break
				}
				p.pod.GPUs = append(p.pod.GPUs, cluster.Holding{UnitID: id})
				held[id] = append(held[id], p.interval(w))
			}
		}
	}
	return unplaced
}

// coreDevices are the GPUs of node when it offers Neuron devices core by
// core (cluster.NeuronCores) and resource asks for whole devices; nil
// otherwise.
func coreDevices(nodes []cluster.Node, node, resource string) []cluster.GPU {
	if resource != cluster.ResNeuron && resource != cluster.ResNeuronDevice {
		return nil
	}
	for i := range nodes {
		if n := &nodes[i]; n.Name == node && len(n.GPUs) > 0 && n.GPUs[0].Sharing == cluster.NeuronCores {
			return n.GPUs
		}
	}
	return nil
}

// placeDevices gives p want whole Neuron devices of devs, each one none
// of whose NeuronCores is held in p's interval (every core of it, as
// the kube adapter's assignment does); false when too few are free.
func placeDevices(p *cluster.Pod, devs []cluster.GPU, want int64, iv interval, held map[string][]interval) bool {
	var got int64 // devices held already (none, as no series attributes a Neuron device to a pod)
	for _, d := range devs {
		if slices.ContainsFunc(p.GPUs, func(h cluster.Holding) bool { return h.UnitID == d.Units[0].ID }) {
			got++
		}
	}
	for _, d := range devs {
		if got == want {
			break
		}
		if slices.ContainsFunc(d.Units, func(u cluster.Unit) bool { return overlaps(held[u.ID], iv) }) {
			continue
		}
		for _, u := range d.Units {
			p.GPUs = append(p.GPUs, cluster.Holding{UnitID: u.ID})
			held[u.ID] = append(held[u.ID], iv)
		}
		got++
	}
	return got == want
}

func countKind(p *cluster.Pod, ix unitIndex, resource string) int64 {
	var n int64
	for _, h := range p.GPUs {
		if ref := ix.units[h.UnitID]; ref.Node != nil && fits(ref.Unit, resource, ref.Node.MIGStrategy == migSingle) {
			n++
		}
	}
	return n
}

// fits reports whether a unit is what an extended resource hands out:
// on a node of the MIG single strategy nvidia.com/gpu hands out MIG
// slices.
func fits(u *cluster.Unit, resource string, single bool) bool {
	switch {
	case u == nil:
		return false
	case resource == "nvidia.com/gpu":
		return u.Kind == cluster.WholeGPU || single && u.Kind == cluster.MIGSlice
	case strings.HasPrefix(resource, "nvidia.com/mig-"):
		return u.Kind == cluster.MIGSlice && "nvidia.com/mig-"+u.Profile == resource
	case strings.HasPrefix(resource, "nvidia.com/gpu."):
		return u.Kind == cluster.TimeSlice
	case resource == cluster.ResNeuronCore:
		return u.Kind == cluster.NeuronCoreUnit
	case cluster.IsAcceleratorResource(resource):
		return u.Kind == cluster.WholeGPU
	}
	return false
}

func freeUnit(nodes []cluster.Node, node, resource string, iv interval, held map[string][]interval) string {
	for _, n := range nodes {
		if n.Name != node {
			continue
		}
		for _, g := range n.GPUs {
			for _, u := range g.Units {
				if fits(&u, resource, n.MIGStrategy == migSingle) && !overlaps(held[u.ID], iv) {
					return u.ID
				}
			}
		}
	}
	return ""
}

func overlaps(ivs []interval, iv interval) bool {
	for _, o := range ivs {
		if iv.from.Before(o.to) && o.from.Before(iv.to) {
			return true
		}
	}
	return false
}

// containersByPod lists the containers cAdvisor measured, by pod key.
func containersByPod(u *ctrUsage) map[string][]string {
	out := map[string][]string{}
	for k := range u.ctrs {
		if i := strings.LastIndexByte(k, '/'); i > 0 {
			out[k[:i]] = append(out[k[:i]], k[i+1:])
		}
	}
	return out
}

// addMeasuredContainers adds the containers cAdvisor measured that no
// requests or limits series named (used when no request series exist at
// all): containers are then known from their usage, whose cost stands,
// never $0 for a container that used CPU.
func addMeasuredContainers(p *cluster.Pod, names []string) {
	sort.Strings(names)
	for _, n := range names {
		if !hasContainer(p, n) {
			p.Containers = append(p.Containers, cluster.Container{Name: n})
		}
	}
}

func hasContainer(p *cluster.Pod, name string) bool {
	for _, c := range p.Containers {
		if c.Name == name {
			return true
		}
	}
	return false
}

func attachContainers(p *cluster.Pod, u *ctrUsage) {
	var arr [160]byte
	key := append(append(append(append(arr[:0], p.Namespace...), '/'), p.Name...), '/')
	for i := range p.Containers {
		c := &p.Containers[i]
		if s := u.ctrs[string(append(key, c.Name...))]; s != nil {
			c.CPU, c.Memory = s.cpu, s.mem
		}
	}
}
