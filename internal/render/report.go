package render

import (
	"bytes"
	"strconv"
	"strings"

	"github.com/gpuwise/gpuwise/internal/cost"
)

// reportTitle heads the cost report in every human format.
const reportTitle = "GPU cost report"

// reportDoc is the cost report as a document laid out for format f: the
// terminal's keeps o.MaxRows rows, fits o.Width and writes the bill
// reconciliation as aligned lines; markdown keeps o.MaxRows rows; HTML has
// every row with its GPU dollar bar.
func reportDoc(r *cost.Report, o Options, f Format) *doc {
	window := windowSpan(r.Window) + " (" + windowHours(r.WindowHours) + ")"
	d := &doc{title: reportTitle, tab: reportTitle + " · " + window, page: reportPage}
	d.partial(partialTitle, r.Partial)
	d.headline(reportTitle, window+" · source "+orUnknown(r.Source), headline(r, o.Savings))
	switch f {
	case Markdown:
		d.addGrid(costGrid(r, o.MaxRows))
		d.addGrid(idleGrid(r))
		if g, ok := lowUtilGrid(r); ok {
			d.addGrid(g)
		}
		grids(d, whyGrids(o.IdleCauses), reconGrids(o.Reconciliation), kueueGrids(o.Kueue))
	case HTML:
		d.addGrid(costBars(r))
		d.addGrid(idleGrid(r))
		grids(d, whyGrids(o.IdleCauses), reconGrids(o.Reconciliation), kueueGrids(o.Kueue))
	default:
		d.width, d.color = o.Width, o.Color
		reportTextGrids(d, r, o)
	}
	d.addNotes("Data quality", sortedNotes(r))
	return d
}

// reportTextGrids are the terminal's tables: the cost grid narrowed to
// the terminal (and a line naming what it hid), the leaderboards, the
// causes narrowed likewise, the bill reconciliation and Kueue's queues.
func reportTextGrids(d *doc, r *cost.Report, o Options) {
	cg, hidden := costGrid(r, o.MaxRows), []string(nil)
	if o.Width > 0 {
		cg, hidden = fitColumns(cg, o.Width)
	}
	d.addGrid(cg)
	if len(hidden) > 0 {
		d.line(indent + "(hidden to fit the terminal: " + strings.Join(hidden, ", ") + "; -o wide shows every column)")
	}
	d.addGrid(idleGrid(r))
	if g, ok := lowUtilGrid(r); ok {
		d.addGrid(g)
	}
	grids(d, fitWhy(whyGrids(o.IdleCauses), o.IdleCauses, o.Width))
	var rec bytes.Buffer
	writeReconciliation(&rec, o.Reconciliation, painter(o.Color))
	d.pre(rec.String())
	grids(d, kueueGrids(o.Kueue))
}

func grids(d *doc, sets ...[]grid) {
	for _, gs := range sets {
		for _, g := range gs {
			d.addGrid(g)
		}
	}
}

// costBars is the cost grid with every row and each row's GPU dollar bar.
func costBars(r *cost.Report) grid {
	g := costGrid(r, 0)
	g.Bars = true
	for i := range g.Rows {
		g.Rows[i].Bar = newBar(r.Rows[i].GPUCost)
	}
	total := *g.Total
	total.Bar = newBar(r.Totals.GPUCost)
	g.Total = &total
	return g
}

// barWidth is the SVG bar's width in pixels.
const barWidth = 120

// newBar draws active, allocated-idle, unmeasured and unallocated GPU
// dollars as shares of the row's GPU dollars, or nil when it has none.
func newBar(c cost.GPUCost) *bar {
	total := c.Total()
	if total <= 0 {
		return nil
	}
	parts := []struct {
		class string
		v     float64
	}{{"active", c.Active}, {"idle", c.AllocatedIdle}, {"unmeasured", c.Unmeasured}, {"unallocated", c.Unallocated}}
	b := &bar{Title: "GPU $: active " + money(c.Active) + ", allocated-idle " + money(c.AllocatedIdle) +
		", unmeasured " + money(c.Unmeasured) + ", unallocated " + money(c.Unallocated)}
	x := 0.0
	for _, p := range parts {
		if p.v <= 0 {
			continue
		}
		w := p.v / total * barWidth
		b.Segments = append(b.Segments, segment{X: px(x), Width: px(w), Class: p.class})
		x += w
	}
	return b
}

func px(v float64) string { return strconv.FormatFloat(v, 'f', 1, 64) }
