package audit

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/gpuwise/gpuwise/internal/cluster"
	"github.com/gpuwise/gpuwise/internal/cluster/clustertest"
	"github.com/gpuwise/gpuwise/internal/pricing"
)

func sample(t *testing.T) *Result {
	t.Helper()
	n := h100("h1", false)
	n.Labels[labelMIGState] = "failed"
	return Run(clustertest.Prepare(t, &cluster.Snapshot{Source: "test", Window: clustertest.Window(1), Nodes: []cluster.Node{n}}), DefaultOptions(pricing.Embedded()))
}

func TestWriteSARIF(t *testing.T) {
	t.Parallel()
	var b bytes.Buffer
	if err := WriteSARIF(&b, sample(t), "dev"); err != nil {
		t.Fatal(err)
	}
	var log struct {
		Version string `json:"version"`
		Runs    []struct {
			Tool struct {
				Driver struct {
					Rules []struct{ ID string } `json:"rules"`
				} `json:"driver"`
			} `json:"tool"`
			Results []struct {
				RuleID string `json:"ruleId"`
				Level  string `json:"level"`
			} `json:"results"`
		} `json:"runs"`
	}
	if err := json.Unmarshal(b.Bytes(), &log); err != nil {
		t.Fatal(err)
	}
	type res struct{ RuleID, Level string }
	var got []res
	for _, r := range log.Runs[0].Results {
		got = append(got, res{r.RuleID, r.Level})
	}
	want := []res{{RuleMIGConfigFailed, "error"}, {RuleNodeUntainted, "warning"}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	if log.Version != "2.1.0" || len(log.Runs[0].Tool.Driver.Rules) != len(Rules) {
		t.Errorf("version %q, %d rules", log.Version, len(log.Runs[0].Tool.Driver.Rules))
	}
}

func TestWriteTable(t *testing.T) {
	t.Parallel()
	var b bytes.Buffer
	if err := WriteTable(&b, sample(t)); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"SEVERITY", "critical  GW008", "node/h1", "kubectl taint nodes h1 nvidia.com/gpu=present:NoSchedule", "1 critical, 1 warning, 0 info"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("table lacks %q:\n%s", want, b.String())
		}
	}
}

func TestParseSeverity(t *testing.T) {
	t.Parallel()
	for _, s := range []string{"info", "WARNING", "critical"} {
		if _, err := ParseSeverity(s); err != nil {
			t.Errorf("%s: %v", s, err)
		}
	}
	if _, err := ParseSeverity("high"); err == nil {
		t.Error("high: no error")
	}
}
