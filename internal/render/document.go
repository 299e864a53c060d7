package render

import (
	"bytes"
	"fmt"
	"html/template"
	"io"
	"slices"
	"strings"
	"text/tabwriter"
)

// doc is a plain document — headings, tables, lines of text, lists — that
// the audit, recommendations and plan are built as once and written as
// text, markdown or HTML from the same blocks.
type doc struct {
	title  string
	blocks []block
	// width, when set, is the terminal's: a table wider than it keeps
	// only its keep columns (writeText).
	width int
}

// block is one heading, table, line or list item.
type block struct {
	kind   blockKind
	text   string
	header []string
	rows   [][]string
	// keep are the columns a table keeps on a terminal too narrow for it
	// (the ones that carry its point); nil: it keeps every column and
	// fit cuts its lines.
	keep []int
}

type blockKind int

const (
	headingBlock blockKind = iota
	tableBlock
	lineBlock // one line of text; "" is a blank line
	itemBlock // one list item
)

func (d *doc) heading(t string) { d.blocks = append(d.blocks, block{kind: headingBlock, text: t}) }
func (d *doc) line(t string)    { d.blocks = append(d.blocks, block{kind: lineBlock, text: t}) }
func (d *doc) item(t string)    { d.blocks = append(d.blocks, block{kind: itemBlock, text: t}) }
func (d *doc) linef(format string, args ...any) {
	d.line(fmt.Sprintf(format, args...))
}
func (d *doc) table(header []string, rows [][]string) {
	d.blocks = append(d.blocks, block{kind: tableBlock, header: header, rows: rows})
}

// tableKeep is a table that keeps only the columns keep on a terminal too
// narrow for all of them.
func (d *doc) tableKeep(header []string, rows [][]string, keep ...int) {
	d.blocks = append(d.blocks, block{kind: tableBlock, header: header, rows: rows, keep: keep})
}

// textTable aligns a table's cells in columns.
func textTable(header []string, rows [][]string) []byte {
	var b bytes.Buffer
	tw := tabwriter.NewWriter(&b, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, strings.Join(header, "\t"))
	for _, r := range rows {
		fmt.Fprintln(tw, strings.Join(r, "\t"))
	}
	tw.Flush()
	return b.Bytes()
}

// narrowTable is bl's text, with only its keep columns when a line of the
// whole table is wider than width, and a line naming those left out.
func narrowTable(bl block, width int) []byte {
	full := textTable(bl.header, bl.rows)
	if width <= 0 || bl.keep == nil || widest(full) <= width {
		return full
	}
	pick := func(cells []string) []string {
		out := make([]string, 0, len(bl.keep))
		for _, i := range bl.keep {
			if i < len(cells) {
				out = append(out, cells[i])
			}
		}
		return out
	}
	rows := make([][]string, len(bl.rows))
	for i, r := range bl.rows {
		rows[i] = pick(r)
	}
	var left []string
	for i, h := range bl.header {
		if !slices.Contains(bl.keep, i) {
			left = append(left, h)
		}
	}
	header := pick(bl.header)
	if rest := widest(textTable(append([]string{""}, header[1:]...), blankFirst(rows))); widest(textTable(header, rows)) > width && width-rest > minKeyWidth {
		for _, r := range rows { // the first column (the key) shrinks, its middle elided
			r[0] = elideMiddle(r[0], width-rest)
		}
	}
	out := textTable(header, rows)
	return append(out, fmt.Sprintf("(%d columns left out at %d columns: %s; -o wide shows them)\n", len(left), width, strings.Join(left, ", "))...)
}

// blankFirst is rows with empty first cells.
func blankFirst(rows [][]string) [][]string {
	out := make([][]string, len(rows))
	for i, r := range rows {
		out[i] = append([]string{""}, r[1:]...)
	}
	return out
}

// elideMiddle cuts s to n runes by replacing its middle with "…": both the
// namespace and the workload's own name stay readable.
func elideMiddle(s string, n int) string {
	rs := []rune(s)
	if len(rs) <= n || n < 3 {
		return s
	}
	head := (n - 1) / 2
	return string(rs[:head]) + ellipsis + string(rs[len(rs)-(n-1-head):])
}

func widest(text []byte) int {
	w := 0
	for _, l := range strings.Split(string(text), "\n") {
		w = max(w, visibleWidth(strings.TrimRight(l, " ")))
	}
	return w
}

