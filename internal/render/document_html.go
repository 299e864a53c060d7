package render

import (
	_ "embed"
	"html/template"
	"io"
	"strings"
)

//go:embed document.html.tmpl
var documentSource string

// documentPages are the page shells and the blocks' HTML, parsed once;
// html/template escapes every value by context.
var documentPages = template.Must(template.New("document").Funcs(template.FuncMap{"upperFirst": upperFirst, "breakable": breakable}).Parse(documentSource))

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

// htmlBlock is a block as the template sees it.
type htmlBlock struct {
	Kind    int
	Text    string
	Header  []string
	Rows    [][]string
	Caption string
	Items   []string
	Facts   []fact
	Grid    *grid
	Notes   []note
	// Lines are a grid with Bars' rows and totals line, in print order.
	Lines []htmlLine
}

// htmlLine is a line of a grid with bars; Total marks its totals line.
type htmlLine struct {
	gridRow
	Total bool
}

// writeHTML writes the page: one self-contained file, no scripts, no
// external resources.
func (d *doc) writeHTML(w io.Writer) error {
	v := struct {
		Title, Tab string
		Blocks     []htmlBlock
	}{Title: d.title, Tab: d.tab}
	if v.Tab == "" {
		v.Tab = d.title
	}
	for _, bl := range d.blocks {
		hb := htmlBlock{Kind: int(bl.kind), Text: bl.text, Header: bl.header, Rows: bl.rows,
			Caption: bl.caption, Items: bl.items, Facts: bl.facts, Grid: bl.grid, Notes: bl.notes}
		if g := bl.grid; g != nil && g.Bars {
			for _, r := range g.Rows {
				hb.Lines = append(hb.Lines, htmlLine{gridRow: r})
			}
			if g.Total != nil {
				hb.Lines = append(hb.Lines, htmlLine{gridRow: *g.Total, Total: true})
			}
		}
		v.Blocks = append(v.Blocks, hb)
	}
	page := d.page
	if page == "" {
		page = plainPage
	}
	return documentPages.ExecuteTemplate(w, string(page), v)
}
