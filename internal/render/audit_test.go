package render

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/gpuwise/gpuwise/internal/audit"
	"github.com/gpuwise/gpuwise/internal/packing"
)

// auditSample: a failed MIG config (critical, priced) and an untainted
// node (warning, unpriced).
func auditSample() *audit.Result {
	usd := 29414.12
	fs := []audit.Finding{
		{Rule: audit.RuleMIGConfigFailed, Severity: audit.Critical, Object: "node/h1", MonthlyUSD: &usd,
			Message: "MIG reconfiguration failed on node h1", Evidence: []string{"nvidia.com/mig.config.state=failed"}, Remediation: "kubectl cordon h1\n"},
		{Rule: audit.RuleNodeUntainted, Severity: audit.Warning, Object: "node/h1",
			Message: "GPU node h1 has no NoSchedule GPU taint", Remediation: "kubectl taint nodes h1 nvidia.com/gpu=true:NoSchedule\n"},
	}
	return &audit.Result{Source: "test", Findings: fs, Summary: audit.Summary{Critical: 1, Warning: 1, MonthlyUSD: usd}}
}

func TestAuditSARIF(t *testing.T) {
	t.Parallel()
	var b bytes.Buffer
	if err := Audit(&b, auditSample(), SARIF, Options{Version: "dev"}); err != nil {
		t.Fatal(err)
	}
	var log struct {
		Version string `json:"version"`
		Runs    []struct {
			Tool struct {
				Driver struct {
					Version string                `json:"version"`
					Rules   []struct{ ID string } `json:"rules"`
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
	want := []res{{audit.RuleMIGConfigFailed, "error"}, {audit.RuleNodeUntainted, "warning"}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	if d := log.Runs[0].Tool.Driver; log.Version != "2.1.0" || len(d.Rules) != len(audit.Rules) || d.Version != "dev" {
		t.Errorf("version %q, %d rules, tool version %q", log.Version, len(d.Rules), d.Version)
	}
}

// Every human and machine format carries every finding; only audit has
// SARIF.
func TestAuditFormats(t *testing.T) {
	t.Parallel()
	for _, f := range AuditFormats {
		var b bytes.Buffer
		if err := Audit(&b, auditSample(), f, Options{}); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		for _, want := range []string{audit.RuleMIGConfigFailed, audit.RuleNodeUntainted} {
			if !strings.Contains(b.String(), want) {
				t.Errorf("%s lacks %s:\n%s", f, want, b.String())
			}
		}
	}
	if err := Plan(&bytes.Buffer{}, planSample(), packing.RecommendedShapes, SARIF, Options{}); err == nil || !strings.Contains(err.Error(), `output format "sarif" is not one of table, wide, json, yaml, csv, markdown, html`) {
		t.Errorf("plan as SARIF: %v", err)
	}
}

// planSample: one node kept whole, one removed.
func planSample() *packing.Plan {
	usd := 10.0
	return &packing.Plan{
		Before: packing.Totals{Nodes: 2, GPUs: 2, USDPerMonth: &usd},
		After:  packing.Totals{Nodes: 1, GPUs: 1, USDPerMonth: &usd},
		Nodes: []packing.NodePlan{{Name: "a", Pool: "p", Model: "L4", Keep: true, Reason: "hosts 1 workload(s)", GPUs: []packing.GPUPlan{{Index: 0, Mode: packing.ModeWhole}}},
			{Name: "b", Pool: "p", Model: "L4"}},
	}
}

func TestPlanFormats(t *testing.T) {
	t.Parallel()
	for _, f := range Formats {
		var b bytes.Buffer
		if err := Plan(&b, planSample(), packing.RecommendedShapes, f, Options{}); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		if !strings.Contains(b.String(), "a") || (f != JSON && f != YAML && f != CSV && !strings.Contains(strings.ToLower(b.String()), "removed nodes")) {
			t.Errorf("%s lacks the nodes:\n%s", f, b.String())
		}
	}
}

func TestFitWrapsOrCutsOnlyTheTable(t *testing.T) {
	t.Parallel()
	text := "short\n" +
		"NAME  WHY\n" +
		"a     one two three four five\n" + // wrapped under WHY
		strings.Repeat("x", 30) + "\n" + // one word: cut
		"\x1b[31m" + strings.Repeat("y", 30) + "\x1b[0m\n" // coloured: cut
	got := string(fit([]byte(text), 16))
	want := "short\nNAME  WHY\n" +
		"a     one two\n      three four\n      five\n" +
		strings.Repeat("x", 15) + "…\n" +
		"\x1b[31m" + strings.Repeat("y", 15) + "…\x1b[0m\n" +
		"(2 line(s) cut to the 16-column terminal; -o wide shows everything)\n"
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("fit (-want +got):\n%s", diff)
	}
	long := &packing.Plan{Nodes: []packing.NodePlan{{Name: strings.Repeat("n", 200), Keep: true}}}
	var table, wide bytes.Buffer
	Plan(&table, long, packing.RecommendedShapes, Table, Options{Width: 80})
	Plan(&wide, long, packing.RecommendedShapes, Wide, Options{Width: 80})
	for _, l := range strings.Split(table.String(), "\n") {
		if visibleWidth(l) > 80 {
			t.Errorf("table line wider than 80: %q", l)
		}
	}
	if !strings.Contains(wide.String(), strings.Repeat("n", 200)) || strings.Contains(wide.String(), "cut to the") {
		t.Error("wide cut a line")
	}
}
