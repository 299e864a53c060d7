package render

import (
	"bytes"
	"fmt"
	"io"
	"strings"
)

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
		case partialBlock:
			b.WriteString("> **" + mdEscape(bl.text) + "**\n>\n")
			for _, s := range bl.items {
				b.WriteString("> - " + mdEscape(s) + "\n")
			}
			b.WriteString("\n")
		case factsBlock: // the title is the document's
			for _, f := range bl.facts {
				b.WriteString("- **" + f.Label + ":** " + mdEscape(f.Value+" "+f.Detail) + "\n")
			}
		case gridBlock:
			mdGrid(&b, *bl.grid)
		case notesBlock:
			mdNotes(&b, bl.text, bl.notes)
		case preBlock:
			b.WriteString("```\n" + bl.text + "```\n")
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

// mdGrid writes a grid with its caption, the key column left and the
// numbers right, the totals line in bold.
func mdGrid(b *bytes.Buffer, g grid) {
	b.WriteString("\n## " + mdEscape(g.Title) + "\n\n")
	if len(g.Rows) == 0 {
		b.WriteString("None.\n")
		return
	}
	b.WriteString("_" + mdEscape(upperFirst(g.Caption)) + "._\n\n")
	head := []string{mdEscape(g.KeyTitle)}
	rule := []string{":---"}
	for _, c := range g.Cols {
		head = append(head, mdEscape(c.Title))
		rule = append(rule, "---:")
	}
	mdLine(b, head)
	mdLine(b, rule)
	lines := g.lines()
	for i, row := range lines {
		key := mdEscape(row.label(0))
		if g.Total != nil && i == len(lines)-1 {
			key = "**" + key + "**"
		}
		cells := []string{key}
		for _, c := range row.Cells {
			cells = append(cells, mdEscape(c))
		}
		mdLine(b, cells)
	}
	if len(g.Footnotes) > 0 {
		b.WriteString("\n")
	}
	for _, f := range g.Footnotes {
		b.WriteString("- " + mdEscape(f) + "\n")
	}
}

func mdLine(b *bytes.Buffer, cells []string) {
	b.WriteString("| " + strings.Join(cells, " | ") + " |\n")
}

func mdNotes(b *bytes.Buffer, title string, notes []note) {
	b.WriteString("\n## " + title + "\n\n")
	if len(notes) == 0 {
		b.WriteString("No notes.\n")
	}
	for _, n := range notes {
		prefix := "- "
		if n.Warning {
			prefix = "- **Warning:** "
		}
		b.WriteString(prefix + mdEscape(n.Text) + "\n")
	}
}

// mdSpecial are the characters that would change how a cell renders, open
// raw HTML, or pair up as GitHub maths ("| $1 | $2 |"), if written as they
// are. Backslash escapes are CommonMark, so every renderer shows the plain
// character.
var mdSpecial = strings.NewReplacer(
	`\`, `\\`, "`", "\\`", `*`, `\*`, `_`, `\_`, `[`, `\[`, `]`, `\]`,
	`&`, `\&`, `<`, `\<`, `>`, `\>`, `|`, `\|`, `$`, `\$`, "\n", " ", "\r", " ",
)

func mdEscape(s string) string { return mdSpecial.Replace(s) }

func upperFirst(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}
