package cli

import (
	"context"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gpuwise/gpuwise/internal/app"
	"github.com/gpuwise/gpuwise/internal/compare"
	"github.com/gpuwise/gpuwise/internal/serve"
)

func jsonDiff(t *testing.T, args ...string) compare.Diff {
	t.Helper()
	out, stderr, code := run(t, args...)
	if code != ExitOK {
		t.Fatalf("gpuwise %v: exit %d: %s", args, code, stderr)
	}
	var d compare.Diff
	if err := json.Unmarshal([]byte(out), &d); err != nil {
		t.Fatal(err)
	}
	return d
}

// diff of two snapshots: each side is that snapshot's own report, key by
// key; the same comparison from their report files lacks only OOM kills.
func TestDiffOfSnapshotsAndReports(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	a, b := filepath.Join(dir, "before.json.gz"), filepath.Join(dir, "after.json.gz")
	run(t, "demo", "--save", a, "-o", "json")
	run(t, "demo", "--seed", "3", "--save", b, "-o", "json")
	d := jsonDiff(t, "diff", a, b, "-o", "json")
	own := jsonReport(t, "report", "--from", b, "--by", "workload", "-o", "json")
	after := map[string]float64{}
	for _, c := range d.Changes {
		if c.After != nil {
			after[c.Key] = c.After.GPUAllocatedHours
			if c.After.OOMKills == nil {
				t.Fatalf("%s: OOM kills unknown on a snapshot side", c.Key)
			}
		}
	}
	for _, r := range own.Rows {
		if math.Abs(after[r.Key]-r.GPUHours.Allocated) > 1e-9 {
			t.Errorf("%s: after side %.6f GPU-h, its report %.6f", r.Key, after[r.Key], r.GPUHours.Allocated)
		}
	}
	ra, rb := filepath.Join(dir, "before.json"), filepath.Join(dir, "after.json")
	for src, dst := range map[string]string{a: ra, b: rb} {
		out, _, _ := run(t, "report", "--from", src, "--by", "workload", "-o", "json")
		os.WriteFile(dst, []byte(out), 0o644)
	}
	fromReports := jsonDiff(t, "diff", ra, rb, "-o", "json")
	if len(fromReports.Changes) != len(d.Changes) || math.Abs(*fromReports.Total.TotalUSD-*d.Total.TotalUSD) > 1e-6 {
		t.Errorf("from reports: %d changes, total change $%v; from snapshots %d, $%v",
			len(fromReports.Changes), *fromReports.Total.TotalUSD, len(d.Changes), *d.Total.TotalUSD)
	}
	if fromReports.Total.OOMKills != nil {
		t.Error("report files carry no OOM kills, yet the diff counts some")
	}
	_, stderr, code := run(t, "diff", ra, rb, "--by", "namespace")
	if code != ExitUsage || !strings.Contains(stderr, "grouped by workload") {
		t.Errorf("a report grouped otherwise: exit %d, %s", code, stderr)
	}
}

// report --compare reads the window and the one a period earlier.
func TestReportCompareOnTheDemo(t *testing.T) {
	t.Parallel()
	d := jsonDiff(t, "report", "--demo", "--compare", "7d", "--by", "namespace", "-o", "json")
	if !d.After.Window.Start.Equal(time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)) || d.Before.Window.End != d.After.Window.Start {
		t.Errorf("sides %v and %v, want the demo week and the week before", d.Before.Window, d.After.Window)
	}
	if d.Total.Before == nil || d.Total.After == nil || len(d.Changes) == 0 {
		t.Fatalf("comparison %+v", d.Total)
	}
	out, _, _ := run(t, "report", "--demo", "--compare", "7d", "--by", "namespace")
	golden(t, "compare-demo.table", out)
	_, stderr, code := run(t, "report", "--from", "x.json.gz", "--compare", "7d")
	if code != ExitUsage || !strings.Contains(stderr, "gpuwise diff") {
		t.Errorf("--compare with --from: exit %d, %s", code, stderr)
	}
}

// report --compare --history reads a serve history: the later side is the
// history's last window.
func TestReportCompareFromServeHistory(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "history.db")
	opts := serve.DefaultOptions()
	opts.Demo, opts.HistoryPath = app.DefaultDemo(), path
	svc, err := serve.New(context.Background(), opts, serve.Deps{App: app.New(time.Now)})
	if err != nil {
		t.Fatal(err)
	}
	svc.Close()
	d := jsonDiff(t, "report", "--compare", "3d", "--history", path, "--by", "workload", "-o", "json")
	want := time.Date(2026, 11, 8, 0, 0, 0, 0, time.UTC)
	if !d.After.Window.End.Equal(want) || d.After.Window.End.Sub(d.After.Window.Start) != 72*time.Hour || len(d.Notes) != 0 {
		t.Errorf("later side %v, notes %v; want the last 3 days of the demo, fully covered", d.After.Window, d.Notes)
	}
	d = jsonDiff(t, "report", "--compare", "7d", "--history", path, "--by", "namespace", "-o", "json")
	if len(d.Notes) == 0 || !strings.Contains(d.Notes[0], "covers 0% of the earlier window") {
		t.Errorf("a comparison before the history began: notes %v", d.Notes)
	}
}
