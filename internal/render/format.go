package render

import (
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/gpuwise/gpuwise/internal/cost"
	"github.com/gpuwise/gpuwise/internal/ledger"
)

// Format names an output format.
type Format string

// Output formats.
const (
	Table    Format = "table"
	JSON     Format = "json"
	CSV      Format = "csv"
	Markdown Format = "markdown"
	HTML     Format = "html"
)

// Formats lists every format in the order help text shows them.
var Formats = []Format{Table, JSON, CSV, Markdown, HTML}

// ParseFormat turns a flag value into a Format; the error lists the valid
// values.
func ParseFormat(s string) (Format, error) {
	for _, f := range Formats {
		if strings.EqualFold(s, string(f)) {
			return f, nil
		}
	}
	names := make([]string, len(Formats))
	for i, f := range Formats {
		names[i] = string(f)
	}
	return "", fmt.Errorf("output format %q is not one of %s", s, strings.Join(names, ", "))
}

// Options tune the human formats; machine formats (json, csv) ignore them.
type Options struct {
	// Color adds ANSI colour to the table: warnings yellow, idle dollars
	// red. Callers set it only when writing to a terminal.
	Color bool
	// Width is the terminal width; long keys are cut with "…" to fit it.
	// 0 means no limit and no cutting.
	Width int
	// MaxRows caps the grouped rows in table and markdown; 0 shows all.
	// Totals always cover every row.
	MaxRows int
	// Savings, when set, adds the savings ledger's summary: headline lines
	// (the saving and what to do first) in the human formats, a "savings"
	// object in JSON. CSV has no place for it.
	Savings *Savings
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

// NewSavings summarises a ledger for the report.
func NewSavings(l *ledger.Ledger) *Savings {
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
	var err error
	switch f {
	case Table:
		err = writeTable(w, r, o)
	case JSON:
		err = writeJSON(w, r, o.Savings)
	case CSV:
		err = writeCSV(w, r)
	case Markdown:
		err = writeMarkdown(w, r, o)
	case HTML:
		err = writeHTML(w, r, o)
	default:
		_, err = ParseFormat(string(f))
	}
	if err != nil {
		return fmt.Errorf("rendering %s report: %w", f, err)
	}
	return nil
}
