package cluster

import (
	"errors"
	"fmt"
	"slices"
	"sort"
	"sync"
	"time"
)

// UnitRef locates a unit: its node, GPU and position.
type UnitRef struct {
	Node *Node
	GPU  *GPU
	Unit *Unit
}

// Index maps names and IDs to the snapshot's objects.
type Index struct {
	Nodes map[string]*Node
	Units map[string]UnitRef
	// Admitted maps the pods ("namespace/name") of admitted Kueue
	// workloads to their workload (Snapshot.KueueAdmitted).
	Admitted map[string]string
}

// NewIndex indexes s. It does not validate; call Prepare for that.
func NewIndex(s *Snapshot) *Index {
	ix := &Index{Nodes: make(map[string]*Node, len(s.Nodes)), Units: map[string]UnitRef{}, Admitted: s.KueueAdmitted()}
	for i := range s.Nodes {
		n := &s.Nodes[i]
		ix.Nodes[n.Name] = n
		for j := range n.GPUs {
			g := &n.GPUs[j]
			for k := range g.Units {
				ix.Units[g.Units[k].ID] = UnitRef{Node: n, GPU: g, Unit: &g.Units[k]}
			}
		}
	}
	return ix
}

// Prepare normalizes unit fractions and checks the snapshot's consistency,
// returning every problem found (joined), each naming the object. A
// snapshot that passes can be allocated without losing or inventing time.
// It is the one validation path every command and use case goes through.
func Prepare(s *Snapshot) (*Prepared, error) {
	if s == nil {
		return nil, errors.New("no snapshot")
	}
	var errs []error
	if err := s.Window.Validate(); err != nil {
		errs = append(errs, err)
	}
	errs = append(errs, prepareNodes(s)...)
	ix := NewIndex(s)
	errs = append(errs, readOnlyChecks(s, ix)...)
	errs = append(errs, checkKueue(s.Kueue)...)
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	if note := offSnapshotNote(s, ix); note != "" && !slices.Contains(s.Notes, note) {
		s.Notes = append(s.Notes, note)
	}
	return &Prepared{s: s, ix: ix}, nil
}

// offSnapshotNote says which pods without GPUs run on a node the snapshot
// does not have (a GPU pod there is refused): no engine can place or
// price them, so they are in no figure, and the note says so.
func offSnapshotNote(s *Snapshot, ix *Index) string {
	var n int
	var first *Pod
	for i := range s.Pods {
		p := &s.Pods[i]
		if p.Node != "" && ix.Nodes[p.Node] == nil {
			if n == 0 {
				first = p
			}
			n++
		}
	}
	if n == 0 {
		return ""
	}
	return fmt.Sprintf("%d pod(s) without GPUs run on nodes the snapshot does not have (the first: %s on node %s): they are left out of every figure",
		n, first.Key(), first.Node)
}

func prepareNodes(s *Snapshot) []error {
	var errs []error
	nodes := map[string]bool{}
	units := map[string]string{}
	for i := range s.Nodes {
		n := &s.Nodes[i]
		if n.Name == "" || nodes[n.Name] {
			errs = append(errs, fmt.Errorf("node %q: empty or duplicate name", n.Name))
		}
		nodes[n.Name] = true
		if n.CPUMilli < 0 || n.MemoryBytes < 0 {
			errs = append(errs, fmt.Errorf("node %s: negative CPU or memory", n.Name))
		}
		for j := range n.GPUs {
			g := &n.GPUs[j]
			errs = append(errs, checkGPU(n.Name, g)...)
			if err := g.Normalize(); err != nil {
				errs = append(errs, fmt.Errorf("node %s: %w", n.Name, err))
			}
			for _, u := range g.Units {
				if prev, dup := units[u.ID]; dup || u.ID == "" {
					errs = append(errs, fmt.Errorf("node %s: GPU unit %q empty or already on node %s", n.Name, u.ID, prev))
				}
				units[u.ID] = n.Name
			}
		}
	}
	return errs
}

type hold struct {
	pod        *Pod // named only in an error, so no key is built per unit
	start, end time.Time
}

func checkPods(s *Snapshot, ix *Index) []error {
	var errs []error
	holders := map[string][]hold{}
	for i := range s.Pods {
		p := &s.Pods[i]
		if !p.End.IsZero() && p.End.Before(p.Start) {
			errs = append(errs, fmt.Errorf("pod %s: ends %s before it starts %s", p.Key(), p.End.Format(time.RFC3339), p.Start.Format(time.RFC3339)))
		}
		errs = append(errs, checkRequests(p)...)
		if p.OOMKills < 0 {
			errs = append(errs, fmt.Errorf("pod %s: %d OOM kills is negative", p.Key(), p.OOMKills))
		}
		if len(p.GPUs) > 0 && ix.Nodes[p.Node] == nil {
			errs = append(errs, fmt.Errorf("pod %s: holds GPUs on node %q, which is not in the snapshot", p.Key(), p.Node))
			continue
		}
		for _, h := range p.GPUs {
			ref, ok := ix.Units[h.UnitID]
			switch {
			case !ok:
				errs = append(errs, fmt.Errorf("pod %s: holds GPU unit %q, which no node has", p.Key(), h.UnitID))
				continue
			case ref.Node.Name != p.Node:
				errs = append(errs, fmt.Errorf("pod %s: runs on node %s but holds unit %s of node %s", p.Key(), p.Node, h.UnitID, ref.Node.Name))
				continue
			}
			start, end, _ := s.Window.Interval(p.Start, p.End)
			holders[h.UnitID] = append(holders[h.UnitID], hold{p, start, end})
		}
	}
	return append(errs, checkOverlaps(holders)...)
}

