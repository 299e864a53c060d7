package compare

import (
	"cmp"
	"fmt"
	"maps"
	"slices"

	"github.com/gpuwise/gpuwise/internal/cluster"
	"github.com/gpuwise/gpuwise/internal/tally"
)

// UnallocatedKey is the key of the cost nobody requested (cost.UnallocatedKey,
// the history's key for it under every kind).
const UnallocatedKey = "__unallocated__"

// Idle-share rules a showback can apply to the unallocated cost (the
// report's idle-share, less node: the history keeps no group-by-node
// split, so the node rule cannot be applied to it).
const (
	ShareNone    = "none"
	ShareCluster = "cluster"
)

// ShowbackFigures are one group's figures over one range, from the
// history's sums: GPU-hours and the cost engine's dollars split as the
// report splits them.
type ShowbackFigures struct {
	GPUHours       float64  `json:"gpu_hours"`
	GPUActiveHours float64  `json:"gpu_active_hours"`
	GPUIdleHours   float64  `json:"gpu_idle_hours"`
	Utilization    *float64 `json:"gpu_utilization"`
	ActiveUSD      float64  `json:"active_usd"`
	IdleUSD        float64  `json:"idle_usd"`
	UnmeasuredUSD  float64  `json:"unmeasured_usd"`
	CPUMemoryUSD   float64  `json:"cpu_memory_usd"`
	// UnallocatedUSD is the unallocated cost this group carries: its share
	// under the rule (cluster), or all of it on the unallocated row (none).
	UnallocatedUSD float64 `json:"unallocated_usd"`
	TotalUSD       float64 `json:"total_usd"`
	// UnpricedGPUHours are hours whose dollars are missing (never $0).
	UnpricedGPUHours float64 `json:"unpriced_gpu_hours"`
}

// ShowbackRow is one group (a team, a cost center, a namespace…) with
// its figures over the range, the comparison period's total and the
// change; nil where the comparison period is not covered by the history.
type ShowbackRow struct {
	Key string `json:"key"`
	ShowbackFigures
	// Share is the group's part of the range's total.
	Share *float64 `json:"share"`
	// PreviousTotalUSD is the group's total over the comparison period.
	PreviousTotalUSD *float64 `json:"previous_total_usd"`
	ChangeUSD        *float64 `json:"change_usd"`
	// ChangeShare is ChangeUSD over the previous total (nil when that is 0).
	ChangeShare *float64 `json:"change_share"`
}

// ShowbackSide is one period's sums per group, as the history holds them.
type ShowbackSide struct {
	Window cluster.Window
	Keys   map[string]tally.Values
	// Covered says whether the history covers the whole period.
	Covered bool
}

// Showback is the showback table of one grouping over a range: a row per
// group, the totals (their sums, made here) and the comparison period's.
type Showback struct {
	By        string         `json:"by"`
	IdleShare string         `json:"idle_share"`
	Range     cluster.Window `json:"range"`
	Hours     float64        `json:"hours"`
	// Comparison is the period the trend is against (nil: none asked).
	Comparison *cluster.Window `json:"comparison"`
	Rows       []ShowbackRow   `json:"rows"`
	Total      ShowbackRow     `json:"total"`
	// MonthlyTotalUSD is the range's total at a month's rate (730 h).
	MonthlyTotalUSD float64  `json:"monthly_total_usd"`
	Notes           []string `json:"notes"`
}

// hoursPerMonth is the month every $/month figure uses (cost.HoursPerMonth).
const hoursPerMonth = 730

// NewShowback builds the table of cur (against prev when not nil) under
// the idle-share rule: none leaves the unallocated cost on its own row;
// cluster moves it onto the groups in proportion to what each pays for
// the resource (GPU by allocated GPU cost, CPU and memory by CPU and
// memory cost), as the cost engine's cluster rule does. Rows come in
// descending total order, then by key.
func NewShowback(by, rule string, cur ShowbackSide, prev *ShowbackSide) (*Showback, error) {
	if rule != ShareNone && rule != ShareCluster {
		return nil, fmt.Errorf("idle-share: %q is not none or cluster", rule)
	}
	s := &Showback{By: by, IdleShare: rule, Range: cur.Window, Hours: cur.Window.End.Sub(cur.Window.Start).Hours(), Rows: []ShowbackRow{}}
	curF := figures(cur.Keys, rule)
	var prevF map[string]ShowbackFigures
	if prev != nil {
		w := prev.Window
		s.Comparison = &w
		if prev.Covered {
			prevF = figures(prev.Keys, rule)
		} else {
			s.Notes = append(s.Notes, fmt.Sprintf("the history does not cover the whole comparison period %s..%s: the trend is not shown (a group missing from it was not seen, which is not the same as free)",
				w.Start.UTC().Format("2006-01-02T15:04Z"), w.End.UTC().Format("2006-01-02T15:04Z")))
		}
	}
	if !cur.Covered {
		s.Notes = append(s.Notes, "the history does not cover the whole range: its figures are the recorded hours only")
	}
	var tot ShowbackFigures
	var prevTot float64
	// every sum in key order: a map's order would change the last bits
	// of the totals from one request to the next
	for _, k := range slices.Sorted(maps.Keys(curF)) {
		f := curF[k]
		row := ShowbackRow{Key: k, ShowbackFigures: f}
		if prevF != nil {
			p := prevF[k].TotalUSD
			row.PreviousTotalUSD = &p
		}
		s.Rows = append(s.Rows, row)
		tot.add(f)
	}
	prevKeys := slices.Sorted(maps.Keys(prevF))
	for _, k := range prevKeys {
		prevTot += prevF[k].TotalUSD
	}
	for _, k := range prevKeys {
		if _, ok := curF[k]; !ok && prevF[k].TotalUSD != 0 {
			p := prevF[k].TotalUSD
			s.Rows = append(s.Rows, ShowbackRow{Key: k, PreviousTotalUSD: &p})
		}
	}
	tot.Utilization = utilization(tot.GPUActiveHours, tot.GPUHours, tot.GPUHours-tot.GPUActiveHours-tot.GPUIdleHours)
	s.Total = ShowbackRow{Key: "total", ShowbackFigures: tot}
	if prevF != nil {
		s.Total.PreviousTotalUSD = &prevTot
	}
	for i := range s.Rows {
		s.Rows[i].trend(tot.TotalUSD)
	}
	s.Total.trend(tot.TotalUSD)
	slices.SortFunc(s.Rows, func(a, b ShowbackRow) int {
		return cmp.Or(cmp.Compare(b.TotalUSD, a.TotalUSD), cmp.Compare(a.Key, b.Key))
	})
	if s.Hours > 0 {
		s.MonthlyTotalUSD = tot.TotalUSD * hoursPerMonth / s.Hours
	}
	return s, nil
}

