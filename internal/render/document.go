package render

import (
	"bytes"
	"fmt"
	"html/template"
	"io"
	"strings"
	"text/tabwriter"
)

// doc is a plain document — headings, tables, lines of text, lists — that
// the audit, recommendations and plan are built as once and written as
// text, markdown or HTML from the same blocks.
type doc struct {
	title  string
	blocks []block
}

// block is one heading, table, line or list item.
type block struct {
	kind   blockKind
	text   string
	header []string
	rows   [][]string
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

// writeText writes the terminal form: headings in capitals, aligned
// tables, items as "- ".
func (d *doc) writeText(w io.Writer) error {
	var b bytes.Buffer
	for _, bl := range d.blocks {
		switch bl.kind {
		case headingBlock:
			fmt.Fprintf(&b, "%s\n", strings.ToUpper(bl.text))
		case tableBlock:
			tw := tabwriter.NewWriter(&b, 0, 0, 2, ' ', 0)
			fmt.Fprintln(tw, strings.Join(bl.header, "\t"))
			for _, r := range bl.rows {
				fmt.Fprintln(tw, strings.Join(r, "\t"))
			}
			tw.Flush()
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
