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
