package render

import (
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/gpuwise/gpuwise/internal/cost"
	"github.com/gpuwise/gpuwise/internal/idlecause"
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
	// Recommendations, when set, adds the recommendations summary: one
	// headline line in the human formats, a "recommendations" object in
	// JSON. CSV has no place for it.
	Recommendations *Recommendations
	// IdleCauses, when set, adds "Why GPUs idle": two tables in the human
	// formats, an "idle_causes" object in JSON. CSV has no place for it.
	IdleCauses *idlecause.Result
}

// Recommendations summarises `gpuwise recommend` on the same snapshot
// with the default policy (docs/report-format.md).
type Recommendations struct {
	// MonthlySavingsUSD is the priced recommendations' total $/month.
	MonthlySavingsUSD float64 `json:"monthly_savings_usd"`
	// Count is the recommendations (GPU shapes and containers); Unpriced
	// of them have no dollar figure and are not in the total; Skipped
	// workloads or containers had too little data.
	Count    int    `json:"count"`
	Unpriced int    `json:"unpriced"`
	Skipped  int    `json:"skipped"`
	Command  string `json:"command"`
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
		err = writeJSON(w, r, o.Recommendations, o.IdleCauses)
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
