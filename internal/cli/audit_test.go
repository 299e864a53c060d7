package cli

import (
	"encoding/json"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"sigs.k8s.io/yaml"

	"github.com/gpuwise/gpuwise/internal/cluster"
	"github.com/gpuwise/gpuwise/internal/render"
	"github.com/gpuwise/gpuwise/internal/snapshot"
)

// auditSnapshot has one untainted GPU node (a warning) and nothing worse.
func auditSnapshot(t *testing.T) string {
	t.Helper()
	start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	s := &cluster.Snapshot{Source: "test", Window: cluster.Window{Start: start, End: start.Add(time.Hour)},
		Nodes: []cluster.Node{{Name: "g1", CPUMilli: 8000, MemoryBytes: 64 << 30, GPUModel: "L4",
			GPUs: []cluster.GPU{{Model: "L4", Sharing: cluster.Exclusive, Replicas: 1, Units: []cluster.Unit{{ID: "g1/gpu0", Kind: cluster.WholeGPU}}}}}}}
	path := filepath.Join(t.TempDir(), "snap.json.gz")
	if err := snapshot.WriteFile(path, s); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestAuditFromFile(t *testing.T) {
	t.Parallel()
	snap := auditSnapshot(t)
	tests := []struct {
		name     string
		args     []string
		wantCode int
		check    func(t *testing.T, out string)
	}{
		{"table", nil, ExitOK, func(t *testing.T, out string) {
			if !strings.Contains(out, "GW001") || !strings.Contains(out, "node/g1") {
				t.Errorf("table:\n%s", out)
			}
		}},
		{"json", []string{"-o", "json"}, ExitOK, func(t *testing.T, out string) {
			var r struct {
				Findings []struct{ Rule, Severity string }
			}
			if err := json.Unmarshal([]byte(out), &r); err != nil || len(r.Findings) != 1 || r.Findings[0].Severity != "warning" {
				t.Errorf("json %v: %s", err, out)
			}
		}},
		{"yaml", []string{"-o", "yaml"}, ExitOK, func(t *testing.T, out string) {
			var r map[string]any
			if err := yaml.Unmarshal([]byte(out), &r); err != nil || r["summary"] == nil {
				t.Errorf("yaml %v: %s", err, out)
			}
		}},
		{"sarif", []string{"-o", "sarif"}, ExitOK, func(t *testing.T, out string) {
			if !strings.Contains(out, `"version": "2.1.0"`) {
				t.Errorf("sarif: %s", out)
			}
		}},
		{"fail-on warning trips", []string{"--fail-on", "warning", "-o", "json"}, ExitFindings, nil},
		{"fail-on critical passes", []string{"--fail-on", "critical"}, ExitOK, nil},
		{"bad fail-on", []string{"--fail-on", "high"}, ExitUsage, nil},
		{"bad format", []string{"-o", "xml"}, ExitUsage, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, errOut, code := run(t, append([]string{"audit", "--from", snap}, tt.args...)...)
			if code != tt.wantCode {
				t.Fatalf("exit %d, want %d: %s", code, tt.wantCode, errOut)
			}
			if tt.check != nil {
				tt.check(t, out)
			}
		})
	}
}

func TestAuditMissingFile(t *testing.T) {
	t.Parallel()
	if _, _, code := run(t, "audit", "--from", "/nonexistent.json.gz"); code != ExitInput {
		t.Errorf("exit %d, want %d", code, ExitInput)
	}
}

