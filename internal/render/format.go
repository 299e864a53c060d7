package render

import (
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/gpuwise/gpuwise/internal/billing"
	"github.com/gpuwise/gpuwise/internal/cost"
	"github.com/gpuwise/gpuwise/internal/idlecause"
	"github.com/gpuwise/gpuwise/internal/kueue"
	"github.com/gpuwise/gpuwise/internal/ledger"
)

// Format names an output format.
type Format string

// Output formats. Table is the terminal view, cut to the terminal's width
// when Options.Width is set; Wide is the same view uncut.
const (
	Table    Format = "table"
	Wide     Format = "wide"
	JSON     Format = "json"
	YAML     Format = "yaml"
	CSV      Format = "csv"
	Markdown Format = "markdown"
	HTML     Format = "html"
	SARIF    Format = "sarif"
)

// Formats lists the formats every command writes, in the order help text
// shows them; AuditFormats adds SARIF, the format CI code-scanning reads.
var (
	Formats      = []Format{Table, Wide, JSON, YAML, CSV, Markdown, HTML}
	AuditFormats = append(append([]Format{}, Formats...), SARIF)
)

// ParseFormat turns a flag value into one of the formats in set: the one
// place an -o value is checked. The error lists the valid values.
func ParseFormat(s string, set []Format) (Format, error) {
	for _, f := range set {
		if strings.EqualFold(s, string(f)) {
			return f, nil
		}
	}
	return "", fmt.Errorf("output format %q is not one of %s", s, FormatList(set))
}

// FormatList is the formats of set as help text shows them.
func FormatList(set []Format) string {
	names := make([]string, len(set))
	for i, f := range set {
		names[i] = string(f)
	}
	return strings.Join(names, ", ")
}

// Options tune the human formats; machine formats (json, yaml, csv, sarif)
// ignore them.
type Options struct {
	// Color adds ANSI colour to the table: warnings yellow, idle dollars
	// red. Callers set it only when writing to a terminal.
	Color bool
	// Width is the terminal width: the table format cuts long keys and
	// then long lines with "…" to fit it and says so; 0 (not a terminal)
	// and the wide format cut nothing.
	Width int
	// MaxRows caps the grouped rows in table and markdown; 0 shows all.
	// Totals always cover every row.
	MaxRows int
	// Savings, when set, adds the savings ledger's summary: headline lines
	// (the saving and what to do first) in the human formats, a "savings"
	// object in JSON and YAML. CSV has no place for it.
	Savings *Savings
	// Version is gpuwise's version, for SARIF's tool record.
	Version string
	// IdleCauses, when set, adds "Why GPUs idle" to the report: two tables
	// in the human formats, an "idle_causes" object in JSON and YAML. CSV
	// has no place for it.
	IdleCauses *idlecause.Result
	// Reconciliation, when set (report --bill), adds the bill against the
	// node cost: a section in the table formats, a "reconciliation"
	// object in JSON and YAML. CSV has no place for it.
	Reconciliation *billing.Reconciliation
	// Kueue, when set (the snapshot has Kueue queues), adds "Kueue
	// queues" to the report: a table in the human formats, a "kueue"
	// object in JSON and YAML. CSV has no place for it.
	Kueue *kueue.Result
}

// Savings summarises the savings ledger of the same snapshot and prices
// (`gpuwise advise`, docs/savings.md) for the report's headline: every
// savings figure the report prints is one of these.
type Savings struct {
	// BeforeUSDMonth and AfterUSDMonth are the ledger's modelled cost of
	// the GPU nodes alive at the window's end, before and after every
	// action; SavingUSDMonth is the difference.
	BeforeUSDMonth float64 `json:"before_usd_month"`
	AfterUSDMonth  float64 `json:"after_usd_month"`
	SavingUSDMonth float64 `json:"saving_usd_month"`
	// Actions counts the actions that save money.
	Actions int `json:"actions"`
	// First are the first three of them in plan order.
	First   []ledger.FirstAction `json:"first"`
	Command string               `json:"command"`
}

// WithAnalyses returns o with the report's companions set from the same
// use case: the ledger's savings lines (none for a nil ledger) and the
// idle causes. Every front end that renders a report sets them here, so
// none can show the report without one of them.
func (o Options) WithAnalyses(l *ledger.Ledger, why *idlecause.Result) Options {
	o.Savings, o.IdleCauses = NewSavings(l), why
	return o
}

// NewSavings summarises a ledger for the report; nil for no ledger.
func NewSavings(l *ledger.Ledger) *Savings {
	if l == nil {
		return nil
	}
	s := &Savings{BeforeUSDMonth: l.BeforeUSDMonth, AfterUSDMonth: l.AfterUSDMonth, SavingUSDMonth: l.SavingUSDMonth,
		First: l.Summary.First, Command: "gpuwise advise"}
	for _, a := range l.Actions {
		if a.SavingUSDMonth > 0 {
			s.Actions++
		}
	}
	if s.First == nil {
		s.First = []ledger.FirstAction{}
	}
	return s
}

// Report writes r to w in format f.
func Report(w io.Writer, r *cost.Report, f Format, o Options) error {
	if r == nil {
		return errors.New("rendering report: no report")
	}
	return write(w, "report", f, o, writers{
		Table:    func(w io.Writer) error { return reportDoc(r, o, Table).writeText(w) },
		Markdown: func(w io.Writer) error { return reportDoc(r, o, Markdown).writeMarkdown(w) },
		HTML:     func(w io.Writer) error { return reportDoc(r, o, HTML).writeHTML(w) },
		JSON:     func(w io.Writer) error { return encodeJSON(w, reportValue(r, o)) },
		YAML:     func(w io.Writer) error { return encodeYAML(w, reportValue(r, o)) },
		CSV:      func(w io.Writer) error { return writeCSV(w, r) },
	})
}
