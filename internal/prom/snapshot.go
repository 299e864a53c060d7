package prom

import (
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
	held, conflicts := attachMeasured(a.pods, a.gpu, r.w)
	unplaced := placeUnmeasured(a.pods, a.gpu, held, r.w)
	attached()
	if len(a.pods) > 0 {
		s.Pods = make([]cluster.Pod, 0, len(a.pods))
	}
	for _, p := range a.pods {
		s.Pods = append(s.Pods, p.pod)
	}
	s.Notes = notes(s, a, conflicts, r.opts.Step)
	schedPartial := schedulingNotes(s, a.podFacts)
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

// attachMeasured gives pods the holdings DCGM attributed to them, and
// counts holdings left out for overlapping another on the same unit.
func attachMeasured(pods []*podFacts, g gpuRead, w cluster.Window) (map[string][]interval, int) {
	byPod := map[string][]holdKey{}
	for k := range g.usage.holds {
		byPod[k.pod] = append(byPod[k.pod], k)
	}
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
	return held, conflicts
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
		for r, n := range want {
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
