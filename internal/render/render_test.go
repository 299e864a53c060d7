package render

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/gpuwise/gpuwise/internal/cost"
)

func render(t *testing.T, r *cost.Report, f Format, o Options) string {
	t.Helper()
	var b bytes.Buffer
	if err := Report(&b, r, f, o); err != nil {
		t.Fatalf("Report(%s): %v", f, err)
	}
	return b.String()
}

func TestParseFormat(t *testing.T) {
	tests := []struct {
		name    string
		in      string
		want    Format
		wantErr bool
	}{
		{name: "every documented name parses", in: "markdown", want: Markdown},
		{name: "case does not matter", in: "JSON", want: JSON},
		{name: "an unknown name is an error", in: "xml", wantErr: true},
		{name: "sarif is the audit's alone", in: "sarif", wantErr: true},
		{name: "an empty name is an error", in: "", wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ParseFormat(tt.in, Formats)
			if tt.wantErr {
				if err == nil {
					t.Fatalf("ParseFormat(%q) = %q, want an error", tt.in, got)
				}
				for _, f := range Formats {
					if !strings.Contains(err.Error(), string(f)) {
						t.Errorf("error %q does not list %q", err, f)
					}
				}
				return
			}
			if err != nil || got != tt.want {
				t.Errorf("ParseFormat(%q) = %q, %v; want %q", tt.in, got, err, tt.want)
			}
		})
	}
}

func TestReportRejectsBadInput(t *testing.T) {
	var b bytes.Buffer
	if err := Report(&b, nil, Table, Options{}); err == nil {
		t.Error("Report(nil report) succeeded, want an error")
	}
	err := Report(&b, sampleReport(), SARIF, Options{})
	if err == nil || !strings.Contains(err.Error(), `output format "sarif" is not one of table, wide, json, yaml, csv, markdown, html`) {
		t.Errorf("Report(sarif) error = %v, want one listing the formats", err)
	}
}

func TestCSVParsesBackAndMatchesTotals(t *testing.T) {
	r := sampleReport()
	records, err := csv.NewReader(strings.NewReader(render(t, r, CSV, Options{}))).ReadAll()
	if err != nil {
		t.Fatalf("parsing csv: %v", err)
	}
	if diff := cmp.Diff(csvHeader, records[0]); diff != "" {
		t.Errorf("header (-want +got):\n%s", diff)
	}
	if got, want := len(records)-1, len(r.Rows); got != want {
		t.Fatalf("csv has %d rows, want %d", got, want)
	}
	col := func(name string) int { return indexOf(t, records[0], name) }
	var total, allocated float64
	for i, rec := range records[1:] {
		unpriced := rec[col("unpriced")] == "true"
		if unpriced != r.Rows[i].Unpriced {
			t.Errorf("row %q: unpriced %q, want %v", rec[0], rec[col("unpriced")], r.Rows[i].Unpriced)
		}
		allocated += parseFloat(t, rec[col("gpu_hours_allocated")])
		if util := rec[col("gpu_utilization")]; (util == "") != (r.Rows[i].GPUUtilization == nil) {
			t.Errorf("row %q: utilization %q, want empty exactly when the report has none", rec[0], util)
		}
		if cell := rec[col("total_cost_usd")]; unpriced {
			if cell != "" || rec[col("gpu_cost_allocated_idle_usd")] != "" {
				t.Errorf("unpriced row %q: dollars %q, want empty cells (never 0)", rec[0], cell)
			}
			continue
		}
		total += parseFloat(t, rec[col("total_cost_usd")])
	}
	if math.Abs(total-r.Totals.TotalCost) > 1e-9 {
		t.Errorf("csv total_cost_usd sums to %v, report total is %v", total, r.Totals.TotalCost)
	}
	if math.Abs(allocated-r.Totals.GPUHours.Allocated) > 1e-9 {
		t.Errorf("csv gpu_hours_allocated sums to %v, report total is %v", allocated, r.Totals.GPUHours.Allocated)
	}
}

func indexOf(t *testing.T, header []string, name string) int {
	t.Helper()
	for i, h := range header {
		if h == name {
			return i
		}
	}
	t.Fatalf("csv has no column %q", name)
	return -1
}

func parseFloat(t *testing.T, s string) float64 {
	t.Helper()
	v, err := strconv.ParseFloat(s, 64)
	if err != nil {
		t.Fatalf("csv number %q: %v", s, err)
	}
	return v
}

func TestJSONRoundTrips(t *testing.T) {
	want := sampleReport()
	var got cost.Report
	if err := json.Unmarshal([]byte(render(t, want, JSON, Options{})), &got); err != nil {
		t.Fatalf("decoding json: %v", err)
	}
	if diff := cmp.Diff(want, &got); diff != "" {
		t.Errorf("round trip (-want +got):\n%s", diff)
	}
}

