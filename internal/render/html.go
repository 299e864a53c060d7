package render

import (
	_ "embed"
	"html/template"
	"io"
	"strconv"
	"strings"

	"github.com/gpuwise/gpuwise/internal/cost"
)

//go:embed page.html.tmpl
var pageSource string

// page is parsed once; html/template escapes every value by context.
var page = template.Must(template.New("page").Funcs(template.FuncMap{"upperFirst": upperFirst, "breakable": breakable}).Parse(pageSource))

// breakable escapes a key and lets it wrap only after a "/" (between
// namespace, kind and name), never inside a name: "__unallocated__" and
// "gpu-operator" stay whole.
func breakable(key string) template.HTML {
	parts := strings.Split(key, "/")
	for i, p := range parts {
		parts[i] = template.HTMLEscapeString(p)
	}
	return template.HTML(strings.Join(parts, "/<wbr>"))
}

// htmlPage is what the template sees.
type htmlPage struct {
	// Partial, when set, is shown first: what the source could not read.
	PartialTitle string
	Partial      []string
	Window       string
	Source       string
	Facts        []fact
	Cost         grid
	Idle         grid
	// Why are the "Why GPUs idle" grids, when computed, then the bill
	// reconciliation's (report --bill).
	Why []grid
	// Lines are the cost grid's lines, each with its GPU dollar bar.
	Lines []htmlLine
	Notes []htmlNote
}

type htmlLine struct {
	gridRow
	Total bool
	Bar   *bar
}

type htmlNote struct {
	Warning bool
	Text    string
}

// writeHTML writes one self-contained page: no scripts, no external
// resources, inline CSS and SVG.
func writeHTML(w io.Writer, r *cost.Report, o Options) error {
	g := costGrid(r, 0)
	p := htmlPage{
		Window:  windowSpan(r.Window) + " (" + windowHours(r.WindowHours) + ")",
		Source:  orUnknown(r.Source),
		Facts:   headline(r, o.Savings),
		Cost:    g,
		Idle:    idleGrid(r),
		Why:     append(append(whyGrids(o.IdleCauses), reconGrids(o.Reconciliation)...), kueueGrids(o.Kueue)...),
		Partial: r.Partial,
	}
	if len(r.Partial) > 0 {
		p.PartialTitle = partialTitle
	}
	for i, row := range g.Rows {
		p.Lines = append(p.Lines, htmlLine{gridRow: row, Bar: newBar(r.Rows[i].GPUCost)})
	}
	p.Lines = append(p.Lines, htmlLine{gridRow: *g.Total, Total: true, Bar: newBar(r.Totals.GPUCost)})
	for _, n := range sortedNotes(r) {
		p.Notes = append(p.Notes, htmlNote{Warning: isWarning(n.Severity), Text: n.Text})
	}
	return page.Execute(w, p)
}

// barWidth is the SVG bar's width in pixels.
const barWidth = 120

// bar splits a row's GPU dollars into coloured segments.
type bar struct {
	Title    string
	Segments []segment
}

type segment struct {
	X, Width string
	Class    string
}

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
