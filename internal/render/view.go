package render

import (
	"cmp"
	"fmt"
	"slices"
	"unicode/utf8"

	"github.com/gpuwise/gpuwise/internal/cost"
	"github.com/gpuwise/gpuwise/internal/pricing"
)

// The view is what the human formats (table, markdown, html) share: the
// same figures, labels and cells, laid out differently by each format.

// fact is one headline figure: a label, the figure, and what it is of.
type fact struct {
	Label, Value, Detail string
	// Idle marks idle dollars, which colour output paints red.
	Idle bool
}

// headline answers "how bad is it?" in eight lines, and a ninth with the
// recommendations' saving when there are any.
func headline(r *cost.Report, rec *Recommendations) []fact {
	t := &r.Totals
	h := t.GPUHours
	facts := []fact{
		{Label: "Window", Value: windowHours(r.WindowHours), Detail: "(" + windowSpan(r.Window) + ")"},
		{Label: "GPUs", Value: fmt.Sprint(t.GPUs),
			Detail: fmt.Sprintf("on %d GPU nodes; %d pods, %d of them with GPUs", t.Nodes, t.Pods, t.GPUPods)},
		{Label: "GPU utilization", Value: percent(t.GPUUtilization),
			Detail: "of allocated GPU-hours (active/allocated, measured); " + percent(t.GPUUtilizationOfProvisioned) + " of provisioned" + smDetail(t.SMUtilization)},
		{Label: "Measured", Value: percent(t.MeasuredShare),
			Detail: fmt.Sprintf("of allocated GPU-hours have usage data (activity from %s, source %s)", orUnknown(r.ActivityMetric), orUnknown(r.Source))},
		{Label: "Idle GPU-hours", Value: hours(h.Idle),
			Detail: fmt.Sprintf("idle (%s of measured allocated); %s unallocated (%s of provisioned)",
				percent(t.IdleShare), hours(h.Unallocated), percent(t.UnallocatedShare))},
		{Label: "Cost", Value: monthly(t.MonthlyCost), Detail: "(" + money(t.TotalCost) + " in the window)"},
		{Label: "Idle cost", Value: monthly(t.MonthlyGPUIdle), Detail: "(GPU allocated-but-idle + unallocated)", Idle: true},
		{Label: "Spot", Value: percent(t.SpotShare), Detail: "of provisioned GPU-hours on spot capacity"},
	}
	if rec != nil {
		detail := fmt.Sprintf("saved by %d recommendations (GPU shapes, CPU/memory requests)", rec.Count)
		if rec.Unpriced > 0 {
			detail += fmt.Sprintf(", %d of them unpriced (not counted)", rec.Unpriced)
		}
		value := monthly(rec.MonthlySavingsUSD)
		if rec.Count == 0 {
			value, detail = "none", fmt.Sprintf("%d workloads or containers lacked the usage data to size them", rec.Skipped)
		}
		facts = append(facts, fact{Label: "Recommendations", Value: value, Detail: detail + "; see `" + rec.Command + "`"})
	}
	return facts
}

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

// column heads one number column of a grid; numbers align right.
type column struct {
	Title string
	// Idle marks idle dollars, which colour output paints red.
	Idle bool
}

// gridRow is one line of a grid. Mark follows the key and survives
// truncation ("(unpriced)"); a Whole key is never cut.
type gridRow struct {
	Key, Mark string
	Whole     bool
	Cells     []string
}

// grid is a titled table: the key column first, then Cols.
type grid struct {
	Title, Caption string
	KeyTitle       string
	Cols           []column
	Rows           []gridRow
	// Total is the totals line, nil when the grid has none.
	Total *gridRow
	// More counts rows left out by Options.MaxRows.
	More int
	// Footnotes are lines printed under the grid.
	Footnotes []string
}

// moreRow is the line that says how many rows were left out, or nil.
func (g grid) moreRow() *gridRow {
	if g.More == 0 {
		return nil
	}
	return &gridRow{Key: fmt.Sprintf("… %d more rows", g.More), Whole: true, Cells: make([]string, len(g.Cols))}
}

// lines are the grid's rows in print order: rows, the left-out count, total.
func (g grid) lines() []gridRow {
	out := slices.Clone(g.Rows)
	for _, extra := range []*gridRow{g.moreRow(), g.Total} {
		if extra != nil {
			out = append(out, *extra)
		}
	}
	return out
}

// minMarkedKey keeps enough of a marked key to recognise it, even if the
// label then runs past the limit.
const minMarkedKey = 8

// label is the key with its mark, cut to limit runes (0 = no limit) so that
// the mark always shows.
func (row gridRow) label(limit int) string {
	if row.Whole {
		return row.Key
	}
	if row.Mark == "" {
		return truncate(row.Key, limit)
	}
	if limit > 0 {
		limit = max(limit-utf8.RuneCountInString(row.Mark)-1, minMarkedKey)
	}
	return truncate(row.Key, limit) + " " + row.Mark
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
		g.Rows = append(g.Rows, gridRow{Key: row.Key, Mark: unpricedMark(row), Cells: costCells(cols, row.Pods, &row.Costs, row.Unpriced)})
	}
	g.Total = &gridRow{Key: "TOTAL", Whole: true, Cells: costCells(cols, r.Totals.Pods, &r.Totals.Costs, false)}
	return g
}

func costCells(cols []costColumn, pods int, c *cost.Costs, unpriced bool) []string {
	cells := make([]string, len(cols))
	for i, col := range cols {
		cells[i] = col.cell(pods, c, unpriced)
	}
	return cells
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
		}})
	}
	return g
}

// partialTitle heads what a partial report lacks, shown before any figure.
const partialTitle = "PARTIAL RESULT: some data could not be read; the figures below leave it out"

// sortedNotes puts warnings first and otherwise keeps the report's order.
func sortedNotes(r *cost.Report) []cost.Note {
	notes := slices.Clone(r.Notes)
	slices.SortStableFunc(notes, func(a, b cost.Note) int {
		return cmp.Compare(severityRank(a.Severity), severityRank(b.Severity))
	})
	return notes
}

func severityRank(s string) int {
	if isWarning(s) {
		return 0
	}
	return 1
}

func isWarning(severity string) bool { return severity == "warning" }
