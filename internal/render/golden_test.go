package render

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/gpuwise/gpuwise/internal/billing"
	"github.com/gpuwise/gpuwise/internal/cost"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/")

func TestGolden(t *testing.T) {
	tests := []struct {
		name   string
		file   string
		format Format
		opts   Options
	}{
		{name: "table as a pipe or log sees it", file: "report.txt", format: Table},
		{name: "table on a colour terminal", file: "report-color.txt", format: Table, opts: Options{Color: true}},
		{name: "table on a narrow terminal, top rows only", file: "report-narrow.txt", format: Table, opts: Options{Width: 100, MaxRows: 3}},
		{name: "json is the report as-is", file: "report.json", format: JSON},
		{name: "csv has one line per row", file: "report.csv", format: CSV},
		{name: "markdown for a pull request", file: "report.md", format: Markdown},
		{name: "markdown with top rows only", file: "report-top3.md", format: Markdown, opts: Options{MaxRows: 3}},
		{name: "html is one self-contained page", file: "report.html", format: HTML},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var got bytes.Buffer
			if err := Report(&got, sampleReport(), tt.format, tt.opts); err != nil {
				t.Fatalf("Report: %v", err)
			}
			checkGolden(t, filepath.Join("testdata", tt.file), got.Bytes())
		})
	}
}

// checkGolden compares got with the golden file, or rewrites it under -update.
func checkGolden(t *testing.T, path string, got []byte) {
	t.Helper()
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatalf("updating golden file: %v", err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("reading golden file (run go test ./internal/render -update to create it): %v", err)
	}
	if diff := cmp.Diff(string(want), string(got)); diff != "" {
		t.Errorf("%s mismatch (-want +got), rerun with -update if intended:\n%s", path, diff)
	}
}

// Every part of the cost report at once — the partial warning, the
// low-utilization list, the idle causes, the bill reconciliation and the
// Kueue queues — in each human form. These files were checked byte for
// byte against the report's writers before they became a doc (main at
// bc5f088), so they hold the document model to the old output.
func TestGoldenEveryPart(t *testing.T) {
	r := sampleReport()
	r.Partial = []string{"no DCGM series in the window", "prometheus: <timeout> & more"}
	util, usd, cover := 0.1, 12.5, 0.5
	r.LowUtilization = &cost.LowUtil{Threshold: 0.3, MinHours: 6, USD: 99.5, Unmeasured: 2,
		Units: []cost.LowUtilUnit{{Unit: "n1/gpu0", Model: "H100", Profile: "1g.10gb", Holders: []string{"a", "b"}, HoursBelow: 3, HoursUnheld: 2, Utilization: &util, USD: &usd}}}
	rc := &billing.Reconciliation{Files: []billing.FileInfo{{Name: "bill.csv"}}, BillUSD: 1234.5, MatchedUSD: 1000, GPUwiseMatchedUSD: 990, DifferenceUSD: 10,
		NodesWithoutBill: []string{"n2"}, NodesWithoutProviderID: []string{"n3"},
		UnmatchedGPULines:  []billing.UnmatchedLine{{ResourceID: "i-1", Provider: "aws", InstanceType: "p5", USD: 55}},
		CommitmentCoverage: &cover, UnusedCommitments: []billing.UnusedCommitment{{ID: "sp-1", USD: 7}},
		Nodes: []billing.NodeReconciled{{Node: "n1", ResourceID: "i-0", Hours: 24, BilledHours: 24, BillUSD: 100, GPUwiseUSD: 98}},
		Split: []billing.NamespaceSplit{{Namespace: "ml", AWSUSD: 10, GPUwiseUSD: 12}}, SplitNote: "because"}
	o := Options{IdleCauses: sampleCauses(), Kueue: sampleQueues(), Reconciliation: rc}
	colour, narrow := o, o
	colour.Color = true
	narrow.Width, narrow.MaxRows = 90, 2
	for _, tt := range []struct {
		file   string
		format Format
		opts   Options
	}{
		{"every-part.txt", Table, o}, {"every-part-color.txt", Table, colour}, {"every-part-narrow.txt", Table, narrow},
		{"every-part.md", Markdown, o}, {"every-part.html", HTML, o},
	} {
		t.Run(tt.file, func(t *testing.T) {
			var got bytes.Buffer
			if err := Report(&got, r, tt.format, tt.opts); err != nil {
				t.Fatal(err)
			}
			checkGolden(t, filepath.Join("testdata", tt.file), got.Bytes())
		})
	}
}
