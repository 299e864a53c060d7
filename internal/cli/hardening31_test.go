package cli

import (
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
