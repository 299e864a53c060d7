package render

import (
	"bytes"
	"fmt"
	"io"
	"slices"
	"strings"
	"text/tabwriter"
	"unicode/utf8"
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

// writeText writes the terminal form: headings in capitals, aligned
// tables, items as "- "; the cost report's parts as its terminal view.
func (d *doc) writeText(w io.Writer) error {
	var b bytes.Buffer
	p := painter(d.color)
	for _, bl := range d.blocks {
		switch bl.kind {
		case headingBlock:
			fmt.Fprintf(&b, "%s\n", strings.ToUpper(bl.text))
		case tableBlock:
			b.Write(narrowTable(bl, d.width))
			if !bl.tight {
				b.WriteString("\n")
			}
		case lineBlock:
			b.WriteString(bl.text + "\n")
		case itemBlock:
			b.WriteString("- " + bl.text + "\n")
		default:
			// The report's parts leave no spaces after empty trailing
			// cells.
			var part bytes.Buffer
			writeTextPart(&part, bl, d.width, p)
			b.Write(trimLines(part.Bytes()))
		}
	}
	_, err := w.Write(b.Bytes())
	return err
}

// writeTextPart writes one of the cost report's parts.
func writeTextPart(b *bytes.Buffer, bl block, width int, p painter) {
	switch bl.kind {
	case partialBlock:
		b.WriteString(p.paint(ansiYellow, p.paint(ansiBold, bl.text)) + "\n")
		for _, s := range bl.items {
			b.WriteString(indent + p.paint(ansiYellow, "! "+s) + "\n")
		}
		b.WriteString("\n")
	case factsBlock:
		b.WriteString(p.paint(ansiBold, bl.text) + "\n")
		tw := tabwriter.NewWriter(b, 0, 0, cellPadding, ' ', 0)
		for _, f := range bl.facts {
			value := f.Value
			if f.Idle {
				value = p.paint(ansiRed, value)
			}
			io.WriteString(tw, indent+f.Label+"\t"+value+" "+f.Detail+"\n")
		}
		tw.Flush()
	case gridBlock:
		writeGrid(b, *bl.grid, width, p)
	case notesBlock:
		b.WriteString("\n" + p.paint(ansiBold, bl.text) + "\n")
		if len(bl.notes) == 0 {
			b.WriteString(indent + "no notes\n")
		}
		for _, n := range bl.notes {
			if n.Warning {
				b.WriteString(indent + p.paint(ansiYellow, "! "+n.Text) + "\n")
				continue
			}
			b.WriteString(indent + "- " + n.Text + "\n")
		}
	case preBlock:
		b.WriteString(bl.text)
	}
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

// trimLines drops the spaces tabwriter leaves after empty trailing cells.
func trimLines(text []byte) []byte {
	lines := bytes.Split(text, []byte("\n"))
	for i, l := range lines {
		lines[i] = bytes.TrimRight(l, " ")
	}
	return bytes.Join(lines, []byte("\n"))
}
