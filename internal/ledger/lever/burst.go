package lever

import (
	"cmp"
	"slices"

	"github.com/gpuwise/gpuwise/internal/packing"
)

// burstNodes are the nodes a consolidation plan removes that the window's
// peak GPU demand needs: per model, while pods held more GPUs at their peak
// than the plan keeps, removed nodes of that model stay (cheapest per GPU
// first). The plan packs the pods of the window's end; a batch burst
// earlier may have needed more. Only when the autoscale lever follows
// consolidation (Env.peakAware): it runs these nodes in the hours the
// demand needs them instead of removing them for good. Without it the
// removals stand, with the low confidence the demand check gives them.
func (c *consolidation) burstNodes(pl *packing.Plan, reshapes map[string]reshape) map[string]bool {
	out := map[string]bool{}
	if !c.env.peakAware {
		return out
	}
	kept := keptGPUs(pl)
	var removed []*Node
	for _, n := range pl.Nodes {
		if mn := c.m.Node(n.Name); !n.Keep && mn != nil && mn.GPUs > 0 {
			removed = append(removed, mn)
		}
	}
	slices.SortStableFunc(removed, func(a, b *Node) int {
		return cmp.Compare(a.USDPerHour/float64(a.GPUs), b.USDPerHour/float64(b.GPUs))
	})
	excess := map[string]float64{}
	for _, n := range removed {
		if _, ok := excess[n.GPUModel]; !ok {
			peak, _ := c.env.peaks.over(n.GPUModel, float64(kept[n.GPUModel]), reshapes)
			excess[n.GPUModel] = peak - float64(kept[n.GPUModel])
		}
		if excess[n.GPUModel] > 1e-9 {
			out[n.Name] = true
			excess[n.GPUModel] -= float64(n.GPUs)
		}
	}
	return out
}

// union is the set of names in a or b.
func union(a, b map[string]bool) map[string]bool {
	out := make(map[string]bool, len(a)+len(b))
	for k, v := range a {
		out[k] = v
	}
	for k, v := range b {
		out[k] = out[k] || v
	}
	return out
}