// checkOverlaps rejects a unit held by two pods at once: its time would be
// counted twice and the bill would no longer reconcile.
func checkOverlaps(holders map[string][]hold) []error {
	var errs []error
	ids := make([]string, 0, len(holders))
	for id := range holders {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	for _, id := range ids {
		hs := holders[id]
		sort.Slice(hs, func(a, b int) bool { return hs[a].start.Before(hs[b].start) })
		for k := 1; k < len(hs); k++ {
			if hs[k].start.Before(hs[k-1].end) {
				errs = append(errs, fmt.Errorf("GPU unit %s: held by pods %s and %s at the same time", id, hs[k-1].pod.Key(), hs[k].pod.Key()))
			}
		}
	}
	return errs
}

// MaxReplicas is the most time-slice replicas a GPU may be shared into
// (the device plugin has no such configuration past a few dozen; a
// bigger count is a corrupt or hostile file, and would make that many
// units).
const MaxReplicas = 1024

// checkGPU rejects what no GPU can be, before its fractions are set: a
// negative memory size, a unit fraction outside [0, 1] (0: not set, the
// usual case; Normalize sets it), replicas past MaxReplicas.
func checkGPU(node string, g *GPU) []error {
	var errs []error
	if g.MemoryMiB < 0 {
		errs = append(errs, fmt.Errorf("node %s gpu %d: memory %d MiB is negative", node, g.Index, g.MemoryMiB))
	}
	if g.Replicas > MaxReplicas {
		errs = append(errs, fmt.Errorf("node %s gpu %d: %d time-slice replicas is more than %d", node, g.Index, g.Replicas, MaxReplicas))
	}
	for _, u := range g.Units {
		if !(u.Fraction >= 0 && u.Fraction <= 1) {
			errs = append(errs, fmt.Errorf("node %s gpu %d unit %s: fraction %g is not between 0 and 1", node, g.Index, u.ID, u.Fraction))
		}
	}
	return errs
}

// checkRequests rejects negative requests and limits: a negative CPU or
// memory request would pay a pod for running, and a negative GPU count
// would hide the units it holds.
func checkRequests(p *Pod) []error {
	var errs []error
	for _, c := range p.Containers {
		for _, q := range []struct {
			what string
			v    int64
		}{
			{"CPU request (millicores)", c.CPURequestMilli}, {"CPU limit (millicores)", c.CPULimitMilli},
			{"memory request (bytes)", c.MemoryRequest}, {"memory limit (bytes)", c.MemoryLimit},
		} {
			if q.v < 0 {
				errs = append(errs, fmt.Errorf("pod %s container %q: %s %d is negative", p.Key(), c.Name, q.what, q.v))
			}
		}
		if c.MemoryLimit > 0 && c.MemoryLimit < c.MemoryRequest {
			errs = append(errs, fmt.Errorf("pod %s container %q: memory limit %d bytes is below its request %d (the API server refuses such a pod)", p.Key(), c.Name, c.MemoryLimit, c.MemoryRequest))
		}
		if c.CPULimitMilli > 0 && c.CPULimitMilli < c.CPURequestMilli {
			errs = append(errs, fmt.Errorf("pod %s container %q: CPU limit %dm is below its request %dm (the API server refuses such a pod)", p.Key(), c.Name, c.CPULimitMilli, c.CPURequestMilli))
		}
		for _, name := range sortedKeys(c.GPURequests) {
			if n := c.GPURequests[name]; n < 0 {
				errs = append(errs, fmt.Errorf("pod %s container %q: %s request %d is negative", p.Key(), c.Name, name, n))
			}
		}
	}
	return errs
}

func sortedKeys(m map[string]int64) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// checkDuplicatePods rejects a pod listed twice: the same UID, or the same
// namespace/name alive at the same time (Kubernetes allows one pod per name
// at a time; a StatefulSet pod re-created later is a new pod). A duplicate
// would be billed twice.
func checkDuplicatePods(s *Snapshot) []error {
	var errs []error
	type name struct{ namespace, name string } // no key string per pod
	byUID := make(map[string]int, len(s.Pods))
	byName := make(map[name][]int, len(s.Pods))
	for i := range s.Pods {
		p := &s.Pods[i]
		if prev, dup := byUID[p.UID]; dup && p.UID != "" {
			errs = append(errs, fmt.Errorf("pod %s: UID %s is already pod %s; the snapshot lists the pod twice", p.Key(), p.UID, s.Pods[prev].Key()))
			continue
		}
		if p.UID != "" {
			byUID[p.UID] = i
		}
		k := name{p.Namespace, p.Name}
		if slices.ContainsFunc(byName[k], func(j int) bool { return lifeOverlaps(&s.Pods[j], p) }) {
			errs = append(errs, fmt.Errorf("pod %s: listed twice with overlapping lifetimes; the snapshot lists the pod twice", p.Key()))
		}
		byName[k] = append(byName[k], i)
	}
	return errs
}

// readOnlyChecks runs the checks that only read the snapshot, at once (on
// two cores, about a third of Prepare at 10k GPUs), their problems in the
// order of the checks.
func readOnlyChecks(s *Snapshot, ix *Index) []error {
	var pods, dups, hourly []error
	var wg sync.WaitGroup
	wg.Go(func() { pods = checkPods(s, ix) })
	wg.Go(func() { dups = checkDuplicatePods(s) })
	hourly = checkHourly(s)
	wg.Wait()
	return slices.Concat(pods, dups, hourly)
}

// lifeOverlaps reports whether two pods' lives intersect; a zero start or
// end is open-ended.
func lifeOverlaps(a, b *Pod) bool {
	before := func(end, start time.Time) bool { // end ≤ start, open ends never are
		return !end.IsZero() && !start.IsZero() && !end.After(start)
	}
	return !before(a.End, b.Start) && !before(b.End, a.Start)
}
