package app

import (
	"github.com/gpuwise/gpuwise/internal/cluster"
	"github.com/gpuwise/gpuwise/internal/cost"
	"github.com/gpuwise/gpuwise/internal/kueue"
)

// KueueQueues is the per-queue report of s's Kueue section, each pod's
// GPU-hours and idle dollars taken from the allocation a (the report's
// own figures); nil without Kueue.
func KueueQueues(s *cluster.Prepared, a *cost.Allocation) *kueue.Result {
	if s.Kueue() == nil {
		return nil
	}
	return kueue.Report(s, PodCosts(a))
}

// PodCosts sums the allocation's lines per pod ("namespace/name").
func PodCosts(a *cost.Allocation) map[string]kueue.PodCost {
	out := map[string]kueue.PodCost{}
	for i := range a.Lines {
		l := &a.Lines[i]
		if l.Pod == nil {
			continue
		}
		k := l.Pod.Key()
		c, seen := out[k]
		c.AllocatedGPUHours += l.GPUHours.Allocated
		c.ActiveGPUHours += l.GPUHours.Active
		c.UnmeasuredGPUHours += l.GPUHours.Unmeasured
		c.IdleUSD += l.GPUCost.AllocatedIdle
		c.Priced = l.Priced && (c.Priced || !seen)
		out[k] = c
	}
	return out
}
