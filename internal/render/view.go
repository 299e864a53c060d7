package render

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/gpuwise/gpuwise/internal/cluster"
	"github.com/gpuwise/gpuwise/internal/cost"
	"github.com/gpuwise/gpuwise/internal/pricing"
)

// The view is what the human formats (table, markdown, html) share: the
// same figures, labels and cells, laid out differently by each format.

// headline answers "how bad is it?" in eight lines, then, with the
// savings ledger, what can be recovered and what to do first.
func headline(r *cost.Report, sav *Savings) []fact {
	t := &r.Totals
	h := t.GPUHours
	facts := []fact{
		{Label: "Window", Value: windowHours(r.WindowHours), Detail: "(" + windowSpan(r.Window) + ")"},
		{Label: "GPUs", Value: fmt.Sprint(t.GPUs),
			Detail: fmt.Sprintf("on %d GPU nodes; %d pods, %d of them with GPUs", t.Nodes, t.Pods, t.GPUPods)},
		{Label: "GPU utilization", Value: percent(t.GPUUtilization),
			Detail: "of allocated GPU-hours (active/allocated, measured); " + percent(t.GPUUtilizationOfProvisioned) + " of provisioned" + smDetail(t.SMUtilization)},
		measuredFact(r),
		{Label: "Idle GPU-hours", Value: hours(h.Idle),
			Detail: fmt.Sprintf("below %s activity (%s of measured allocated); %s unallocated (%s of provisioned)",
				thresholdText(r.IdleThreshold), percent(t.IdleShare), hours(h.Unallocated), percent(t.UnallocatedShare))},
		costFact(t),
		unusedFact(t),
		{Label: "Spot", Value: percent(t.SpotShare), Detail: "of provisioned GPU-hours on spot capacity"},
	}
	if sav != nil {
		facts = append(facts, savingsFacts(sav)...)
	}
	return facts
}

// savingsFacts are the ledger's lines: the saving, then what to do first.
func savingsFacts(s *Savings) []fact {
	if s.Actions == 0 {
		return []fact{{Label: "Savings", Value: "none found", Detail: "by the savings ledger's levers; see `" + s.Command + "`"}}
	}
	facts := []fact{{Label: "Savings", Value: monthly(s.SavingUSDMonth), Detail: fmt.Sprintf("recoverable by %d action(s): the savings ledger takes the GPU nodes alive at the window's end from %s to %s",
		s.Actions, monthly(s.BeforeUSDMonth), monthly(s.AfterUSDMonth))}}
	for i, f := range s.First {
		label := "Then"
		if i == 0 {
			label = "Do first"
		}
		detail := f.ID + " " + f.Title + " (" + string(f.Confidence) + " confidence)"
		if i == len(s.First)-1 {
			detail += "; all actions: `" + s.Command + "`"
		}
		facts = append(facts, fact{Label: label, Value: monthly(f.SavingUSDMonth), Detail: detail})
	}
	return facts
}

// costFact is the bill for the window scaled to a month; with no priced
// node it is "n/a (unpriced)", never $0.
func costFact(t *cost.Totals) fact {
	if t.Unpriced {
		return fact{Label: "Cost", Value: "n/a (unpriced)", Detail: "(no GPU node has a price; add them with --prices FILE)"}
	}
	detail := "(" + money(t.TotalCost) + " in the window"
	if t.UnpricedGPUHours > 0 {
		detail += "; " + hours(t.UnpricedGPUHours) + " unpriced GPU-hours not in it"
	}
	return fact{Label: "Cost", Value: monthly(t.MonthlyCost), Detail: detail + ")"}
}

// unusedFact is the GPU dollars that bought no compute. It weights held
// time by 1 − activity, so it does not move with the idle threshold that
// "Idle GPU-hours" counts against; the label says which figure it is.
func unusedFact(t *cost.Totals) fact {
	f := fact{Label: "Unused GPU cost", Detail: "(GPU $ not computing: held time × (1 − activity), plus unallocated; the idle threshold does not change it; a cost, not a saving)"}
	if t.Unpriced {
		f.Value = "n/a (unpriced)"
		return f
	}
	f.Value, f.Idle = monthly(t.MonthlyGPUIdle), t.MonthlyGPUIdle > 0
	return f
}

// thresholdText is the idle threshold as a whole percent: "10%".
func thresholdText(t float64) string { return strconv.FormatFloat(math.Round(t*100), 'f', 0, 64) + "%" }

// smDetail shows SM activity beside engine activity where it was measured.
func smDetail(sm *float64) string {
	if sm == nil {
		return ""
	}
	return "; SM active " + percent(sm)
}

func orUnknown(s string) string {
	if s == "" {
		return "unknown"
	}
	return s
}

// costColumn is a column of the cost table and how to fill it: text for
// counts and ratios, usd for dollars.
type costColumn struct {
	column
	text func(pods int, c *cost.Costs) string
	usd  func(c *cost.Costs) float64
}

