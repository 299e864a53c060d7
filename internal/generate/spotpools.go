package generate

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/gpuwise/gpuwise/internal/capacity"
	"github.com/gpuwise/gpuwise/internal/cluster"
)

// SpotArtefacts translates the spot lever's candidates into what
// generate writes: for every checkpointed training workload not on spot
// yet its spot placement, and per GPU model and cloud a NodePool with spot
// first and on-demand fallback (the provider's node class from classes),
// with notes for what it cannot place. A pool's GPU limit is the GPUs of
// the model's nodes alive at the window's end; a pool none of whose nodes
// is alive then (issue 31, M8) gets the most such GPUs alive at once in
// the window, and a note says so.
func SpotArtefacts(s *cluster.Snapshot, cands []capacity.SpotWorkload, classes map[string]NodeClassRef) ([]SpotPlacement, []NodePool, []string) {
	limits := map[string]int{}
	all, _ := GPUNodePools(s, NodePoolOptions{})
	for _, np := range all {
		limits[np.Name+"-spot"] = np.GPULimit
	}
	placements, pools, limitNotes := spotArtefacts(s, cands, classes, limits)
	for i := range pools {
		if pools[i].GPULimit == 0 {
			// No node of the pool is alive at the window's end (issue 31,
			// M8): the limit is the most GPUs its nodes had at once.
			m, cloud := pools[i].model, pools[i].cloud
			pools[i].GPULimit = max(peakGPUs(s, m, cloud), 1)
			limitNotes = append(limitNotes, fmt.Sprintf("NodePool %s: no %s node on %s is alive at the window's end (its nodes were deleted in the window): the GPU limit %d is the most such GPUs alive at once in the window",
				pools[i].Name, m, cloud, pools[i].GPULimit))
		}
	}
	nps := make([]NodePool, len(pools))
	for i := range pools {
		nps[i] = pools[i].NodePool
	}
	return placements, nps, limitNotes
}

// peakGPUs is the most GPUs of a model on one cloud's nodes alive at once
// in the window (node lives clipped to it).
func peakGPUs(s *cluster.Snapshot, model, cloud string) int {
	type ev struct {
		at    time.Time
		delta int
	}
	var evs []ev
	for i := range s.Nodes {
		n := &s.Nodes[i]
		if !n.HasGPUs() || n.GPUs[0].Model != model || !strings.EqualFold(n.Cloud, cloud) {
			continue
		}
		start, end := n.Created, n.Deleted
		if start.IsZero() || start.Before(s.Window.Start) {
			start = s.Window.Start
		}
		if end.IsZero() || end.After(s.Window.End) {
			end = s.Window.End
		}
		if end.After(start) {
			evs = append(evs, ev{start, len(n.GPUs)}, ev{end, -len(n.GPUs)})
		}
	}
	slices.SortFunc(evs, func(a, b ev) int {
		if c := a.at.Compare(b.at); c != 0 {
			return c
		}
		return a.delta - b.delta // ends first: a node and its replacement of one instant do not overlap
	})
	level, peak := 0, 0
	for _, e := range evs {
		level += e.delta
		peak = max(peak, level)
	}
	return peak
}

// spotPool is a spot NodePool with the model and cloud it is for.
type spotPool struct {
	NodePool
	model, cloud string
}

// spotArtefacts are the placements and the spot NodePools per GPU model
// and cloud (each with its provider's node class; limits are today's GPUs
// of each pool, by spot pool name). Instance types of a cloud without a
// Karpenter provider (on-premises) are in no pool: a note says so.
func spotArtefacts(s *cluster.Snapshot, cands []capacity.SpotWorkload, classes map[string]NodeClassRef, limits map[string]int) ([]SpotPlacement, []spotPool, []string) {
	cloudOf := map[string]string{}
	for i := range s.Nodes {
		if n := &s.Nodes[i]; n.InstanceType != "" {
			cloudOf[n.InstanceType] = strings.ToLower(n.Cloud)
		}
	}
	var out []SpotPlacement
	var notes []string
	pools := map[string]*spotPool{}
	var names []string
	for _, c := range cands {
		out = append(out, SpotPlacement{Kind: c.Kind, Namespace: c.Namespace, Name: c.Name,
			Evidence: fmt.Sprintf("checkpoints every %v (%s): an interruption loses about %v plus the restart", c.Checkpoint, capacity.SpotRestart, c.Checkpoint/2)})
		for _, it := range c.InstanceTypes {
			cloud := cloudOf[it]
			if !slices.Contains(capacity.KarpenterClouds, cloud) {
				notes = append(notes, fmt.Sprintf("%s: instance type %s is not on a cloud with a Karpenter provider (AWS, Azure): no spot NodePool for it", c.Workload, it))
				continue
			}
			name := capacity.NodePoolNameIn(c.Model, cloud) + "-spot"
			np := pools[name]
			if np == nil {
				nc := classes[cloud]
				np = &spotPool{NodePool: NodePool{Name: name, CapacityTypes: []string{"spot", "on-demand"}, Weight: 100,
					Resource:         cluster.WholeResource(cluster.ModelVendor(c.Model)),
					ConsolidateAfter: "10m", NodeClassGroup: nc.Group, NodeClassKind: nc.Kind, NodeClassName: nc.Name}, model: c.Model, cloud: cloud}
				pools[name], names = np, append(names, name)
			}
			if !slices.Contains(np.InstanceTypes, it) {
				np.InstanceTypes = append(np.InstanceTypes, it)
			}
		}
	}
	slices.Sort(names)
	var nps []spotPool
	for _, name := range names {
		np := pools[name]
		slices.Sort(np.InstanceTypes)
		np.GPULimit = limits[np.Name]
		np.Evidence = fmt.Sprintf("%s training on %s spot, on-demand when no spot capacity is left (Karpenter tries spot first)", np.model, np.cloud)
		nps = append(nps, *np)
	}
	return out, nps, notes
}
