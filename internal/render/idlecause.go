package render

import (
	"fmt"

	"github.com/gpuwise/gpuwise/internal/idlecause"
)

// causeTitles are the cause column titles, in idlecause.Causes order.
var causeTitles = map[idlecause.Cause]string{
	idlecause.CPUStarved: "CPU-starved", idlecause.InputBound: "input-bound",
	idlecause.MemoryPressured: "memory", idlecause.NoWork: "no work", idlecause.Unknown: "unknown",
}

// whyGrids are the "Why GPUs idle" tables: idle GPU-hours and dollars by
// cause over every workload, then the top workloads' split with the
// evidence for each one's main cause. None without a result.
func whyGrids(r *idlecause.Result) []grid {
	if r == nil {
		return nil
	}
	return []grid{causeGrid(r), causeWorkloadGrid(r)}
}

func causeGrid(r *idlecause.Result) grid {
	g := grid{
		Title:    "Why GPUs idle",
		Caption:  "idle GPU-hours and allocated-but-idle dollars split by cause from hourly CPU throttling, memory, OOM kills and PCIe/NVLink receive; unknown where a deciding series is absent",
		KeyTitle: "cause",
		Cols:     []column{{"share", false}, {"idle GPU-h", false}, {"idle $/month", true}, {"workload-hours", false}},
	}
	for _, s := range r.Totals {
		g.Rows = append(g.Rows, gridRow{Key: causeTitles[s.Cause], Cells: []string{
			percent(&s.Share), hours(s.GPUHours), moneyOr(s.MonthlyUSD, "n/a", money), fmt.Sprint(s.Hours)},
			Hot: []bool{false, false, deref(s.MonthlyUSD) > 0, false}})
	}
	all := 1.0
	var month float64
	for _, s := range r.Totals {
		month += deref(s.MonthlyUSD)
	}
	g.Total = &gridRow{Key: "ALL", Whole: true, Cells: []string{percent(&all), hours(r.IdleGPUHours), money(month), ""},
		Hot: []bool{false, false, month > 0, false}}
	if r.IdleGPUHours == 0 {
		g.Rows, g.Total = nil, nil
	}
	return g
}

func causeWorkloadGrid(r *idlecause.Result) grid {
	g := grid{
		Title:    "Why each workload idles",
		Caption:  "share of each workload's idle GPU-hours per cause, with its idle $/month; top workloads by idle dollars",
		KeyTitle: "workload",
		Cols:     []column{{"idle GPU-h", false}, {"idle $/month", true}},
		More:     r.MoreWorkloads,
	}
	for _, c := range idlecause.Causes {
		g.Cols = append(g.Cols, column{Title: causeTitles[c]})
	}
	for _, w := range r.Workloads {
		row := gridRow{Key: w.Workload, Cells: []string{hours(w.IdleGPUHours), moneyOr(w.MonthlyUSD, "n/a", money)},
			Hot: []bool{false, deref(w.MonthlyUSD) > 0}}
		for _, c := range idlecause.Causes {
			row.Cells = append(row.Cells, causeCell(w, c))
			row.Hot = append(row.Hot, false)
		}
		g.Rows = append(g.Rows, row)
		g.Footnotes = append(g.Footnotes, w.Workload+": "+w.Evidence)
	}
	return g
}

// fitWhy narrows the per-workload grid for a terminal of width columns:
// when the cause columns do not fit, one "main cause" column replaces
// them (every cause stays in -o wide, json and yaml).
func fitWhy(gs []grid, r *idlecause.Result, width int) []grid {
	if width <= 0 || len(gs) < 2 || gridWidth(gs[1]) <= width {
		return gs
	}
	g := gs[1]
	g.Cols = append(g.Cols[:2:2], column{Title: "main cause"})
	g.Caption = "each workload's main cause and its share of the workload's idle GPU-hours; -o wide shows every cause"
	for i, w := range r.Workloads {
		main := w.Causes[0]
		g.Rows[i].Cells = append(g.Rows[i].Cells[:2:2], causeTitles[main.Cause]+" "+percent(&main.Share))
		g.Rows[i].Hot = append(g.Rows[i].Hot[:2:2], false)
	}
	return []grid{gs[0], g}
}

// causeCell is a workload's share of idle GPU-hours for one cause and its
// idle $/month, blank when the cause explains none of it.
func causeCell(w idlecause.Workload, c idlecause.Cause) string {
	for _, s := range w.Causes {
		if s.Cause == c {
			if s.MonthlyUSD == nil {
				return percent(&s.Share)
			}
			return percent(&s.Share) + " " + money(*s.MonthlyUSD)
		}
	}
	return ""
}

func deref(v *float64) float64 {
	if v == nil {
		return 0
	}
	return *v
}
