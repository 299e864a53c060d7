package sim

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/gpuwise/gpuwise/internal/cluster"
	"github.com/gpuwise/gpuwise/internal/rolling"
)

// Change is one savings action carried out in the simulated cluster at a
// chosen time, so that tests know its true effect (docs/progress.md
// "Ground truth").
type Change struct {
	// Kind is RemoveNode, MoveToSpot, Resize, ToMIG or Autoscale.
	Kind string
	// Node is the node a RemoveNode, MoveToSpot, ToMIG or Autoscale
	// changes.
	Node string
	At   time.Time
	// Workload ("namespace/Kind/name", Pod.WorkloadKey) is the workload a
	// Resize or ToMIG changes.
	Workload string
	// Resize: Container (empty: the pod's first container requesting a
	// GPU, else its first) gets CPUMilli and MemoryBytes as its requests
	// (and its memory limit, where it had one).
	Container   string
	CPUMilli    int64
	MemoryBytes int64
	// ToMIG: Profile is the MIG profile every GPU of Node is cut into
	// (the 80 GB family's names: 1g.10gb … 7g.80gb).
	Profile string
}

// Change kinds.
const (
	// RemoveNode drains the node at At (its pods end there and go on, from
	// At, on a free unit of the same GPU model on another node when one is
	// free for the rest of their life) and deletes it (scaled down: no
	// interruption).
	RemoveNode = "remove-node"
	// MoveToSpot replaces the node at At by a spot node of the same
	// instance type, named <node>-spot, its pods going on there on the same
	// GPUs.
	MoveToSpot = "move-to-spot"
)

// Apply carries out the changes on s in order: the snapshot then shows the
// cluster as it would be had the team done them. The nodes' prices are the
// catalog's, so a removed node saves exactly its $/h for every hour after
// At and a spot move the on-demand − spot difference (the tests' truth).
// Pods keep their usage (a moved pod's accumulators are shared by its two
// halves, each measured only while it runs); hourly series are per
// workload and stay as they were.
func Apply(s *cluster.Snapshot, cs []Change) error {
	_, err := apply(s, cs)
	return err
}

// ApplySpans is Apply on the snapshot of SpansIn, with the spans' usage
// moved too: from each change on, a moved pod's usage is its
// continuation's, on the unit it moved to (what a service reading the
// changed cluster would have measured).
func ApplySpans(s *cluster.Snapshot, spans []*rolling.Span, cs []Change) error {
	moved, err := apply(s, cs)
	if err != nil {
		return err
	}
	for _, sp := range spans {
		for _, m := range moved {
			if sp.Window.Start.Before(m.at) || (!m.until.IsZero() && !sp.Window.Start.Before(m.until)) {
				continue
			}
			pu := sp.Pods[m.from]
			if pu == nil {
				continue
			}
			delete(sp.Pods, m.from)
			if m.to == "" {
				continue // the pod did not run then
			}
			c := *pu
			c.GPUs = make(map[string]*rolling.GPUUsage, len(pu.GPUs))
			for id, g := range pu.GPUs {
				if to, ok := m.units[id]; ok {
					id = to
				}
				c.GPUs[id] = g
			}
			sp.Pods[m.to] = &c
		}
	}
	return nil
}

// move is a pod that went on as another from at (until until, when
// set), on other units; to "" is a pod that did not run in that time.
type move struct {
	from, to  string // rolling.PodKey
	units     map[string]string
	at, until time.Time
}

func apply(s *cluster.Snapshot, cs []Change) ([]move, error) {
	var moved []move
	for _, c := range cs {
		if c.Kind == Resize {
			if err := inWindow(s, c); err != nil {
				return nil, err
			}
			m, err := resize(s, c)
			if err != nil {
				return nil, err
			}
			moved = append(moved, m...)
			continue
		}
		i := slices.IndexFunc(s.Nodes, func(n cluster.Node) bool { return n.Name == c.Node })
		if i < 0 {
			return nil, fmt.Errorf("sim: change %s: no node %q", c.Kind, c.Node)
		}
		if err := inWindow(s, c); err != nil {
			return nil, err
		}
		n := &s.Nodes[i]
		if !n.Deleted.IsZero() && n.Deleted.Before(c.At) {
			return nil, fmt.Errorf("sim: change %s of %s: the node is gone by then", c.Kind, c.Node)
		}
		switch c.Kind {
		case RemoveNode:
			moved = append(moved, moveOff(s, i, c.At)...)
		case MoveToSpot:
			moved = append(moved, toSpot(s, i, c.At)...)
		case ToMIG:
			m, err := toMIG(s, i, c)
			if err != nil {
				return nil, err
			}
			moved = append(moved, m...)
		case Autoscale:
			m, err := autoscale(s, i, c.At)
			if err != nil {
				return nil, err
			}
			moved = append(moved, m...)
		default:
			return nil, fmt.Errorf("sim: unknown change %q (want %s)", c.Kind, strings.Join(Changes, ", "))
		}
	}
	return moved, nil
}

// Changes are the change kinds, in the order errors list them.
var Changes = []string{RemoveNode, MoveToSpot, Resize, ToMIG, Autoscale}

