package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gpuwise/gpuwise/internal/cluster"
	ct "github.com/gpuwise/gpuwise/internal/cluster/clustertest"
	"github.com/gpuwise/gpuwise/internal/snapshot"
)

// Issue 31's low items on the command line, each named after the defect.

func TestServeWindowTakesTheDUnitTheCLIAccepts(t *testing.T) {
	_, errOut, code := run(t, "serve", "--demo", "--window", "32d")
	if code != ExitUsage || !strings.Contains(errOut, "window: 32d must be whole hours from 4h to 31d") || strings.Contains(errOut, "unknown unit") {
		t.Errorf("serve --window 32d: exit %d, stderr %q; want the range error, not a refused unit", code, errOut)
	}
	var d time.Duration
	v := daysValue{&d}
	for in, want := range map[string]time.Duration{"7d": 7 * 24 * time.Hour, "1.5d": 36 * time.Hour, "36h": 36 * time.Hour} {
		if err := v.Set(in); err != nil || d != want {
			t.Errorf("Set(%q) = %v, %v; want %v", in, d, err, want)
		}
	}
	for _, bad := range []string{"d", "-1d", "xd", "7x", "1e300d"} {
		if err := v.Set(bad); err == nil {
			t.Errorf("Set(%q) accepted", bad)
		}
	}
	if d = 35 * 24 * time.Hour; v.String() != "35d" {
		t.Errorf("35 days shows as %q", v.String())
	}
}

func TestDiffArityExits2(t *testing.T) {
	for _, args := range [][]string{{"diff"}, {"diff", "a"}, {"diff", "a", "b", "c"}} {
		_, errOut, code := run(t, args...)
		if code != ExitUsage || !strings.Contains(errOut, "takes two files, BEFORE and AFTER") {
			t.Errorf("%q: exit %d, stderr %q; want exit %d", args, code, errOut, ExitUsage)
		}
	}
	if _, errOut, code := run(t, "serve", "stray"); code != ExitUsage || !strings.Contains(errOut, "takes no arguments") {
		t.Errorf("serve stray: exit %d, stderr %q; want exit %d", code, errOut, ExitUsage)
	}
}

// failWriter fails every write, as stdout on a full disk does.
type failWriter struct{}

func (failWriter) Write([]byte) (int, error) { return 0, errFull }

var errFull = &writeErr{"no space left on device"}

type writeErr struct{ s string }

func (e *writeErr) Error() string { return e.s }

func TestStdoutWriteFailureExits7(t *testing.T) {
	var errb strings.Builder
	code := Execute([]string{"demo"}, Streams{Out: failWriter{}, Err: &errb})
	if code != ExitOutput || !strings.Contains(errb.String(), "writing the result to standard output: no space left on device") {
		t.Errorf("demo to a failing stdout: exit %d, stderr %q; want exit %d", code, errb.String(), ExitOutput)
	}
}

func TestGenerateSpotQuotaInvalidNamesAreNotABug(t *testing.T) {
	_, errOut, code := run(t, "generate", "spot", "--demo", "--node-class", "EC2NodeClass/Bad_Name!")
	if code != ExitUsage || !strings.Contains(errOut, `--node-class name "Bad_Name!" is invalid`) {
		t.Errorf("spot with a bad node class: exit %d, stderr %q; want exit %d", code, errOut, ExitUsage)
	}
	_, errOut, code = run(t, "generate", "spot", "--demo", "--node-class-group", "bad group")
	if code != ExitUsage || !strings.Contains(errOut, `--node-class-group "bad group" is invalid`) {
		t.Errorf("spot with a bad node class group: exit %d, stderr %q; want exit %d", code, errOut, ExitUsage)
	}
	dir := t.TempDir()
	path := filepath.Join(dir, "bad-ns.json.gz")
	s := cluster.Snapshot{Window: ct.Window(24), Nodes: []cluster.Node{ct.Node("n1").GPUs(1, "H100-80GB").Obj()},
		Pods: []cluster.Pod{ct.Pod("Team_A", "train").On("n1").Holds("n1/gpu0", 0.5, 60).Obj()}}
	if err := snapshot.WriteFile(path, &s); err != nil {
		t.Fatal(err)
	}
	_, errOut, code = run(t, "generate", "quota", "--from", path)
	if code != ExitInput || !strings.Contains(errOut, `ResourceQuota namespace "Team_A" is invalid`) {
		t.Errorf("quota for namespace Team_A: exit %d, stderr %q; want exit %d naming it", code, errOut, ExitInput)
	}
}

