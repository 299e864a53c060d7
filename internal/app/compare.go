package app

import (
	"github.com/gpuwise/gpuwise/internal/compare"
	"github.com/gpuwise/gpuwise/internal/cost"
)

// ReportFigures are a report's rows as one side of a comparison; oom, when
// not nil, gives each key's OOM kills (a report does not carry them).
func ReportFigures(r *cost.Report, oom map[string]int) map[string]compare.Figures {
	out := make(map[string]compare.Figures, len(r.Rows))
	for _, row := range r.Rows {
		f := compare.Figures{Pods: row.Pods, GPUAllocatedHours: row.GPUHours.Allocated, GPUActiveHours: row.GPUHours.Active,
			GPUIdleHours: row.GPUHours.Idle, GPUUnmeasuredHours: row.GPUHours.Unmeasured, Utilization: row.GPUUtilization}
		if !row.Unpriced {
			idle, total := row.GPUCost.AllocatedIdle+row.GPUCost.Unallocated, row.TotalCost
			f.IdleUSD, f.TotalUSD = &idle, &total
		}
		if oom != nil {
			n := oom[row.Key]
			f.OOMKills = &n
		}
		out[row.Key] = f
	}
	return out
}
