package cost

import "github.com/gpuwise/gpuwise/internal/tally"

// RowValues are a report row's sums as one interval's tally values (what
// the service records in its history and adds to its counters), with
// seconds the interval's length and oomKills the row's OOM kills.
func RowValues(r Row, seconds float64, oomKills int) tally.Values {
	h, c := r.GPUHours, r.GPUCost
	return tally.Values{Seconds: seconds, Pods: int64(r.Pods),
		GPUProvisionedHours: h.Provisioned, GPUAllocatedHours: h.Allocated, GPUActiveHours: h.Active,
		GPUIdleHours: h.Idle, GPUUnmeasuredHours: h.Unmeasured, GPUUnallocatedHours: h.Unallocated,
		GPUActiveUSD: c.Active, GPUIdleUSD: c.AllocatedIdle, GPUUnmeasuredUSD: c.Unmeasured, GPUUnallocatedUSD: c.Unallocated,
		CPUUSD: r.CPUCost, MemoryUSD: r.MemoryCost, CPUMemoryUnallocatedUSD: r.CPUMemoryUnallocated, TotalUSD: r.TotalCost,
		UnpricedGPUHours: r.UnpricedGPUHours, OOMKills: int64(oomKills)}
}