func TestEngineerRate1e308IsRefused(t *testing.T) {
	_, errOut, code := run(t, "advise", "--demo", "--engineer-rate", "1e308")
	if code != ExitUsage || !strings.Contains(errOut, "above the maximum, 10000 $/hour") {
		t.Errorf("--engineer-rate 1e308: exit %d, stderr %q; want exit %d", code, errOut, ExitUsage)
	}
	out, errOut, code := run(t, "advise", "--demo", "--engineer-rate", "10000", "-o", "json")
	if code != ExitOK || strings.Contains(out, "Inf") || strings.Contains(out, "NaN") {
		t.Errorf("--engineer-rate 10000: exit %d, stderr %q, or a non-finite figure", code, errOut)
	}
}

// Issue 31 low item: report-JSON inputs to diff were not validated.
func TestReportJSONInputsToDiffNotValidated(t *testing.T) {
	out, _, code := run(t, "demo", "-o", "json", "--by", "namespace")
	if code != ExitOK {
		t.Fatal("demo -o json failed")
	}
	dir := t.TempDir()
	good := filepath.Join(dir, "good.json")
	os.WriteFile(good, []byte(out), 0o644)
	if _, errOut, code := run(t, "diff", good, good, "--by", "namespace"); code != ExitOK {
		t.Fatalf("diff of a report with itself: exit %d: %s", code, errOut)
	}
	var doc map[string]any
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatal(err)
	}
	rows := doc["rows"].([]any)
	row0 := func(d map[string]any) map[string]any { return d["rows"].([]any)[0].(map[string]any) }
	tests := []struct {
		name, want string
		edit       func(d map[string]any) []byte
	}{
		{"unknown field", `unknown field "surprise"`, func(d map[string]any) []byte { d["surprise"] = 1; return nil }},
		{"inverted window", "does not end after it starts", func(d map[string]any) []byte {
			w := d["window"].(map[string]any)
			w["start"], w["end"] = w["end"], w["start"]
			return nil
		}},
		{"duplicate key", "listed twice", func(d map[string]any) []byte { d["rows"] = append(rows[:1:1], rows[0]); return nil }},
		{"negative hours", "gpu_hours.allocated is -5", func(d map[string]any) []byte {
			row0(d)["gpu_hours"].(map[string]any)["allocated"] = -5
			return nil
		}},
		{"active above allocated", "active GPU-hours exceed", func(d map[string]any) []byte {
			h := row0(d)["gpu_hours"].(map[string]any)
			h["active"] = h["allocated"].(float64) + 100
			return nil
		}},
		{"utilization above one", "gpu_utilization 2 is outside [0, 1]", func(d map[string]any) []byte { row0(d)["gpu_utilization"] = 2; return nil }},
		{"trailing data", "data after the report", func(d map[string]any) []byte { b, _ := json.Marshal(d); return append(b, []byte(" {}")...) }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var d map[string]any
			json.Unmarshal([]byte(out), &d)
			b := tt.edit(d)
			if b == nil {
				b, _ = json.Marshal(d)
			}
			bad := filepath.Join(t.TempDir(), "bad.json")
			os.WriteFile(bad, b, 0o644)
			_, errOut, code := run(t, "diff", good, bad, "--by", "namespace")
			if code != ExitInput || !strings.Contains(errOut, tt.want) || !strings.Contains(errOut, "bad.json") {
				t.Errorf("exit %d, stderr %q; want exit %d naming the file and %q", code, errOut, ExitInput, tt.want)
			}
		})
	}
}

func TestReportCompareHistoryNonexistentCreatesNoDatabase(t *testing.T) {
	path := filepath.Join(t.TempDir(), "nonexistent.db")
	_, errOut, code := run(t, "report", "--compare", "7d", "--history", path)
	if code != ExitInput || !strings.Contains(errOut, path+": no such file or directory") {
		t.Errorf("exit %d, stderr %q; want exit %d naming the file", code, errOut, ExitInput)
	}
	if _, err := os.Stat(path); !os.IsNotExist(err) {
		t.Errorf("report --compare --history created %s", path)
	}
}
