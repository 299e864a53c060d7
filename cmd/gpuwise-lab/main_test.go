package main

import (
	"bytes"
	"encoding/json"
	"math"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gpuwise/gpuwise/internal/cost"
	"github.com/gpuwise/gpuwise/internal/snapshot"
)

// fixtureDir is the trace package's hand-written three-pod trace: 0.2 h on
// one p5.48xlarge node.
const fixtureDir = "../../internal/trace/testdata/small"

func TestReplayGenAIJSON(t *testing.T) {
	t.Parallel()
	var out bytes.Buffer
	o := &replayOptions{Dir: fixtureDir, Output: "json", By: "workload", IdleShare: "none", IdleThreshold: 0.1}
	if err := runReplay(o, &out); err != nil {
		t.Fatal(err)
	}
	var r cost.Report
	if err := json.Unmarshal(out.Bytes(), &r); err != nil {
		t.Fatalf("output is not a JSON report: %v\n%s", err, out.String())
	}
	if r.Totals.GPUPods != 3 || r.Totals.Nodes != 1 || r.By != "workload" {
		t.Errorf("totals: %d GPU pods on %d nodes by %q, want 3 on 1 by workload", r.Totals.GPUPods, r.Totals.Nodes, r.By)
	}
	// One p5.48xlarge at $55.04/h for 0.2 h.
	if want := 55.04 * 0.2; math.Abs(r.Totals.NodeCost-want) > 1e-6 {
		t.Errorf("node cost = $%.4f, want $%.4f", r.Totals.NodeCost, want)
	}
	if err := r.Reconcile(); err != nil {
		t.Error(err)
	}
	if !strings.Contains(out.String(), "aws p5.48xlarge us-east-1 on-demand") {
		t.Errorf("report does not state the assumed node type:\n%s", out.String())
	}
}

func TestReplayGenAISnapshotOut(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "genai.json.gz")
	o := &replayOptions{Dir: fixtureDir, Output: "json", By: "namespace", IdleShare: "cluster", SnapshotOut: path}
	if err := runReplay(o, &bytes.Buffer{}); err != nil {
		t.Fatal(err)
	}
	s, err := snapshot.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Pods) != 3 || len(s.Nodes) != 1 || s.Pods[0].GPUs[0].Activity == nil {
		t.Errorf("snapshot round trip: %d pods, %d nodes", len(s.Pods), len(s.Nodes))
	}
}

func TestExecuteExitCodes(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name       string
		args       []string
		wantCode   int
		wantStdout string
		wantStderr string
	}{
		{"json report", []string{"replay-genai", "--dir", fixtureDir}, exitOK, `"gpu_pods": 3`, ""},
		{"table report", []string{"replay-genai", "--dir", fixtureDir, "-o", "table", "--by", "pod"}, exitOK, "a1a1a1a1a1a1", ""},
		{"other instance type from the catalog", []string{"replay-genai", "--dir", fixtureDir, "--instance-type", "p4d.24xlarge"},
			exitOK, "aws p4d.24xlarge us-east-1 on-demand", ""},
		{"missing --dir", []string{"replay-genai"}, exitUsage, "", "--dir is required"},
		{"bad output and grouping together", []string{"replay-genai", "--dir", fixtureDir, "-o", "yaml", "--by", "team"},
			exitUsage, "", `output format "yaml" is not one of json, table; by: "team"`},
		{"bad idle threshold", []string{"replay-genai", "--dir", fixtureDir, "--idle-threshold", "10"}, exitUsage, "", "idle threshold: 10 is outside [0, 1]"},
		{"unknown flag", []string{"replay-genai", "--dri", fixtureDir}, exitUsage, "", "unknown flag: --dri"},
		{"unknown command", []string{"replay-alibaba"}, exitUsage, "", `unknown command "replay-alibaba"`},
		{"positional argument", []string{"replay-genai", "--dir", fixtureDir, "extra"}, exitUsage, "", "takes no arguments"},
		{"unpriced instance type", []string{"replay-genai", "--dir", fixtureDir, "--instance-type", "x9.huge"}, exitUsage, "",
			"instance type x9.huge is not in the price catalog for aws us-east-1"},
		{"bad capacity type", []string{"replay-genai", "--dir", fixtureDir, "--capacity-type", "cheap"}, exitUsage, "", `capacity type "cheap"`},
		{"missing trace", []string{"replay-genai", "--dir", "testdata/nothing-here"}, exitInput, "", "pod_gpu_duty_cycle.csv.gz: no such file"},
		{"malformed trace", []string{"replay-genai", "--dir", "../../internal/trace/testdata/malformed"}, exitInput, "",
			"pod_gpu_duty_cycle.csv.gz line 4"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var stdout, stderr bytes.Buffer
			code := execute(tt.args, &stdout, &stderr)
			if code != tt.wantCode {
				t.Errorf("exit code = %d, want %d; stderr: %s", code, tt.wantCode, stderr.String())
			}
			if !strings.Contains(stdout.String(), tt.wantStdout) {
				t.Errorf("stdout lacks %q:\n%s", tt.wantStdout, stdout.String())
			}
			if !strings.Contains(stderr.String(), tt.wantStderr) {
				t.Errorf("stderr lacks %q:\n%s", tt.wantStderr, stderr.String())
			}
		})
	}
}
