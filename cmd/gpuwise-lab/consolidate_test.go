package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gpuwise/gpuwise/internal/shareddata"
)

// openbDir is where the openb trace lives, relative to this package.
const openbDir = "../../../shared/data/openb"

// The Running pods of the default trace, packed from scratch, use GPUs
// within 1% of the lower bound (issue 6, part 4).
func TestConsolidateOpenBWithinOnePercentOfBound(t *testing.T) {
	nodes := filepath.Join(openbDir, "openb_node_list_gpu_node.csv")
	pods := filepath.Join(openbDir, "openb_pod_list_default.csv")
	shareddata.Need(t, openbDir)
	var out, errb bytes.Buffer
	if code := execute([]string{"consolidate", "--nodes", nodes, "--pods", pods, "-o", "json"}, &out, &errb); code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	var res Consolidation
	if err := json.Unmarshal(out.Bytes(), &res); err != nil {
		t.Fatal(err)
	}
	if res.Pods != 5193 || res.GPUPods != 4149 || res.Nodes != 1213 || res.GPUs != 6212 {
		t.Errorf("input: %d pods (%d GPU), %d nodes, %d GPUs; want 5193 (4149), 1213, 6212", res.Pods, res.GPUPods, res.Nodes, res.GPUs)
	}
	if res.LowerBound != 3374 {
		t.Errorf("lower bound %d, want 3374 (2,774 whole GPUs + ⌈599.3⌉ shared)", res.LowerBound)
	}
	if res.Unplaced != 0 || res.OverBound > 0.01 {
		t.Errorf("GPUs used %d vs bound %d (+%.2f%%), unplaced %d; want within 1%% and none unplaced",
			res.GPUsUsed, res.LowerBound, 100*res.OverBound, res.Unplaced)
	}
}

func TestConsolidateBadInput(t *testing.T) {
	dir := t.TempDir()
	nodes := filepath.Join(dir, "nodes.csv")
	pods := filepath.Join(dir, "pods.csv")
	os.WriteFile(nodes, []byte("sn,cpu_milli,memory_mib,gpu,model\nn1,96000,1024,2,G2\n"), 0o600)
	os.WriteFile(pods, []byte("name,cpu_milli,memory_mib,num_gpu,gpu_milli,gpu_spec,qos,pod_phase,creation_time,deletion_time,scheduled_time\n"+
		"p1,x,1,1,500,,LS,Running,0,1,0\n"), 0o600)
	var out, errb bytes.Buffer
	if code := execute([]string{"consolidate", "--nodes", nodes, "--pods", pods}, &out, &errb); code != exitInput || !strings.Contains(errb.String(), "line 2") {
		t.Errorf("exit %d, stderr %q; want 3 and a line-numbered error", code, errb.String())
	}
	os.WriteFile(pods, []byte("name,cpu_milli,memory_mib,num_gpu,gpu_milli\np1,1000,1,1,500\n"), 0o600)
	errb.Reset()
	if code := execute([]string{"consolidate", "--nodes", nodes, "--pods", pods}, &out, &errb); code != exitInput || !strings.Contains(errb.String(), "no pod_phase") {
		t.Errorf("5-column list: exit %d, stderr %q; want 3 and that it has no pod_phase", code, errb.String())
	}
	if code := execute([]string{"consolidate", "--nodes", nodes}, &out, &errb); code != 2 {
		t.Errorf("missing --pods: exit %d, want 2", code)
	}
}
