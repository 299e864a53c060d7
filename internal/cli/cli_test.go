package cli

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/gpuwise/gpuwise/internal/cost"
	"github.com/gpuwise/gpuwise/internal/render"
)

var update = flag.Bool("update", false, "rewrite golden files in testdata/")

func run(t *testing.T, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	var out, errb bytes.Buffer
	code = Execute(args, Streams{Out: &out, Err: &errb})
	return out.String(), errb.String(), code
}

func golden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		os.MkdirAll("testdata", 0o755)
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./internal/cli -update)", err)
	}
	if diff := cmp.Diff(string(want), got); diff != "" {
		t.Errorf("%s differs (-want +got):\n%s", path, diff)
	}
}

func TestDemoGolden(t *testing.T) {
	for _, f := range render.Formats {
		t.Run(string(f), func(t *testing.T) {
			out, errOut, code := run(t, "demo", "-o", string(f))
			if code != ExitOK {
				t.Fatalf("exit %d: %s", code, errOut)
			}
			golden(t, "demo."+string(f), out)
		})
	}
}

// The report by allocation mechanism, in every format: a row per
// mechanism of the demo's GPUs (device plugin, MIG, time-slicing, DRA,
// HAMi), the
// JSON rows naming it, adding up to the totals.
func TestDemoByMechanism(t *testing.T) {
	for _, f := range render.Formats {
		t.Run(string(f), func(t *testing.T) {
			out, errOut, code := run(t, "demo", "--by", "mechanism", "-o", string(f))
			if code != ExitOK {
				t.Fatalf("exit %d: %s", code, errOut)
			}
			golden(t, "demo-by-mechanism."+string(f), out)
			if f != render.JSON {
				return
			}
			var r cost.Report
			if err := json.Unmarshal([]byte(out), &r); err != nil {
				t.Fatal(err)
			}
			keys := map[string][]string{}
			for _, row := range r.Rows {
				keys[row.Key] = row.Mechanisms
			}
			want := map[string][]string{"device-plugin": {"device-plugin"}, "mig": {"mig"}, "time-slicing": {"time-slicing"},
				"dra": {"dra"}, "hami": {"hami"}, "(no GPU)": nil}
			if diff := cmp.Diff(want, keys, cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("rows by mechanism (-want +got):\n%s", diff)
			}
			if err := r.Reconcile(); err != nil {
				t.Error(err)
			}
		})
	}
}

// On an 80-column terminal every command's table fits it (columns
// dropped, text wrapped or cut, and said so); piped, nothing is cut.
func TestTablesFitTheTerminal(t *testing.T) {
	for _, args := range [][]string{{"demo"}, {"audit", "--demo"}, {"recommend", "--demo"}, {"plan", "--demo"}, {"advise", "--demo"}, {"inventory", "--demo"}} {
		t.Run(args[0], func(t *testing.T) {
			var out, errb bytes.Buffer
			if code := Execute(args, Streams{Out: &out, Err: &errb, OutIsTTY: true, Width: 80}); code != ExitOK {
				t.Fatalf("exit %d: %s", code, errb.String())
			}
			for _, l := range strings.Split(out.String(), "\n") {
				if n := utf8.RuneCountInString(ansi.ReplaceAllString(l, "")); n > 80 {
					t.Errorf("line of %d columns: %q", n, l)
				}
			}
			golden(t, args[0]+".table-80", out.String())
		})
	}
}

var ansi = regexp.MustCompile("\x1b\\[[0-9;]*m")

// The demo must show the pattern gpuwise exists for, with numbers that
// reconcile: low utilization, idle notebooks, non-GPU pods on GPU nodes.
func TestDemoShowsTheIdlePattern(t *testing.T) {
	out, errOut, code := run(t, "demo", "-o", "json")
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var r cost.Report
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatal(err)
	}
	if err := r.Reconcile(); err != nil {
		t.Error(err)
	}
	if u := r.Totals.GPUUtilization; u == nil || *u > 0.4 || *u < 0.05 {
		t.Errorf("demo utilization = %v, want a low but measured value", u)
	}
	var notebooksIdle bool
	for _, w := range r.TopIdle {
		notebooksIdle = notebooksIdle || w.Namespace == "notebooks"
	}
	if !notebooksIdle {
		t.Errorf("no notebook among the top idle workloads: %+v", r.TopIdle)
	}
	if !strings.Contains(out, "without GPU requests run on GPU nodes") {
		t.Error("demo does not point out non-GPU pods on GPU nodes")
	}
	if r.Totals.GPUHours.Unmeasured == 0 || r.Totals.UnpricedGPUHours == 0 {
		t.Error("demo should exercise unmeasured and unpriced data")
	}
}

