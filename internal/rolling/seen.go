package rolling

import (
	"time"

	"github.com/gpuwise/gpuwise/internal/cluster"
)

// Seen is an inventory built from interval reads alone (the service's
// --inventory prometheus: no API access): the latest view of every node
// and pod, with the units each pod was seen holding. A pod or node that an
// interval no longer shows ended, by inference, when the last interval
// showing it did. It is not safe for concurrent use.
type Seen struct {
	source string
	// unknown are the facts the last interval's read could not get
	// (Snapshot.Unknown): the inventory does not know them either.
	unknown []string
	nodes   map[string]*seenNode
	pods    map[string]*seenPod
}

type seenNode struct {
	node cluster.Node
	last time.Time // end of the last interval that showed it
}

type seenPod struct {
	pod   cluster.Pod
	units map[string]bool
	last  time.Time
}

// NewSeen returns an empty inventory.
func NewSeen() *Seen {
	return &Seen{nodes: map[string]*seenNode{}, pods: map[string]*seenPod{}}
}

// Absorb takes an interval's nodes and pods (a snapshot covering only
// that interval).
func (a *Seen) Absorb(s *cluster.Snapshot) {
	a.source, a.unknown = s.Source, s.Unknown
	end := s.Window.End
	for _, n := range s.Nodes {
		a.nodes[n.Name] = &seenNode{node: n, last: end}
	}
	for i := range s.Pods {
		p := s.Pods[i]
		k := PodKey(&p)
		sp := a.pods[k]
		if sp == nil {
			sp = &seenPod{units: map[string]bool{}}
			a.pods[k] = sp
		}
		if alive(&p, s.Window) {
			// An interval read gives a pod that ended before it units by
			// assignment, not by measurement: only a pod alive in the
			// interval says which units it held.
			for _, h := range p.GPUs {
				sp.units[h.UnitID] = true
			}
		}
		if !sp.pod.Start.IsZero() && sp.pod.Start.Before(p.Start) {
			p.Start = sp.pod.Start // an interval sees a pod from its own start
		}
		p.GPUs = nil
		sp.pod, sp.last = p, end
	}
}

// Inventory is every node and pod seen in [now-span, now); what was last
// seen before now-span is forgotten.
func (a *Seen) Inventory(now time.Time, span time.Duration) *cluster.Snapshot {
	start := now.Add(-span)
	s := &cluster.Snapshot{Window: cluster.Window{Start: start, End: now}, Source: a.source, Unknown: a.unknown}
	latest := time.Time{}
	for _, n := range a.nodes {
		latest = laterOf(latest, n.last)
	}
	for name, n := range a.nodes {
		if n.last.Before(start) {
			delete(a.nodes, name)
			continue
		}
		node := n.node
		if n.last.Before(latest) && node.Deleted.IsZero() {
			node.Deleted = n.last
		}
		s.Nodes = append(s.Nodes, node)
	}
	var inferred []int
	for k, sp := range a.pods {
		if sp.last.Before(start) {
			delete(a.pods, k)
			continue
		}
		p, guessed := sp.view(latest)
		if guessed {
			inferred = append(inferred, len(s.Pods))
		}
		s.Pods = append(s.Pods, p)
	}
	boundInferredEnds(s.Pods, inferred)
	sortSnapshot(s)
	return s
}

// boundInferredEnds ends each pod whose end was inferred (the last
// interval that showed it) no later than the start of a later pod on one
// of its GPU units: a unit has one holder at a time, and an interval read
// can see a pod that ended within it as still running, so its successor's
// start is the closer bound.
func boundInferredEnds(pods []cluster.Pod, inferred []int) {
	starts := map[string][]time.Time{} // unit → its holders' starts
	for i := range pods {
		for _, h := range pods[i].GPUs {
			starts[h.UnitID] = append(starts[h.UnitID], pods[i].Start)
		}
	}
	for _, i := range inferred {
		p := &pods[i]
		for _, h := range p.GPUs {
			for _, t := range starts[h.UnitID] {
				if t.After(p.Start) && t.Before(p.End) {
					p.End = t
				}
			}
		}
	}
}

// view is the pod as last seen, holding every unit it was seen on, ended
// when last seen if a later interval no longer showed it (inferred).
func (sp *seenPod) view(latest time.Time) (p cluster.Pod, inferred bool) {
	p = sp.pod
	if sp.last.Before(latest) && p.End.IsZero() {
		p.End, inferred = sp.last, true
	}
	for _, id := range sortedSet(sp.units) {
		p.GPUs = append(p.GPUs, cluster.Holding{UnitID: id})
	}
	return p, inferred
}

// alive reports whether p ran during w.
func alive(p *cluster.Pod, w cluster.Window) bool {
	return p.Start.Before(w.End) && (p.End.IsZero() || p.End.After(w.Start))
}

func laterOf(a, b time.Time) time.Time {
	if b.After(a) {
		return b
	}
	return a
}
