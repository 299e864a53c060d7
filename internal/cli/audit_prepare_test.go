package cli

import (
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gpuwise/gpuwise/internal/cluster"
	"github.com/gpuwise/gpuwise/internal/snapshot"
)

// audit --from goes through the same validation as every other command:
// an inconsistent snapshot is an input error (exit 3), with or without
// --fail-on, never a list of findings (issue 16 item 7).
func TestAuditFromRefusesInconsistentSnapshots(t *testing.T) {
	t.Parallel()
	start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	node := func(name string) cluster.Node {
		return cluster.Node{Name: name, CPUMilli: 8000, MemoryBytes: 64 << 30, GPUModel: "L4",
			GPUs: []cluster.GPU{{Model: "L4", Sharing: cluster.Exclusive, Replicas: 1, Units: []cluster.Unit{{ID: name + "/gpu0", Kind: cluster.WholeGPU}}}}}
	}
	pod := func(name string) cluster.Pod {
		return cluster.Pod{Namespace: "ml", Name: name, Node: "g1", Phase: "Running", Start: start,
			Containers: []cluster.Container{{Name: "c", GPURequests: map[string]int64{"nvidia.com/gpu": 1}}},
			GPUs:       []cluster.Holding{{UnitID: "g1/gpu0"}}}
	}
	tests := []struct {
		name    string
		mutate  func(s *cluster.Snapshot)
		wantErr string
	}{
		{"duplicate node", func(s *cluster.Snapshot) { s.Nodes = append(s.Nodes, node("g1")) }, `node "g1": empty or duplicate name`},
		{"GPU held twice at once", func(s *cluster.Snapshot) { s.Pods = []cluster.Pod{pod("a"), pod("b")} }, "held by pods ml/a and ml/b at the same time"},
		{"inverted window", func(s *cluster.Snapshot) { s.Window.Start, s.Window.End = s.Window.End, s.Window.Start }, "window"},
		{"negative capacity", func(s *cluster.Snapshot) { s.Nodes[0].CPUMilli = -1 }, "node g1: negative CPU or memory"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s := &cluster.Snapshot{Source: "test", Window: cluster.Window{Start: start, End: start.Add(time.Hour)}, Nodes: []cluster.Node{node("g1")}}
			tt.mutate(s)
			path := filepath.Join(t.TempDir(), "bad.json.gz")
			if err := snapshot.WriteFile(path, s); err != nil {
				t.Fatal(err)
			}
			for _, extra := range [][]string{nil, {"--fail-on", "info"}} {
				_, errOut, code := run(t, append([]string{"audit", "--from", path}, extra...)...)
				if code != ExitInput || !strings.Contains(errOut, "snapshot is inconsistent") || !strings.Contains(errOut, tt.wantErr) {
					t.Errorf("audit %v: exit %d, stderr %q; want exit %d naming %q", extra, code, errOut, ExitInput, tt.wantErr)
				}
			}
		})
	}
}
