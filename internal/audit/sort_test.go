package audit

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestSortFindingsByMoneyWithinSeverity(t *testing.T) {
	usd := func(v float64) *float64 { return &v }
	fs := []Finding{
		{Rule: "GW003", Severity: Warning, Object: "a"},
		{Rule: "GW010", Severity: Info, Object: "b", MonthlyUSD: usd(900)},
		{Rule: "GW002", Severity: Warning, Object: "c", MonthlyUSD: usd(40)},
		{Rule: "GW006", Severity: Warning, Object: "d", MonthlyUSD: usd(5000)},
		{Rule: "GW008", Severity: Critical, Object: "e"},
		{Rule: "GW001", Severity: Warning, Object: "f"},
	}
	sortFindings(fs)
	var got []string
	for _, f := range fs {
		got = append(got, f.Object)
	}
	want := []string{"e", "d", "c", "f", "a", "b"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("order (-want +got):\n%s", diff)
	}
}

// A finding's namespace is its object's: a workload's or pod's, none for
// a node; InNamespace keeps those findings and leaves the audit as it was.
func TestInNamespace(t *testing.T) {
	r := &Result{Findings: []Finding{
		{Rule: "GW001", Object: "Deployment ml/train", MonthlyUSD: usd(10)},
		{Rule: "GW002", Object: "node/gpu-1", MonthlyUSD: usd(99)},
		{Rule: "GW003", Object: "Pod ml/p"},
		{Rule: "GW004", Object: "Job mlx/j", MonthlyUSD: usd(5)},
	}}
	r.Summary = summarize(r.Findings)
	got := r.InNamespace("ml")
	if len(got.Findings) != 2 || got.Findings[0].Rule != "GW001" || got.Findings[1].Rule != "GW003" {
		t.Errorf("findings %+v, want GW001 and GW003", got.Findings)
	}
	if got.Page == nil || *got.Page != (Page{Namespace: "ml", Findings: 2, MonthlyUSD: 10}) {
		t.Errorf("page %+v", got.Page)
	}
	if got.Summary != r.Summary || len(r.Findings) != 4 || r.Page != nil {
		t.Errorf("the whole audit changed or its summary was not kept: %+v", r)
	}
	if ns := (Finding{Object: "node/gpu-1"}).Namespace(); ns != "" {
		t.Errorf("a node's namespace = %q", ns)
	}
}