func TestHTMLEscapesEverything(t *testing.T) {
	r := sampleReport()
	evil := `<script>alert("gpu")</script>`
	r.Rows[0].Key = evil
	r.TopIdle[0].Key = evil
	r.Notes[0].Text = evil
	got := render(t, r, HTML, Options{})
	if strings.Contains(got, "<script") {
		t.Errorf("html contains a raw <script> tag:\n%s", got)
	}
	if n := strings.Count(got, "&lt;script&gt;"); n != 3 {
		t.Errorf("html has %d escaped <script> keys, want 3", n)
	}
	for _, external := range []string{"src=", "href=", "<link", "@import"} {
		if strings.Contains(got, external) {
			t.Errorf("html loads something from outside (%q); it must be self-contained", external)
		}
	}
}

func TestMarkdownEscapesKeys(t *testing.T) {
	r := sampleReport()
	r.Rows[0].Key = "team|a <b>"
	got := render(t, r, Markdown, Options{})
	if !strings.Contains(got, `| team\|a \<b\> |`) {
		t.Errorf("markdown does not escape a key with | and <:\n%s", got)
	}
}

var ansi = regexp.MustCompile("\x1b\\[[0-9;]*m")

func TestTableColourOnlyAddsEscapes(t *testing.T) {
	plain := render(t, sampleReport(), Table, Options{})
	colour := render(t, sampleReport(), Table, Options{Color: true})
	if strings.Contains(plain, "\x1b") {
		t.Error("table without Color contains ANSI escapes")
	}
	if !strings.Contains(colour, ansiRed) || !strings.Contains(colour, ansiYellow) {
		t.Error("table with Color paints neither idle dollars red nor warnings yellow")
	}
	if diff := cmp.Diff(plain, ansi.ReplaceAllString(colour, "")); diff != "" {
		t.Errorf("colour changes the layout (-plain +colour without escapes):\n%s", diff)
	}
}

func TestTableNeverShowsMissingUtilizationAsZero(t *testing.T) {
	got := render(t, sampleReport(), Table, Options{})
	line := lineWith(got, "notebooks ")
	if !strings.Contains(line, "n/a") || strings.Contains(line, "0.0%") {
		t.Errorf("row without utilization reads %q, want n/a", line)
	}
}

func TestTableWidthCutsKeysOnly(t *testing.T) {
	tests := []struct {
		name      string
		width     int
		wantShort bool
	}{
		{name: "no width keeps keys whole", width: 0},
		{name: "a wide terminal keeps keys whole", width: 400},
		{name: "a narrow terminal cuts long keys", width: 100, wantShort: true},
	}
	long := sampleReport().Rows[4].Key
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := render(t, sampleReport(), Table, Options{Width: tt.width})
			if cut := !strings.Contains(got, long); cut != tt.wantShort {
				t.Errorf("long key cut = %v, want %v", cut, tt.wantShort)
			}
			if !strings.Contains(lineWith(got, "researc"), "(unpriced)") {
				t.Error("the unpriced mark is missing")
			}
		})
	}
}

func TestMaxRowsKeepsTotals(t *testing.T) {
	for _, f := range []Format{Table, Markdown} {
		got := render(t, sampleReport(), f, Options{MaxRows: 2})
		if !strings.Contains(got, "… 4 more rows") || strings.Contains(got, "notebooks |") {
			t.Errorf("%s with MaxRows 2 does not say 4 rows were left out", f)
		}
		if !strings.Contains(lineWith(got, "TOTAL  ")+lineWith(got, "**TOTAL**"), "9,578") {
			t.Errorf("%s with MaxRows 2 lost the full total", f)
		}
	}
}

func TestEmptyReportRendersInEveryFormat(t *testing.T) {
	for _, f := range Formats {
		got := render(t, &cost.Report{By: "namespace"}, f, Options{Width: 80})
		if got == "" {
			t.Errorf("%s: empty output for an empty report", f)
		}
	}
}

// lineWith is the first line of text that contains substr, or "".
func lineWith(text, substr string) string {
	for _, l := range strings.Split(text, "\n") {
		if strings.Contains(l, substr) {
			return l
		}
	}
	return ""
}

// TestLowPartialCSVIsMarked (issue 31, low): every row of a partial
// report's CSV says so in its partial column; a whole report's says false.
func TestLowPartialCSVIsMarked(t *testing.T) {
	t.Parallel()
	r := sampleReport()
	whole := render(t, r, CSV, Options{})
	r.Partial = []string{"no DCGM series in the window"}
	part := render(t, r, CSV, Options{})
	for name, c := range map[string]struct {
		out  string
		want string
	}{"whole": {whole, "false"}, "partial": {part, "true"}} {
		records, err := csv.NewReader(strings.NewReader(c.out)).ReadAll()
		if err != nil {
			t.Fatal(err)
		}
		col := slices.Index(records[0], "partial")
		if col < 0 || len(records) < 2 {
			t.Fatalf("%s: header %q, %d lines", name, records[0], len(records))
		}
		for _, rec := range records[1:] {
			if rec[col] != c.want {
				t.Errorf("%s: row %q has partial %q, want %s", name, rec, rec[col], c.want)
			}
		}
	}
}
