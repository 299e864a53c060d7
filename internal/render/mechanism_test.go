package render

import (
	"encoding/csv"
	"strings"
	"testing"
)

// Every grouping's cost table, in every human format, has the allocation
// mechanism column (and CSV its mechanisms column) (each row's mechanisms, the total's every row's), but
// the report by mechanism, whose keys say it, and a report whose rows
// name none.
func TestCostTablesShowTheMechanism(t *testing.T) {
	t.Parallel()
	r := sampleReport()
	r.Rows[0].Mechanisms = []string{"device-plugin", "kueue-admitted"}
	r.Rows[1].Mechanisms = []string{"mig", "dra"}
	r.Rows[3].Mechanisms = []string{"hami"}
	for _, f := range []Format{Table, Markdown, HTML} {
		for _, by := range []string{"namespace", "workload", "node", "gpu-model"} {
			r.By = by
			out := strings.ReplaceAll(render(t, r, f, Options{}), "&#43;", "+")
			for _, want := range []string{"device-plugin+kueue-admitted", "mig+dra", "hami", "device-plugin+mig+dra+hami+kueue-admitted"} {
				if !strings.Contains(out, want) {
					t.Errorf("%s by %s lacks mechanism %q", f, by, want)
				}
			}
			if !strings.Contains(strings.ToUpper(out), strings.ToUpper(viaTitle)) {
				t.Errorf("%s by %s has no %q column", f, by, viaTitle)
			}
		}
		r.By = "mechanism"
		if out := render(t, r, f, Options{}); strings.Contains(strings.ToUpper(out), strings.ToUpper(viaTitle)) {
			t.Errorf("%s by mechanism repeats its keys in a %q column", f, viaTitle)
		}
	}
	// CSV: the last column, every grouping.
	r.By = "namespace"
	records, err := csv.NewReader(strings.NewReader(render(t, r, CSV, Options{}))).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if last := len(records[0]) - 1; records[0][last] != "mechanisms" || records[1][last] != "device-plugin+kueue-admitted" || records[3][last] != "" {
		t.Errorf("CSV mechanisms column: header %q, rows %q, %q", records[0][last], records[1][last], records[3][last])
	}
	if out := render(t, sampleReport(), Table, Options{}); strings.Contains(out, strings.ToUpper(viaTitle)) {
		t.Errorf("a report whose rows name no mechanism has a %q column", viaTitle)
	}
}