// cell fills the column for one row. An unpriced row's missing dollars
// read "n/a", not "$0".
func (col costColumn) cell(pods int, c *cost.Costs, unpriced bool) string {
	if col.text != nil {
		return col.text(pods, c)
	}
	v := col.usd(c)
	if unpriced && v == 0 {
		return "n/a"
	}
	return money(v)
}

func costColumns(showUnmeasured bool) []costColumn {
	num := func(title string, f func(int, *cost.Costs) string) costColumn {
		return costColumn{column: column{Title: title}, text: f}
	}
	usd := func(title string, idle bool, f func(*cost.Costs) float64) costColumn {
		return costColumn{column: column{Title: title, Idle: idle}, usd: f}
	}
	cols := []costColumn{
		num("pods", func(p int, _ *cost.Costs) string { return fmt.Sprint(p) }),
		num("GPU-h alloc", func(_ int, c *cost.Costs) string { return hours(c.GPUHours.Allocated) }),
		num("GPU-h unalloc", func(_ int, c *cost.Costs) string { return hours(c.GPUHours.Unallocated) }),
		num("util", func(_ int, c *cost.Costs) string { return percent(c.GPUUtilization) }),
		usd("active $", false, func(c *cost.Costs) float64 { return c.GPUCost.Active }),
		usd("alloc idle $", true, func(c *cost.Costs) float64 { return c.GPUCost.AllocatedIdle }),
		usd("unalloc $", true, func(c *cost.Costs) float64 { return c.GPUCost.Unallocated }),
		usd("unmeasured $", false, func(c *cost.Costs) float64 { return c.GPUCost.Unmeasured }),
		usd("CPU+mem $", false, cpuMemory),
		usd("total $", false, func(c *cost.Costs) float64 { return c.TotalCost }),
		usd("$/month", false, func(c *cost.Costs) float64 { return c.MonthlyCost }),
	}
	if !showUnmeasured {
		cols = slices.DeleteFunc(cols, func(c costColumn) bool { return c.Title == "unmeasured $" })
	}
	return cols
}

// cpuMemory is every non-GPU dollar of a row, so that the dollar columns
// add up to its total.
func cpuMemory(c *cost.Costs) float64 { return c.CPUCost + c.MemoryCost + c.CPUMemoryUnallocated }

// costGrid is the "Cost by <by>" table, cut to maxRows (0 = all).
func costGrid(r *cost.Report, maxRows int) grid {
	cols := costColumns(hasUnmeasuredCost(r))
	g := grid{
		Title:    "Cost by " + r.By,
		Caption:  fmt.Sprintf("dollars for the %s window; $/month scales the total to %d h", windowHours(r.WindowHours), pricing.HoursPerMonth),
		KeyTitle: r.By,
	}
	for _, c := range cols {
		g.Cols = append(g.Cols, c.column)
	}
	rows := r.Rows
	if maxRows > 0 && len(rows) > maxRows {
		g.More = len(rows) - maxRows
		rows = rows[:maxRows]
	}
	for i := range rows {
		row := &rows[i]
		g.Rows = append(g.Rows, costRow(cols, row.Key, row.Pods, &row.Costs, row.Unpriced))
		g.Rows[len(g.Rows)-1].Mark = unpricedMark(row)
	}
	total := costRow(cols, "TOTAL", r.Totals.Pods, &r.Totals.Costs, r.Totals.Unpriced)
	total.Whole = true
	g.Total = &total
	addMechanisms(&g, r, rows)
	return g
}

// viaTitle heads the allocation mechanism column (docs/report-format.md).
const viaTitle = "GPU via"

// addMechanisms adds the column that says how each row's GPUs are
// allocated (device-plugin, mig, time-slicing, dra, hami, kueue-admitted; "+"
// between several), the total's being every row's: every grouping shows
// it but the report by mechanism, whose keys already say it. A report
// without GPU-hours has no such column.
func addMechanisms(g *grid, r *cost.Report, rows []cost.Row) {
	if r.By == "mechanism" {
		return
	}
	all := map[string]bool{}
	for i := range r.Rows {
		for _, m := range r.Rows[i].Mechanisms {
			all[m] = true
		}
	}
	if len(all) == 0 {
		return
	}
	g.Cols = append(g.Cols, column{Title: viaTitle})
	for i := range g.Rows {
		g.Rows[i].Cells = append(g.Rows[i].Cells, strings.Join(rows[i].Mechanisms, "+"))
		g.Rows[i].Hot = append(g.Rows[i].Hot, false)
	}
	var every []string
	for _, m := range cluster.Mechanisms {
		if all[m] {
			every = append(every, m)
		}
	}
	g.Total.Cells = append(g.Total.Cells, strings.Join(every, "+"))
	g.Total.Hot = append(g.Total.Hot, false)
}

func costRow(cols []costColumn, key string, pods int, c *cost.Costs, unpriced bool) gridRow {
	row := gridRow{Key: key, Cells: make([]string, len(cols)), Hot: make([]bool, len(cols))}
	for i, col := range cols {
		row.Cells[i] = col.cell(pods, c, unpriced)
		row.Hot[i] = col.Idle && !unpriced && col.usd(c) > 0
	}
	return row
}