// inWindow: a change happens inside the window, and a workload's on the
// hour (its hourly series change from that hour on).
func inWindow(s *cluster.Snapshot, c Change) error {
	what := c.Node
	if c.Workload != "" {
		what = c.Workload
	}
	if !c.At.After(s.Window.Start) || !c.At.Before(s.Window.End) {
		return fmt.Errorf("sim: change %s of %s at %s: not inside the window %s", c.Kind, what, c.At.UTC().Format(time.RFC3339), s.Window)
	}
	if c.Kind != RemoveNode && c.Kind != MoveToSpot && c.At.Sub(s.Window.Start)%time.Hour != 0 {
		return fmt.Errorf("sim: change %s of %s at %s: not on a whole hour of the window (its hourly series change from an hour on)", c.Kind, what, c.At.UTC().Format(time.RFC3339))
	}
	return nil
}

// cut ends the pods on node at t and returns the continuations (starting
// at t, holding nothing yet) of those still running then.
func cut(s *cluster.Snapshot, node string, t time.Time) (out []cluster.Pod, from []string) {
	for i := range s.Pods {
		p := &s.Pods[i]
		if p.Node != node || p.Start.After(t) && !p.Start.IsZero() {
			continue
		}
		if !p.End.IsZero() && !p.End.After(t) {
			continue
		}
		c := *p
		c.Name, c.UID, c.Start, c.GPUs = movedName(p.Name), p.UID+"-moved", t, slices.Clone(p.GPUs)
		c.Containers = slices.Clone(p.Containers)
		p.End, p.Phase, p.EndReason = t, "Succeeded", ""
		out, from = append(out, c), append(from, rolling.PodKey(p))
	}
	return out, from
}

// moved records a continuation: its key and the units it moved to.
func moved(from string, c *cluster.Pod, old []cluster.Holding, at time.Time) move {
	m := move{from: from, to: rolling.PodKey(c), units: map[string]string{}, at: at}
	for k := range old {
		m.units[old[k].UnitID] = c.GPUs[k].UnitID
	}
	return m
}

// movedName is a continuation pod's name (a pod recreated by its
// controller gets a new name).
func movedName(name string) string {
	if i := strings.LastIndexByte(name, '-'); i > 0 {
		return name[:i] + "-m" + name[i+1:]
	}
	return name + "-m"
}

// moveOff drains and deletes node i at t.
func moveOff(s *cluster.Snapshot, i int, t time.Time) []move {
	n := &s.Nodes[i]
	name, model := n.Name, n.GPUModel
	n.Deleted, n.EndReason = t, cluster.NodeScaledDown
	cs, from := cut(s, name, t)
	var out []move
	for k, c := range cs {
		old := slices.Clone(c.GPUs)
		if placeFree(s, &c, name, model, t) {
			s.Pods = append(s.Pods, c)
			out = append(out, moved(from[k], &c, old, t))
		}
	}
	return out
}

// placeFree points c's holdings at free whole-GPU units of model on other
// nodes alive for c's life; false when there are not enough.
func placeFree(s *cluster.Snapshot, c *cluster.Pod, not, model string, t time.Time) bool {
	end := c.End
	if end.IsZero() {
		end = s.Window.End
	}
	busy := map[string]bool{}
	for _, p := range s.Pods {
		if (p.End.IsZero() || p.End.After(t)) && (p.Start.IsZero() || p.Start.Before(end)) {
			for _, h := range p.GPUs {
				busy[h.UnitID] = true
			}
		}
	}
	var free []string
	var node string
	for j := range s.Nodes {
		n := &s.Nodes[j]
		if n.Name == not || n.GPUModel != model || (!n.Deleted.IsZero() && n.Deleted.Before(end)) || n.Created.After(t) {
			continue
		}
		var here []string
		for _, g := range n.GPUs {
			for _, u := range g.Units {
				if u.Kind == cluster.WholeGPU && !busy[u.ID] {
					here = append(here, u.ID)
				}
			}
		}
		if len(here) >= len(c.GPUs) {
			free, node = here, n.Name
			break
		}
	}
	if node == "" && len(c.GPUs) > 0 {
		return false
	}
	for k := range c.GPUs {
		c.GPUs[k].UnitID = free[k]
	}
	if node != "" {
		c.Node = node
	}
	return node != ""
}

// toSpot replaces node i by a spot node at t.
func toSpot(s *cluster.Snapshot, i int, t time.Time) []move {
	old := s.Nodes[i]
	s.Nodes[i].Deleted, s.Nodes[i].EndReason = t, cluster.NodeScaledDown
	n := old
	n.Name, n.Capacity, n.Created, n.Deleted, n.EndReason = old.Name+"-spot", cluster.Spot, t, old.Deleted, old.EndReason
	n.ProviderID = ""
	n.Labels = map[string]string{}
	for k, v := range old.Labels {
		n.Labels[k] = v
	}
	n.Labels["karpenter.sh/capacity-type"] = cluster.Spot
	n.GPUs = slices.Clone(old.GPUs)
	rename := map[string]string{}
	for g := range n.GPUs {
		n.GPUs[g].Units = slices.Clone(old.GPUs[g].Units)
		for u := range n.GPUs[g].Units {
			id := n.GPUs[g].Units[u].ID
			nid := strings.Replace(id, old.Name, n.Name, 1)
			if nid == id {
				nid = n.Name + "/" + id
			}
			rename[id] = nid
			n.GPUs[g].Units[u].ID = nid
		}
	}
	s.Nodes = append(s.Nodes, n)
	cs, from := cut(s, old.Name, t)
	var out []move
	for k, c := range cs {
		prev := slices.Clone(c.GPUs)
		c.Node = n.Name
		for j := range c.GPUs {
			c.GPUs[j].UnitID = rename[c.GPUs[j].UnitID]
		}
		s.Pods = append(s.Pods, c)
		out = append(out, moved(from[k], &c, prev, t))
	}
	return out
}
