package cli

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/gpuwise/gpuwise/internal/cluster"
	ct "github.com/gpuwise/gpuwise/internal/cluster/clustertest"
	"github.com/gpuwise/gpuwise/internal/snapshot"
)

// Every command that reads a snapshot runs it through cluster.Prepare, so
// the same faults are refused the same way (exit 3, every problem named)
// whichever command reads them. The good twin of each file is accepted.
func TestEveryCommandRefusesInconsistentSnapshots(t *testing.T) {
	dir := t.TempDir()
	node := ct.Node("n1").GPUs(1, "H100-80GB").Obj()
	good := ct.Pod("web", "api").On("n1").Requests(1000, 1).Obj()
	snaps := map[string]cluster.Snapshot{
		"good":     {Window: ct.Window(24), Nodes: []cluster.Node{node}, Pods: []cluster.Pod{good}},
		"negative": {Window: ct.Window(24), Nodes: []cluster.Node{node}, Pods: []cluster.Pod{ct.Pod("web", "api").On("n1").Requests(-31000, 1).Obj()}},
		"dup-pod":  {Window: ct.Window(24), Nodes: []cluster.Node{node}, Pods: []cluster.Pod{good, good}},
	}
	wantErr := map[string]string{"negative": "CPU request (millicores) -31000 is negative", "dup-pod": "pod web/api: listed twice"}
	for name, s := range snaps {
		if err := snapshot.WriteFile(filepath.Join(dir, name+".json.gz"), &s); err != nil {
			t.Fatal(err)
		}
	}
	commands := [][]string{{"report"}, {"recommend"}, {"plan"}, {"generate", "resources"}}
	for _, cmd := range commands {
		for name := range snaps {
			t.Run(strings.Join(cmd, " ")+"/"+name, func(t *testing.T) {
				args := append(append([]string{}, cmd...), "--from", filepath.Join(dir, name+".json.gz"))
				_, errOut, code := run(t, args...)
				if name == "good" {
					if code != ExitOK {
						t.Errorf("exit %d on a consistent snapshot: %s", code, errOut)
					}
					return
				}
				if code != ExitInput || !strings.Contains(errOut, wantErr[name]) {
					t.Errorf("exit %d, stderr %q; want exit %d naming %q", code, errOut, ExitInput, wantErr[name])
				}
			})
		}
	}
}

// An idle threshold the activity histogram cannot answer exactly is a
// usage error that names the thresholds it can (it was silently rounded:
// 0.095 counted 0.099 as idle while the note said "below 10%").
func TestIdleThresholdBetweenBucketsIsRefused(t *testing.T) {
	_, errOut, code := run(t, "demo", "--idle-threshold", "0.095")
	if code != ExitUsage || !strings.Contains(errOut, "below 0.09 or below 0.1 exactly") {
		t.Errorf("exit %d, stderr %q; want exit %d naming 0.09 and 0.1", code, errOut, ExitUsage)
	}
	out, errOut, code := run(t, "demo", "--idle-threshold", "0.07", "-o", "json")
	if code != ExitOK || !strings.Contains(out, `"idle_threshold": 0.07`) || !strings.Contains(out, "idle means below 7% activity") {
		t.Errorf("exit %d (%s): a whole-percent threshold must be echoed and noted as given", code, errOut)
	}
}
