package render

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"sigs.k8s.io/yaml"

	"github.com/gpuwise/gpuwise/internal/ledger"
)

// YAML is the ledger's (and other results') YAML form: the JSON fields.
const YAML Format = "yaml"

// LedgerFormats are the formats of `gpuwise advise`.
var LedgerFormats = []Format{Table, JSON, YAML, Markdown, HTML}

// Ledger writes the savings ledger in format f: json and yaml are the
// ledger's documented fields (docs/savings.md); table, markdown and html
// show the summary, the plan, the metrics and red flags.
func Ledger(w io.Writer, l *ledger.Ledger, f Format) error {
	if l == nil {
		return errors.New("rendering ledger: no ledger")
	}
	var err error
	switch f {
	case JSON:
		err = writeLedgerJSON(w, l)
	case YAML:
		err = writeLedgerYAML(w, l)
	case Table:
		err = writeLedgerText(w, newLedgerView(l), false)
	case Markdown:
		err = writeLedgerText(w, newLedgerView(l), true)
	case HTML:
		err = ledgerPage.Execute(w, newLedgerView(l))
	default:
		err = fmt.Errorf("output format %q is not one of table, json, yaml, markdown, html", f)
	}
	if err != nil {
		return fmt.Errorf("rendering %s ledger: %w", f, err)
	}
	return nil
}

func writeLedgerJSON(w io.Writer, l *ledger.Ledger) error {
	b, err := json.MarshalIndent(l, "", "  ")
	if err != nil {
		return err
	}
	_, err = w.Write(append(b, '\n'))
	return err
}

func writeLedgerYAML(w io.Writer, l *ledger.Ledger) error {
	b, err := json.Marshal(l)
	if err == nil {
		b, err = yaml.JSONToYAML(b)
	}
	if err != nil {
		return err
	}
	_, err = w.Write(b)
	return err
}

// writeLedgerText writes the table (terminal) or markdown form.
func writeLedgerText(w io.Writer, v ledgerView, md bool) error {
	t := &textOut{md: md}
	t.title("GPU savings plan", v.Window+" · source "+v.Source+" · $/month at 730 h · nothing applied")
	t.section("Summary")
	t.bullets(v.Summary)
	t.section("Before → after")
	t.bullets([]string{v.BeforeAfter, v.Bridge})
	t.section("Levers, in the order they apply")
	t.table([]string{"lever", "saves $/month", "actions", "not counted"}, v.Levers)
	for _, ph := range v.Phases {
		t.section(ph.Title)
		if len(ph.Rows) == 0 {
			t.para("Nothing in this phase.")
			continue
		}
		t.table(actionHeader, ph.Rows)
		for _, d := range ph.Details {
			t.detail(d)
		}
	}
	t.section("FinOps metrics")
	t.table([]string{"metric", "value", "target", "status", "detail"}, v.Metrics)
	t.section("Red flags")
	t.table([]string{"flag", "status", "at stake (a cost, not a saving)", "actions", "detail"}, v.Flags)
	t.section("Not counted")
	if len(v.NotCounted) == 0 {
		t.para("Everything found is counted.")
	} else {
		t.table([]string{"lever", "target", "why"}, v.NotCounted)
		if v.MoreNotCounted > 0 {
			t.para(fmt.Sprintf("… %d more (all in -o json).", v.MoreNotCounted))
		}
	}
	if len(v.Notes) > 0 {
		t.section("Notes")
		t.bullets(v.Notes)
	}
	_, err := w.Write(t.b.Bytes())
	return err
}

// textOut writes sections, bullets and tables as terminal text or
// markdown.
type textOut struct {
	b  bytes.Buffer
	md bool
}

func (t *textOut) title(title, sub string) {
	if t.md {
		fmt.Fprintf(&t.b, "# %s\n\n_%s_\n", mdEscape(title), mdEscape(sub))
		return
	}
	fmt.Fprintf(&t.b, "%s\n  %s\n", title, sub)
}

func (t *textOut) section(s string) {
	if t.md {
		fmt.Fprintf(&t.b, "\n## %s\n\n", mdEscape(s))
		return
	}
	fmt.Fprintf(&t.b, "\n%s\n", s)
}

func (t *textOut) para(s string) {
	if t.md {
		t.b.WriteString(mdEscape(s) + "\n")
		return
	}
	t.b.WriteString("  " + s + "\n")
}

func (t *textOut) bullets(lines []string) {
	for _, l := range lines {
		if t.md {
			t.b.WriteString("- " + mdEscape(l) + "\n")
		} else {
			t.b.WriteString("  " + l + "\n")
		}
	}
}

func (t *textOut) table(header []string, rows [][]string) {
	if t.md {
		esc := func(cells []string) []string {
			out := make([]string, len(cells))
			for i, c := range cells {
				out[i] = mdEscape(c)
			}
			return out
		}
		mdLine(&t.b, esc(header))
		mdLine(&t.b, strings.Split(strings.Repeat("---,", len(header)-1)+"---", ","))
		for _, r := range rows {
			mdLine(&t.b, esc(r))
		}
		return
	}
	tw := tabwriter.NewWriter(&t.b, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "  "+strings.ToUpper(strings.Join(header, "\t")))
	for _, r := range rows {
		fmt.Fprintln(tw, "  "+strings.Join(r, "\t"))
	}
	tw.Flush()
}

func (t *textOut) detail(d actionDetail) {
	if t.md {
		fmt.Fprintf(&t.b, "\n**%s**\n\n", mdEscape(d.Head))
		t.bullets(d.Lines)
		return
	}
	fmt.Fprintf(&t.b, "\n  %s\n", d.Head)
	for _, l := range d.Lines {
		t.b.WriteString("    " + l + "\n")
	}
}

// ParseLedgerFormat turns a flag value into one of LedgerFormats; the
// error lists them.
func ParseLedgerFormat(s string) (Format, error) {
	names := make([]string, len(LedgerFormats))
	for i, f := range LedgerFormats {
		if strings.EqualFold(s, string(f)) {
			return f, nil
		}
		names[i] = string(f)
	}
	return "", fmt.Errorf("output format %q is not one of %s", s, strings.Join(names, ", "))
}