// writeText writes the terminal form: headings in capitals, aligned
// tables, items as "- ".
func (d *doc) writeText(w io.Writer) error {
	var b bytes.Buffer
	for _, bl := range d.blocks {
		switch bl.kind {
		case headingBlock:
			fmt.Fprintf(&b, "%s\n", strings.ToUpper(bl.text))
		case tableBlock:
			b.Write(narrowTable(bl, d.width))
			b.WriteString("\n")
		case lineBlock:
			b.WriteString(bl.text + "\n")
		case itemBlock:
			b.WriteString("- " + bl.text + "\n")
		}
	}
	_, err := w.Write(b.Bytes())
	return err
}

// writeMarkdown writes GitHub-flavoured markdown.
func (d *doc) writeMarkdown(w io.Writer) error {
	var b bytes.Buffer
	fmt.Fprintf(&b, "# %s\n\n", d.title)
	for _, bl := range d.blocks {
		switch bl.kind {
		case headingBlock:
			fmt.Fprintf(&b, "## %s\n\n", bl.text)
		case tableBlock:
			fmt.Fprintf(&b, "| %s |\n|%s\n", strings.Join(mdCells(bl.header), " | "), strings.Repeat("---|", len(bl.header)))
			for _, r := range bl.rows {
				fmt.Fprintf(&b, "| %s |\n", strings.Join(mdCells(r), " | "))
			}
			b.WriteString("\n")
		case lineBlock:
			b.WriteString(bl.text + "\n")
		case itemBlock:
			b.WriteString("- " + bl.text + "\n")
		}
	}
	_, err := w.Write(b.Bytes())
	return err
}

// mdCells escapes the pipes that would split a markdown cell.
func mdCells(cells []string) []string {
	out := make([]string, len(cells))
	for i, c := range cells {
		out[i] = strings.ReplaceAll(strings.ReplaceAll(c, "|", `\|`), "\n", " ")
	}
	return out
}

// docPage is the HTML form: one self-contained page, no scripts.
var docPage = template.Must(template.New("doc").Parse(`<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{{.Title}}</title>
<style>
body { font: 14px/1.45 system-ui, -apple-system, "Segoe UI", sans-serif; color: #1f2328; margin: 2rem auto; max-width: 1200px; padding: 0 1rem; }
h1 { font-size: 1.6rem; margin: 0 0 .6rem; }
h2 { font-size: 1.15rem; margin: 2rem 0 .4rem; }
p { margin: .2rem 0; }
.scroll { overflow-x: auto; }
table { border-collapse: collapse; font-variant-numeric: tabular-nums; }
th, td { padding: .3rem .6rem; border-bottom: 1px solid #e6eaef; text-align: left; vertical-align: top; overflow-wrap: anywhere; }
th { color: #59636e; font-weight: 600; border-bottom: 2px solid #d1d9e0; }
pre { margin: 0; white-space: pre-wrap; }
</style>
</head>
<body>
<h1>{{.Title}}</h1>
{{- range .Blocks}}
{{- if eq .Kind 0}}
<h2>{{.Text}}</h2>
{{- else if eq .Kind 1}}
<div class="scroll"><table>
<tr>{{range .Header}}<th>{{.}}</th>{{end}}</tr>
{{- range .Rows}}
<tr>{{range .}}<td>{{.}}</td>{{end}}</tr>
{{- end}}
</table></div>
{{- else if eq .Kind 2}}{{if .Text}}
<p>{{.Text}}</p>{{end}}
{{- else}}
<p>• {{.Text}}</p>
{{- end}}
{{- end}}
</body>
</html>
`))

type htmlBlock struct {
	Kind   int
	Text   string
	Header []string
	Rows   [][]string
}

// writeHTML writes the page; html/template escapes every value.
func (d *doc) writeHTML(w io.Writer) error {
	v := struct {
		Title  string
		Blocks []htmlBlock
	}{Title: d.title}
	for _, bl := range d.blocks {
		v.Blocks = append(v.Blocks, htmlBlock{Kind: int(bl.kind), Text: bl.text, Header: bl.header, Rows: bl.rows})
	}
	return docPage.Execute(w, v)
}

// docWriters are the human formats of a document.
func docWriters(d *doc, ws writers) writers {
	ws[Markdown] = d.writeMarkdown
	ws[HTML] = d.writeHTML
	if ws[Table] == nil {
		ws[Table] = d.writeText
	}
	return ws
}
