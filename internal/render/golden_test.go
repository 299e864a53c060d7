package render

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
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