// goldenAuditSnapshot: an untainted priced H100 node running a web pod
// and a notebook with a whole GPU, and a failed MIG node.
func goldenAuditSnapshot(t *testing.T) string {
	t.Helper()
	start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	gpus := func(node string, n int) []cluster.GPU {
		var gs []cluster.GPU
		for i := range n {
			gs = append(gs, cluster.GPU{Index: i, Model: "H100-80GB", Sharing: cluster.Exclusive, Replicas: 1,
				Units: []cluster.Unit{{ID: node + "/gpu" + string(rune('0'+i)), Kind: cluster.WholeGPU}}})
		}
		return gs
	}
	node := func(name string, labels map[string]string) cluster.Node {
		return cluster.Node{Name: name, Cloud: "aws", Region: "us-east-1", InstanceType: "p5.48xlarge", Capacity: cluster.OnDemand,
			CPUMilli: 192000, MemoryBytes: 2048 << 30, GPUModel: "H100-80GB", GPUs: gpus(name, 8), Labels: labels}
	}
	web := cluster.Pod{Namespace: "shop", Name: "web-1", Owner: cluster.Owner{Kind: "Deployment", Name: "web"}, Node: "h1", Phase: "Running",
		Containers: []cluster.Container{{Name: "web", CPURequestMilli: 2000, MemoryRequest: 4 << 30}}}
	nb := cluster.Pod{Namespace: "dev", Name: "nb-0", Owner: cluster.Owner{Kind: "StatefulSet", Name: "nb"}, Node: "h1", Phase: "Running",
		Containers: []cluster.Container{{Name: "jupyter", CPURequestMilli: 1500, CPULimitMilli: 1500, MemoryRequest: 6000 << 20,
			MemoryLimit: 6000 << 20, GPURequests: map[string]int64{"nvidia.com/gpu": 1}}},
		GPUs: []cluster.Holding{{UnitID: "h1/gpu0"}}}
	s := &cluster.Snapshot{Source: "golden", Window: cluster.Window{Start: start, End: start.Add(time.Hour)},
		Nodes: []cluster.Node{node("h1", nil), node("h2", map[string]string{"nvidia.com/mig.config.state": "failed", "nvidia.com/mig.config": "all-1g.10gb"})},
		Pods:  []cluster.Pod{web, nb}}
	s.Nodes[1].Taints = []cluster.Taint{{Key: "nvidia.com/gpu", Value: "true", Effect: "NoSchedule"}}
	path := filepath.Join(t.TempDir(), "golden.json.gz")
	if err := snapshot.WriteFile(path, s); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestAuditGolden(t *testing.T) {
	snap := goldenAuditSnapshot(t)
	for _, f := range render.AuditFormats {
		t.Run(string(f), func(t *testing.T) {
			out, errOut, code := run(t, "audit", "--from", snap, "-o", string(f))
			if code != ExitOK {
				t.Fatalf("exit %d: %s", code, errOut)
			}
			golden(t, "audit."+string(f), out)
		})
	}
}

// The audit table is one row per rule with its count and dollars, so 122
// findings read in a dozen lines; -o wide has every finding with its fix,
// and JSON every field (issue 16 item 22).
func TestAuditTableGroupsByRule(t *testing.T) {
	t.Parallel()
	js, _, code := run(t, "audit", "--demo", "-o", "json")
	if code != ExitOK {
		t.Fatalf("exit %d", code)
	}
	var r struct {
		Findings []struct{ Rule string } `json:"findings"`
	}
	if err := json.Unmarshal([]byte(js), &r); err != nil {
		t.Fatal(err)
	}
	perRule := map[string]int{}
	for _, f := range r.Findings {
		perRule[f.Rule]++
	}
	table, _, _ := run(t, "audit", "--demo")
	rows := 0
	for _, l := range strings.Split(table, "\n") {
		fields := strings.Fields(l)
		if len(fields) < 3 || perRule[fields[0]] == 0 {
			continue
		}
		rows++
		if fields[2] != strconv.Itoa(perRule[fields[0]]) {
			t.Errorf("rule %s: table says %s findings, JSON has %d", fields[0], fields[2], perRule[fields[0]])
		}
	}
	if rows != len(perRule) || strings.Count(table, "\n") > len(perRule)+10 {
		t.Errorf("table has %d rule rows for %d rules in %d lines:\n%s", rows, len(perRule), strings.Count(table, "\n"), table)
	}
	wide, _, _ := run(t, "audit", "--demo", "-o", "wide")
	if n := strings.Count(wide, "    fix:\n"); n != len(r.Findings) {
		t.Errorf("-o wide shows %d fixes for %d findings", n, len(r.Findings))
	}
}