func (r *ShowbackRow) trend(total float64) {
	if total != 0 {
		sh := r.TotalUSD / total
		r.Share = &sh
	}
	if r.PreviousTotalUSD == nil {
		return
	}
	d := r.TotalUSD - *r.PreviousTotalUSD
	r.ChangeUSD = &d
	if *r.PreviousTotalUSD != 0 {
		c := d / *r.PreviousTotalUSD
		r.ChangeShare = &c
	}
}

func (f *ShowbackFigures) add(o ShowbackFigures) {
	f.GPUHours += o.GPUHours
	f.GPUActiveHours += o.GPUActiveHours
	f.GPUIdleHours += o.GPUIdleHours
	f.ActiveUSD += o.ActiveUSD
	f.IdleUSD += o.IdleUSD
	f.UnmeasuredUSD += o.UnmeasuredUSD
	f.CPUMemoryUSD += o.CPUMemoryUSD
	f.UnallocatedUSD += o.UnallocatedUSD
	f.TotalUSD += o.TotalUSD
	f.UnpricedGPUHours += o.UnpricedGPUHours
}

func utilization(active, allocated, unmeasured float64) *float64 {
	if m := allocated - unmeasured; m > 1e-12 {
		u := active / m
		return &u
	}
	return nil
}

// figures are each key's figures with the unallocated cost placed by rule.
func figures(keys map[string]tally.Values, rule string) map[string]ShowbackFigures {
	out := make(map[string]ShowbackFigures, len(keys))
	var gpuPool, cpuPool, gpuWeight, cpuWeight float64
	order := slices.Sorted(maps.Keys(keys)) // sums in key order, the same bits every time
	for _, k := range order {
		v := keys[k]
		if k == UnallocatedKey {
			gpuPool += v.GPUUnallocatedUSD
			cpuPool += v.CPUUSD + v.MemoryUSD
			continue
		}
		gpuWeight += v.GPUActiveUSD + v.GPUIdleUSD + v.GPUUnmeasuredUSD
		cpuWeight += v.CPUUSD + v.MemoryUSD
	}
	for _, k := range order {
		v := keys[k]
		f := ShowbackFigures{GPUHours: v.GPUAllocatedHours, GPUActiveHours: v.GPUActiveHours, GPUIdleHours: v.GPUIdleHours,
			Utilization: v.Utilization(), ActiveUSD: v.GPUActiveUSD, IdleUSD: v.GPUIdleUSD, UnmeasuredUSD: v.GPUUnmeasuredUSD,
			CPUMemoryUSD: v.CPUUSD + v.MemoryUSD, UnallocatedUSD: v.GPUUnallocatedUSD + v.CPUMemoryUnallocatedUSD,
			TotalUSD: v.TotalUSD, UnpricedGPUHours: v.UnpricedGPUHours}
		if rule == ShareCluster {
			if k == UnallocatedKey {
				// what no group pays for stays here (nothing is lost)
				f.UnallocatedUSD, f.CPUMemoryUSD, f.TotalUSD = 0, 0, 0
				if gpuWeight <= 0 {
					f.UnallocatedUSD += v.GPUUnallocatedUSD
				}
				if cpuWeight <= 0 {
					f.CPUMemoryUSD += v.CPUUSD + v.MemoryUSD
				}
				f.TotalUSD = f.UnallocatedUSD + f.CPUMemoryUSD
				if f.TotalUSD == 0 && f.GPUHours == 0 {
					continue
				}
			} else {
				var add float64
				if gpuWeight > 0 {
					add += gpuPool * (v.GPUActiveUSD + v.GPUIdleUSD + v.GPUUnmeasuredUSD) / gpuWeight
				}
				if cpuWeight > 0 {
					add += cpuPool * (v.CPUUSD + v.MemoryUSD) / cpuWeight
				}
				f.UnallocatedUSD += add
				f.TotalUSD += add
			}
		}
		out[k] = f
	}
	return out
}
