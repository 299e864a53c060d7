package render

import (
	"bytes"
	"io"
	"strings"

	"github.com/gpuwise/gpuwise/internal/cost"
)

// writeMarkdown writes GitHub-flavoured markdown for pull requests, issues
// and wikis: the headline as bullets, the tables, then the notes.
func writeMarkdown(w io.Writer, r *cost.Report, o Options) error {
	var b bytes.Buffer
	b.WriteString("# GPU cost report\n\n")
	if len(r.Partial) > 0 {
		b.WriteString("> **" + mdEscape(partialTitle) + "**\n>\n")
		for _, s := range r.Partial {
			b.WriteString("> - " + mdEscape(s) + "\n")
		}
		b.WriteString("\n")
	}
	for _, f := range headline(r, o.Savings) {
		b.WriteString("- **" + f.Label + ":** " + mdEscape(f.Value+" "+f.Detail) + "\n")
	}
	mdGrid(&b, costGrid(r, o.MaxRows))
	mdGrid(&b, idleGrid(r))
	if g, ok := lowUtilGrid(r); ok {
		mdGrid(&b, g)
	}
	for _, g := range whyGrids(o.IdleCauses) {
		mdGrid(&b, g)
	}
	for _, g := range reconGrids(o.Reconciliation) {
		mdGrid(&b, g)
	}
	for _, g := range kueueGrids(o.Kueue) {
		mdGrid(&b, g)
	}
	mdNotes(&b, r)
	_, err := w.Write(b.Bytes())
	return err
}

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

func mdNotes(b *bytes.Buffer, r *cost.Report) {
	b.WriteString("\n## Data quality\n\n")
	notes := sortedNotes(r)
	if len(notes) == 0 {
		b.WriteString("No notes.\n")
	}
	for _, n := range notes {
		prefix := "- "
		if isWarning(n.Severity) {
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
