package render

import (
	"bytes"
	"io"
	"strings"
	"text/tabwriter"
	"unicode/utf8"

	"github.com/gpuwise/gpuwise/internal/cost"
)

const (
	indent = "  "
	// cellPadding is the gap between table columns.
	cellPadding = 2
	// minKeyWidth keeps keys readable however narrow the terminal.
	minKeyWidth = 16
)

// painter adds ANSI colour when it is on.
type painter bool

const (
	ansiBold   = "\x1b[1m"
	ansiRed    = "\x1b[31m"
	ansiYellow = "\x1b[33m"
	ansiReset  = "\x1b[0m"
)

func (p painter) paint(code, s string) string {
	if !p || s == "" {
		return s
	}
	return code + s + ansiReset
}

// writeTable writes the terminal view: headline, cost table, idle
// leaderboard and data-quality notes.
func writeTable(w io.Writer, r *cost.Report, o Options) error {
	var b bytes.Buffer
	p := painter(o.Color)
	writePartial(&b, r, p)
	writeHeadline(&b, r, o.Savings, p)
	cg, hidden := costGrid(r, o.MaxRows), []string(nil)
	if o.Width > 0 {
		cg, hidden = fitColumns(cg, o.Width)
	}
	writeGrid(&b, cg, o.Width, p)
	if len(hidden) > 0 {
		b.WriteString(indent + "(hidden to fit the terminal: " + strings.Join(hidden, ", ") + "; -o wide shows every column)\n")
	}
	writeGrid(&b, idleGrid(r), o.Width, p)
	if g, ok := lowUtilGrid(r); ok {
		writeGrid(&b, g, o.Width, p)
	}
	for _, g := range fitWhy(whyGrids(o.IdleCauses), o.IdleCauses, o.Width) {
		writeGrid(&b, g, o.Width, p)
	}
	writeReconciliation(&b, o.Reconciliation, p)
	for _, g := range kueueGrids(o.Kueue) {
		writeGrid(&b, g, o.Width, p)
	}
	writeNotes(&b, r, p)
	_, err := w.Write(trimLines(b.Bytes()))
	return err
}

func writeHeadline(b *bytes.Buffer, r *cost.Report, sav *Savings, p painter) {
	b.WriteString(p.paint(ansiBold, "GPU cost report") + "\n")
	tw := tabwriter.NewWriter(b, 0, 0, cellPadding, ' ', 0)
	for _, f := range headline(r, sav) {
		value := f.Value
		if f.Idle {
			value = p.paint(ansiRed, value)
		}
		io.WriteString(tw, indent+f.Label+"\t"+value+" "+f.Detail+"\n")
	}
	tw.Flush()
}

// writeGrid aligns numbers right with tabwriter. Keys are padded to one
// width first so that AlignRight leaves them reading left to right, and
// idle columns are painted in every cell so that the escape codes, which
// tabwriter counts as text, widen each cell alike.
func writeGrid(b *bytes.Buffer, g grid, width int, p painter) {
	b.WriteString("\n" + p.paint(ansiBold, g.Title) + " (" + g.Caption + ")\n")
	if len(g.Rows) == 0 {
		b.WriteString(indent + "none\n")
		return
	}
	head := gridRow{Key: strings.ToUpper(g.KeyTitle), Whole: true, Cells: make([]string, len(g.Cols))}
	for i, c := range g.Cols {
		head.Cells[i] = strings.ToUpper(c.Title)
	}
	rows := append([]gridRow{head}, g.lines()...)
	keys := padKeys(rows, keyLimit(rows, width))
	tw := tabwriter.NewWriter(b, 0, 0, cellPadding, ' ', tabwriter.AlignRight)
	for i, row := range rows {
		io.WriteString(tw, keys[i]+"\t")
		for j, cell := range row.Cells {
			if g.Cols[j].Idle {
				cell = p.paint(ansiRed, cell)
			}
			io.WriteString(tw, cell+"\t")
		}
		io.WriteString(tw, "\n")
	}
	tw.Flush()
	for _, f := range g.Footnotes {
		b.WriteString(indent + "- " + f + "\n")
	}
}

// keyLimit is how many runes a key may take so that a line fits width, or 0
// when width is 0 (no limit).
func keyLimit(rows []gridRow, width int) int {
	if width <= 0 {
		return 0
	}
	used := cellPadding
	for j := range rows[0].Cells {
		w := 0
		for _, row := range rows {
			w = max(w, utf8.RuneCountInString(row.Cells[j]))
		}
		used += w + cellPadding
	}
	return max(width-used, minKeyWidth)
}

// padKeys labels every row and pads the labels to one width.
func padKeys(rows []gridRow, limit int) []string {
	keys := make([]string, len(rows))
	w := 0
	for i, row := range rows {
		keys[i] = row.label(limit)
		w = max(w, utf8.RuneCountInString(keys[i]))
	}
	for i, k := range keys {
		keys[i] = k + strings.Repeat(" ", w-utf8.RuneCountInString(k))
	}
	return keys
}

// writePartial says first, before any figure, that the report is partial
// and what it lacks.
func writePartial(b *bytes.Buffer, r *cost.Report, p painter) {
	if len(r.Partial) == 0 {
		return
	}
	b.WriteString(p.paint(ansiYellow, p.paint(ansiBold, partialTitle)) + "\n")
	for _, s := range r.Partial {
		b.WriteString(indent + p.paint(ansiYellow, "! "+s) + "\n")
	}
	b.WriteString("\n")
}

func writeNotes(b *bytes.Buffer, r *cost.Report, p painter) {
	b.WriteString("\n" + p.paint(ansiBold, "Data quality") + "\n")
	notes := sortedNotes(r)
	if len(notes) == 0 {
		b.WriteString(indent + "no notes\n")
	}
	for _, n := range notes {
		if isWarning(n.Severity) {
			b.WriteString(indent + p.paint(ansiYellow, "! "+n.Text) + "\n")
			continue
		}
		b.WriteString(indent + "- " + n.Text + "\n")
	}
}

// trimLines drops the spaces tabwriter leaves after empty trailing cells.
func trimLines(text []byte) []byte {
	lines := bytes.Split(text, []byte("\n"))
	for i, l := range lines {
		lines[i] = bytes.TrimRight(l, " ")
	}
	return bytes.Join(lines, []byte("\n"))
}
