package prom

import (
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/gpuwise/gpuwise/internal/cluster"
)

// snapshot assembles nodes, pods and usage, and writes the data-quality
// notes.
func (b *builder) snapshot(facts []*podFacts) *cluster.Snapshot {
	s := &cluster.Snapshot{
		Window:         b.w,
		Source:         "prometheus " + b.c.URL(),
		ActivityMetric: b.metric,
		Nodes:          b.nodes,
	}
	// Containers' usage goes in beside the GPU holdings (other fields of
	// the pods), on the other core: Prometheus has nothing left to do.
	attached := make(chan struct{})
	go func() {
		for _, p := range facts {
			b.attachContainers(&p.pod)
		}
		close(attached)
	}()
	held := b.attachMeasured(facts)
	unplaced := b.placeUnmeasured(facts, held)
	<-attached
	if len(facts) > 0 {
		s.Pods = make([]cluster.Pod, 0, len(facts))
	}
	for _, p := range facts {
		s.Pods = append(s.Pods, p.pod)
	}
	s.Notes = b.notes(s, unplaced)
	return s
}

// attachMeasured gives pods the holdings DCGM attributed to them.
func (b *builder) attachMeasured(facts []*podFacts) map[string][]interval {
	byPod := map[string][]holdKey{}
	for k := range b.gpus.holds {
		byPod[k.pod] = append(byPod[k.pod], k)
	}
	held := map[string][]interval{}
	for _, p := range facts {
		ks := byPod[p.pod.Key()]
		sort.Slice(ks, func(i, j int) bool { return ks[i].unit < ks[j].unit })
		for _, k := range ks {
			ref := b.units.units[k.unit]
			if ref.Node == nil || ref.Node.Name != p.pod.Node {
				continue
			}
			if overlaps(held[k.unit], p.interval(b.w)) {
				b.conflicts++ // a reused pod name, or labels from a stale pod-resources answer
				continue
			}
			u := b.gpus.holds[k]
			p.pod.GPUs = append(p.pod.GPUs, cluster.Holding{UnitID: k.unit, Activity: u.act, SMActive: u.sm, FramebufferMiB: u.fb})
			held[k.unit] = append(held[k.unit], p.interval(b.w))
		}
	}
	return held
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
func (b *builder) placeUnmeasured(facts []*podFacts, held map[string][]interval) []string {
	var unplaced []string
	order := append([]*podFacts(nil), facts...)
	sort.SliceStable(order, func(i, j int) bool { return order[i].pod.Start.Before(order[j].pod.Start) })
	for _, p := range order {
		if p.pod.Node == "" {
			continue // never scheduled: it held nothing
		}
		want := map[string]int64{}
		for _, c := range p.pod.Containers {
			for r, n := range c.GPURequests {
				want[r] += n
			}
		}
		for r, n := range want {
			for missing := n - countKind(&p.pod, b.units, r); missing > 0; missing-- {
				id := b.freeUnit(p.pod.Node, r, p.interval(b.w), held)
				if id == "" {
					unplaced = append(unplaced, p.pod.Key())
					break
				}
				p.pod.GPUs = append(p.pod.GPUs, cluster.Holding{UnitID: id})
				held[id] = append(held[id], p.interval(b.w))
			}
		}
	}
	return unplaced
}

func countKind(p *cluster.Pod, ix unitIndex, resource string) int64 {
	var n int64
	for _, h := range p.GPUs {
		if fits(ix.units[h.UnitID].Unit, resource) {
			n++
		}
	}
	return n
}

// fits reports whether a unit is what an extended resource hands out.
func fits(u *cluster.Unit, resource string) bool {
	switch {
	case u == nil:
		return false
	case resource == "nvidia.com/gpu":
		return u.Kind == cluster.WholeGPU
	case strings.HasPrefix(resource, "nvidia.com/mig-"):
		return u.Kind == cluster.MIGSlice && "nvidia.com/mig-"+u.Profile == resource
	case strings.HasPrefix(resource, "nvidia.com/gpu."):
		return u.Kind == cluster.TimeSlice
	}
	return false
}

func (b *builder) freeUnit(node, resource string, iv interval, held map[string][]interval) string {
	for _, n := range b.nodes {
		if n.Name != node {
			continue
		}
		for _, g := range n.GPUs {
			for _, u := range g.Units {
				if fits(&u, resource) && !overlaps(held[u.ID], iv) {
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

func (b *builder) attachContainers(p *cluster.Pod) {
	var arr [160]byte
	key := append(append(append(append(arr[:0], p.Namespace...), '/'), p.Name...), '/')
	for i := range p.Containers {
		c := &p.Containers[i]
		if u := b.ctrs.ctrs[string(append(key, c.Name...))]; u != nil {
			c.CPU, c.Memory = u.cpu, u.mem
		}
	}
}

// notes are the data-quality notes: coverage of allocated GPU-hours by
// DCGM data, nodes whose exporter sent nothing, gaps, counter resets and
// failed queries.
func (b *builder) notes(s *cluster.Snapshot, unplaced []string) []string {
	var out []string
	if b.metric == "" {
		out = append(out, "no DCGM series found (looked for "+strings.Join(activityMetrics, ", ")+"): every GPU pod is unmeasured")
	}
	var allocated, measured float64
	var gappy int
	silent := map[string]bool{}
	ix := cluster.NewIndex(s)
	for _, p := range s.Pods {
		life := s.Window.Clip(p.Start, p.End)
		for _, h := range p.GPUs {
			ref, ok := ix.Units[h.UnitID]
			if !ok {
				continue
			}
			frac := unitFraction(ref)
			allocated += frac * life
			if h.Activity == nil {
				if !b.gpus.hosts[p.Node] {
					silent[p.Node] = true
				}
				continue
			}
			measured += frac * min(h.Activity.Seconds, life)
			if h.Activity.Seconds < 0.9*life-b.opts.Step.Seconds() {
				gappy++
			}
		}
	}
	if allocated > 0 {
		out = append(out, fmt.Sprintf("DCGM data (%s) covers %.1f%% of allocated GPU-hours (%.1f of %.1f h)",
			orNone(b.metric), 100*measured/allocated, measured/3600, allocated/3600))
	}
	if len(silent) > 0 {
		out = append(out, fmt.Sprintf("no DCGM series from %d node(s) running GPU pods (%s): exporter down or not scraped; their GPU pods are unmeasured",
			len(silent), list(silent)))
	}
	if gappy > 0 {
		out = append(out, fmt.Sprintf("%d GPU holding(s) have DCGM gaps over more than 10%% of their life (stale exporter or scrape failures)", gappy))
	}
	out = append(out, b.counterNote()...)
	if b.conflicts > 0 {
		out = append(out, fmt.Sprintf("%d DCGM holding(s) overlap another pod's on the same GPU unit and were left out", b.conflicts))
	}
	if len(unplaced) > 0 {
		out = append(out, fmt.Sprintf("%d GPU pod(s) requested more GPU units than their node has free; their extra requests are not counted", len(unplaced)))
	}
	if len(b.failed) > 0 {
		out = append(out, fmt.Sprintf("PARTIAL: %d of %d Prometheus queries failed; usage from them is missing (first: %v)", len(b.failed), b.queries, b.failed[0]))
	}
	return out
}

func (b *builder) counterNote() []string {
	resets := 0
	for _, c := range b.ctrs.ctrs {
		resets += c.resets
	}
	if resets == 0 {
		return nil
	}
	return []string{fmt.Sprintf("%d CPU counter reset(s) (container restarts) handled", resets)}
}

// unitFraction is the unit's share of its GPU as Prepare will set it.
func unitFraction(ref cluster.UnitRef) float64 {
	g := *ref.GPU
	g.Units = append([]cluster.Unit(nil), g.Units...)
	if g.Normalize() != nil {
		return 0
	}
	for _, u := range g.Units {
		if u.ID == ref.Unit.ID {
			return u.Fraction
		}
	}
	return 0
}

func list(set map[string]bool) string {
	names := make([]string, 0, len(set))
	for n := range set {
		names = append(names, n)
	}
	sort.Strings(names)
	if len(names) > 5 {
		return strings.Join(names[:5], ", ") + fmt.Sprintf(" and %d more", len(names)-5)
	}
	return strings.Join(names, ", ")
}

func orNone(s string) string {
	if s == "" {
		return "none"
	}
	return s
}