func TestSavedSnapshotReportsTheSame(t *testing.T) {
	path := filepath.Join(t.TempDir(), "snap.json.gz")
	demo, _, code := run(t, "demo", "-o", "json", "--by", "workload", "--idle-share", "node", "--save", path)
	if code != ExitOK {
		t.Fatalf("demo exit %d", code)
	}
	rep, errOut, code := run(t, "report", "--from", path, "-o", "json", "--by", "workload", "--idle-share", "node", "--window", "7d")
	if code != ExitOK {
		t.Fatalf("report exit %d: %s", code, errOut)
	}
	if diff := cmp.Diff(demo, rep); diff != "" {
		t.Errorf("report --from differs from demo (-demo +report):\n%s", diff)
	}
}

func TestExitCodes(t *testing.T) {
	dir := t.TempDir()
	// No kubeconfig anywhere: a report without --from or --prometheus reads
	// the live cluster and must say how to point it at one.
	t.Setenv("HOME", dir)
	t.Setenv("KUBECONFIG", "")
	corrupt := filepath.Join(dir, "corrupt.json.gz")
	os.WriteFile(corrupt, []byte{0x1f, 0x8b, 1, 2, 3}, 0o644)
	badPrices := filepath.Join(dir, "prices.yaml")
	os.WriteFile(badPrices, []byte("prices:\n  - match: {instanceType: x}\n    nodeUSDPerHour: -3\n"), 0o644)
	snap := filepath.Join(dir, "snap.json.gz")
	if _, _, code := run(t, "demo", "--save", snap, "-o", "json"); code != ExitOK {
		t.Fatal("demo --save failed")
	}
	tests := []struct {
		name     string
		args     []string
		wantCode int
		wantErr  string
	}{
		{"report without a source or kubeconfig", []string{"report"}, ExitUsage, "kubeconfig: none found (pass --kubeconfig"},
		{"report with two sources", []string{"report", "--from", "x", "--prometheus", "http://127.0.0.1:1"}, ExitUsage, "one source at a time"},
		{"unknown format", []string{"demo", "-o", "xml"}, ExitUsage, `output format "xml" is not one of table, wide, json, yaml, csv, markdown, html`},
		{"sarif is the audit's alone", []string{"demo", "-o", "sarif"}, ExitUsage, `output format "sarif" is not one of`},
		{"unknown grouping and share listed together", []string{"demo", "--by", "team", "--idle-share", "all"}, ExitUsage, `idle share: "all"`},
		{"threshold out of range", []string{"demo", "--idle-threshold", "2"}, ExitUsage, "outside [0, 1]"},
		{"unknown flag", []string{"demo", "--nope"}, ExitUsage, "unknown flag"},
		{"bad window", []string{"demo", "--window", "soon"}, ExitUsage, "window"},
		{"window the snapshot lacks", []string{"report", "--from", snap, "--window", "14d"}, ExitUsage, "needs a new collect"},
		{"missing snapshot", []string{"report", "--from", filepath.Join(dir, "nope")}, ExitInput, "no such file"},
		{"corrupt snapshot", []string{"report", "--from", corrupt}, ExitInput, "not a valid gpuwise snapshot"},
		{"invalid price file", []string{"demo", "--prices", badPrices}, ExitInput, "prices.yaml"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, errOut, code := run(t, tt.args...)
			if code != tt.wantCode || !strings.Contains(errOut, tt.wantErr) {
				t.Errorf("exit %d, stderr %q; want exit %d and %q", code, errOut, tt.wantCode, tt.wantErr)
			}
		})
	}
}
