package generate

import (
	"fmt"
	"slices"

	"github.com/gpuwise/gpuwise/internal/capacity"
	"github.com/gpuwise/gpuwise/internal/cluster"
)

// SpotOptions name the node class the spot NodePools use.
type SpotOptions struct {
	NodeClassGroup, NodeClassKind, NodeClassName string
}

// Spot turns the spot candidates (capacity.SpotCandidates) into their
// placements and, per GPU model, a Karpenter NodePool with spot first and
// on-demand fallback: the candidates' instance types, only empty nodes
// consolidated, and a GPU limit of today's GPUs of the model among the
// snapshot's nodes alive at the window's end (GPUNodePools).
func Spot(s *cluster.Snapshot, cands []capacity.SpotWorkload, o SpotOptions) ([]SpotPlacement, []NodePool) {
	limits := map[string]int{}
	all, _ := GPUNodePools(s, NodePoolOptions{})
	for _, np := range all {
		limits[np.Name+"-spot"] = np.GPULimit
	}
	var out []SpotPlacement
	pools := map[string]*NodePool{}
	var models []string
	for _, c := range cands {
		out = append(out, SpotPlacement{Kind: c.Kind, Namespace: c.Namespace, Name: c.Name,
			Evidence: fmt.Sprintf("checkpoints every %v (%s): an interruption loses about %v plus the restart", c.Checkpoint, capacity.SpotRestart, c.Checkpoint/2)})
		np := pools[c.Model]
		if np == nil {
			np = &NodePool{Name: capacity.NodePoolName(c.Model) + "-spot", CapacityTypes: []string{"spot", "on-demand"}, Weight: 100,
				ConsolidateAfter: "10m", NodeClassGroup: o.NodeClassGroup, NodeClassKind: o.NodeClassKind, NodeClassName: o.NodeClassName}
			pools[c.Model], models = np, append(models, c.Model)
		}
		for _, it := range c.InstanceTypes {
			if !slices.Contains(np.InstanceTypes, it) {
				np.InstanceTypes = append(np.InstanceTypes, it)
			}
		}
	}
	slices.Sort(models)
	var nps []NodePool
	for _, m := range models {
		np := pools[m]
		slices.Sort(np.InstanceTypes)
		np.GPULimit = limits[np.Name]
		np.Evidence = fmt.Sprintf("%s training on spot, on-demand when no spot capacity is left (Karpenter tries spot first)", m)
		nps = append(nps, *np)
	}
	return out, nps
}

// Reclaimed turns the reclaim lever's idle workloads (capacity.Reclaim
// with p) into reclaim suggestions, each with its evidence and the
// policy's shortest idle stretch as the culling timeout.
func Reclaimed(idles []capacity.Idle, p capacity.ReclaimPolicy) []Reclaim {
	var rs []Reclaim
	for _, id := range idles {
		rs = append(rs, Reclaim{Kind: id.Kind, Namespace: id.Namespace, Name: id.Name, IdleMinutes: p.MinIdleHours * 60,
			Evidence: fmt.Sprintf("%d stretch(es) of %d h or more below %.0f%% GPU activity, %.0f h in all (longest %d h): %.0f of %.0f GPU-hours held in the window",
				id.Stretches, p.MinIdleHours, p.MaxActivity*100, id.IdleHours, id.Longest, id.IdleGPUHours, id.HeldGPUHours)})
	}
	return rs
}