func unpricedMark(row *cost.Row) string {
	switch {
	case row.Unpriced:
		return "(unpriced)"
	case row.UnpricedGPUHours > 0:
		return "(partly unpriced)"
	}
	return ""
}

// hasUnmeasuredCost says whether the unmeasured column carries anything.
func hasUnmeasuredCost(r *cost.Report) bool {
	if r.Totals.GPUCost.Unmeasured != 0 {
		return true
	}
	return slices.ContainsFunc(r.Rows, func(row cost.Row) bool { return row.GPUCost.Unmeasured != 0 })
}

// idleGrid is the idle leaderboard.
func idleGrid(r *cost.Report) grid {
	g := grid{
		Title:    "Top idle workloads",
		Caption:  "GPUs held but not computing, by workload",
		KeyTitle: "workload",
		Cols:     []column{{"pods", false}, {"avg GPUs", false}, {"util", false}, {"idle $/month", true}},
	}
	for _, w := range r.TopIdle {
		g.Rows = append(g.Rows, gridRow{Key: w.Key, Cells: []string{
			fmt.Sprint(w.Pods), gpus(w.AvgGPUs), percent(w.Utilization), money(w.MonthlyIdle),
		}, Hot: []bool{false, false, false, w.MonthlyIdle > 0}})
	}
	return g
}

// partialTitle heads what a partial report lacks, shown before any figure.
const partialTitle = "PARTIAL RESULT: some data could not be read; the figures below leave it out"

// sortedNotes are the report's notes, warnings first and otherwise in
// the report's order.
func sortedNotes(r *cost.Report) []note {
	notes := slices.Clone(r.Notes)
	slices.SortStableFunc(notes, func(a, b cost.Note) int {
		return cmp.Compare(severityRank(a.Severity), severityRank(b.Severity))
	})
	out := make([]note, len(notes))
	for i, n := range notes {
		out[i] = note{Warning: isWarning(n.Severity), Text: n.Text}
	}
	return out
}

func severityRank(s string) int {
	if isWarning(s) {
		return 0
	}
	return 1
}

func isWarning(severity string) bool { return severity == "warning" }

// measuredFact is the share of allocated GPU-hours with usage data, or
// why it is unknown.
func measuredFact(r *cost.Report) fact {
	t := &r.Totals
	detail := fmt.Sprintf("of allocated GPU-hours have usage data (activity from %s, source %s)", orUnknown(r.ActivityMetric), orUnknown(r.Source))
	if t.MeasuredShare == nil && t.GPUHours.Allocated > 0 {
		detail = "unknown: no pod in the source requests a GPU, so allocation is only what the exporter attributed, and GPU pods it did not see are missing (source " + orUnknown(r.Source) + ")"
	}
	return fact{Label: "Measured", Value: percent(t.MeasuredShare), Detail: detail}
}

// lowUtilRows is how many units the low-utilization table shows (-o json
// has every one).
const lowUtilRows = 25

// lowUtilGrid is the low-utilization list (report --low-util): the units
// that spent the least time asked for below the threshold, most dollars
// first; empty when not asked for.
func lowUtilGrid(r *cost.Report) (grid, bool) {
	l := r.LowUtilization
	if l == nil {
		return grid{}, false
	}
	g := grid{
		Title: fmt.Sprintf("GPUs under %.0f%% for %s or more", l.Threshold*100, windowHours(l.MinHours)),
		Caption: fmt.Sprintf("%d unit(s), %s of GPU time below it or unheld; %d unit(s) unmeasured (unknown, not listed)",
			len(l.Units), money(l.USD), l.Unmeasured),
		KeyTitle: "GPU / MIG slice",
		Cols:     []column{{"model", false}, {"h below", false}, {"h unheld", false}, {"util", false}, {"$", true}, {"holders", false}},
	}
	for i, u := range l.Units {
		if i == lowUtilRows {
			g.Caption += fmt.Sprintf("; %d more in -o json", len(l.Units)-lowUtilRows)
			break
		}
		usd := "n/a"
		if u.USD != nil {
			usd = money(*u.USD)
		}
		holders := "-"
		if len(u.Holders) > 0 {
			holders = u.Holders[0]
			if len(u.Holders) > 1 {
				holders += fmt.Sprintf(" +%d", len(u.Holders)-1)
			}
		}
		key := u.Unit
		if u.Profile != "" {
			key += " (" + u.Profile + ")"
		}
		g.Rows = append(g.Rows, gridRow{Key: key, Cells: []string{u.Model, fmt.Sprintf("%.1f", u.HoursBelow), fmt.Sprintf("%.1f", u.HoursUnheld),
			percent(u.Utilization), usd, holders}, Hot: []bool{false, false, false, false, u.USD != nil && *u.USD > 0, false}})
	}
	return g, true
}
