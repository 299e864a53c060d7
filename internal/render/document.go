package render

import (
	"fmt"
	"slices"
	"unicode/utf8"
)

// The document model: every human format (table, markdown, HTML) of every
// command is a doc built once from the command's result and written by
// the doc's own writers (document_text.go, document_markdown.go,
// document_html.go). A command adds blocks; it never writes a format
// itself. TestOneDocumentModel keeps it that way.

// doc is a plain document — headings, tables, lines of text, lists, and
// the cost report's headline, grids and notes — written as text, markdown
// or HTML from the same blocks.
type doc struct {
	title string
	// tab is the HTML page's title when it differs from title.
	tab    string
	blocks []block
	// width, when set, is the terminal's: a table wider than it keeps
	// only its keep columns (writeText), a grid cuts its keys.
	width int
	// color paints the text form (bold titles, yellow warnings, red idle
	// dollars); only a terminal asks for it.
	color bool
	// page is the HTML page shell: plainPage or reportPage.
	page pageShell
}

// pageShell names the HTML page a document is written into.
type pageShell string

const (
	// plainPage is the page of the audit, plans, inventory and the rest.
	plainPage pageShell = "doc"
	// reportPage is the cost report's page: its headline as cards.
	reportPage pageShell = "report"
)

// block is one heading, table, line, list item, or one of the cost
// report's parts (a partial warning, a headline, a grid, the notes, a
// preformatted section).
type block struct {
	kind   blockKind
	text   string
	header []string
	rows   [][]string
	// keep are the columns a table keeps on a terminal too narrow for it
	// (the ones that carry its point); nil: it keeps every column and
	// fit cuts its lines.
	keep []int
	// tight is a table the terminal form follows with its next line at
	// once, not a blank line (markdown always leaves one).
	tight bool
	// caption is a headline's subtitle.
	caption string
	// items are a partial warning's lines.
	items []string
	facts []fact
	grid  *grid
	notes []note
}

type blockKind int

// The block kinds; their numbers are what document.html.tmpl switches on.
const (
	headingBlock blockKind = iota
	tableBlock
	lineBlock    // one line of text; "" is a blank line
	itemBlock    // one list item
	partialBlock // text: the warning; items: what could not be read
	factsBlock   // text: the title; caption: its subtitle; facts
	gridBlock    // a titled table keyed by its first column, numbers right
	notesBlock   // text: the title; notes: the data-quality notes
	preBlock     // preformatted text, written as it is
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

// tableTight is a table whose next block follows it on the terminal
// without a blank line.
func (d *doc) tableTight(header []string, rows [][]string) {
	d.blocks = append(d.blocks, block{kind: tableBlock, header: header, rows: rows, tight: true})
}

// partial says, before any figure, that the result is partial and what it
// lacks; nothing when it lacks nothing.
func (d *doc) partial(title string, lacks []string) {
	if len(lacks) > 0 {
		d.blocks = append(d.blocks, block{kind: partialBlock, text: title, items: lacks})
	}
}

// headline is a title, its subtitle and the headline figures.
func (d *doc) headline(title, caption string, facts []fact) {
	d.blocks = append(d.blocks, block{kind: factsBlock, text: title, caption: caption, facts: facts})
}

func (d *doc) addGrid(g grid) { d.blocks = append(d.blocks, block{kind: gridBlock, grid: &g}) }

func (d *doc) addNotes(title string, ns []note) {
	d.blocks = append(d.blocks, block{kind: notesBlock, text: title, notes: ns})
}

// pre is text written as it is (the terminal's bill reconciliation).
func (d *doc) pre(text string) {
	if text != "" {
		d.blocks = append(d.blocks, block{kind: preBlock, text: text})
	}
}

// fact is one headline figure: a label, the figure, and what it is of.
type fact struct {
	Label, Value, Detail string
	// Idle marks idle dollars, which colour output paints red.
	Idle bool
}

// note is one data-quality note; warnings come first and stand out.
type note struct {
	Warning bool
	Text    string
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
	// Hot marks the cells of idle columns that hold idle dollars (more
	// than $0, priced); html paints only those, so "$0" is never red.
	Hot []bool
	// Bar is the row's GPU dollars split by kind, drawn beside it in
	// HTML when the grid has Bars.
	Bar *bar
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
	// Bars adds the rows' GPU dollar bars (and a legend) in HTML.
	Bars bool
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

// bar splits a row's GPU dollars into coloured segments.
type bar struct {
	Title    string
	Segments []segment
}

type segment struct {
	X, Width string
	Class    string
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
