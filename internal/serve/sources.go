package serve

import (
	"context"
	"time"

	"github.com/gpuwise/gpuwise/internal/app"
	"github.com/gpuwise/gpuwise/internal/cluster"
	"github.com/gpuwise/gpuwise/internal/rolling"
)

// Inventory gives the cluster's objects: nodes, and pods with their lives
// and the GPU units they hold, without usage, over [now-span, now).
// Health says what is wrong with it now (nil: nothing).
type Inventory interface {
	Inventory(ctx context.Context, now time.Time, span time.Duration) (*cluster.Snapshot, error)
	Health() error
}

// UsageReader reads the usage of one interval: a snapshot covering only w
// (its Partial saying what could not be read). Implementations read only
// that interval.
type UsageReader interface {
	ReadUsage(ctx context.Context, w cluster.Window) (*app.SnapshotResult, error)
}

// watched is the live cluster's inventory from kube's shared informers.
type watched struct{ w app.Watcher }

func (i watched) Inventory(_ context.Context, now time.Time, span time.Duration) (*cluster.Snapshot, error) {
	return i.w.Snapshot(now, span)
}

func (i watched) Health() error { return i.w.Health() }

// promReader reads one interval of Prometheus history through the app's
// Prometheus use case: the same read as `report --prometheus --end`.
type promReader struct {
	app *app.App
	src app.PromSource
}

func (r promReader) ReadUsage(ctx context.Context, w cluster.Window) (*app.SnapshotResult, error) {
	src := r.src
	src.End = w.End
	src.HourSums = true // merged over the window's intervals: its hourly series
	return r.app.Snapshot(ctx, app.Data{Source: app.Source{Prometheus: &src}, Window: w.End.Sub(w.Start)})
}

// accumulated is the inventory built from the intervals read from
// Prometheus (InventoryPrometheus): the latest view of every node and
// pod, with the units each pod was seen holding. A pod or node that an
// interval no longer shows ended when the last interval showing it did.
type accumulated struct {
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

func newAccumulated() *accumulated {
	return &accumulated{nodes: map[string]*seenNode{}, pods: map[string]*seenPod{}}
}

// absorb takes an interval's nodes and pods.
func (a *accumulated) absorb(s *cluster.Snapshot) {
	a.source, a.unknown = s.Source, s.Unknown
	end := s.Window.End
	for _, n := range s.Nodes {
		a.nodes[n.Name] = &seenNode{node: n, last: end}
	}
	for i := range s.Pods {
		p := s.Pods[i]
		k := rolling.PodKey(&p)
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

// Inventory is every node and pod seen in [now-span, now).
func (a *accumulated) Inventory(_ context.Context, now time.Time, span time.Duration) (*cluster.Snapshot, error) {
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
	return s, nil
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

func (a *accumulated) Health() error { return nil }

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

// static is a fixed inventory (the demo's).
type static struct{ s *cluster.Snapshot }

func (i static) Inventory(context.Context, time.Time, time.Duration) (*cluster.Snapshot, error) {
	return i.s, nil
}

func (static) Health() error { return nil }
