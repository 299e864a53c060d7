package cli

import (
	"encoding/json"
	"math"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gpuwise/gpuwise/internal/cost"
)

func jsonReport(t *testing.T, args ...string) cost.Report {
	t.Helper()
	out, stderr, code := run(t, args...)
	if code != ExitOK {
		t.Fatalf("gpuwise %v: exit %d: %s", args, code, stderr)
	}
	var r cost.Report
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatal(err)
	}
	return r
}

// Two clusters' snapshots merge into one report; --by cluster gives each
// cluster's totals exactly as its own report does, and they sum to the
// merged total.
func TestReportMergesClustersByCluster(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	a, b := filepath.Join(dir, "a.json.gz"), filepath.Join(dir, "b.json.gz")
	run(t, "demo", "--save", a, "-o", "json")
	run(t, "demo", "--seed", "7", "--save", b, "-o", "json")
	merged := jsonReport(t, "report", "--from", "prod="+a, "--from", "staging="+b, "--by", "cluster", "-o", "json")
	if err := merged.Reconcile(); err != nil {
		t.Errorf("merged report does not reconcile: %v", err)
	}
	rows := map[string]cost.Row{}
	for _, r := range merged.Rows {
		rows[r.Key] = r
	}
	var sum float64
	for name, file := range map[string]string{"prod": a, "staging": b} {
		own := jsonReport(t, "report", "--from", file, "-o", "json").Totals
		got, ok := rows[name]
		if !ok {
			t.Fatalf("no row for cluster %s in %v", name, rows)
		}
		for _, c := range []struct {
			what      string
			got, want float64
		}{{"total $", got.TotalCost, own.TotalCost}, {"allocated", got.GPUHours.Allocated, own.GPUHours.Allocated},
			{"active", got.GPUHours.Active, own.GPUHours.Active}, {"unallocated", got.GPUHours.Unallocated, own.GPUHours.Unallocated}} {
			if math.Abs(c.got-c.want) > 1e-6 {
				t.Errorf("%s %s: %.6f merged, %.6f on its own", name, c.what, c.got, c.want)
			}
		}
		sum += own.TotalCost
	}
	if math.Abs(merged.Totals.TotalCost-sum) > 1e-6 {
		t.Errorf("merged total $%.6f, the clusters' $%.6f", merged.Totals.TotalCost, sum)
	}
	byNS := jsonReport(t, "report", "--from", "prod="+a, "--from", "staging="+b, "-o", "json")
	if !strings.HasPrefix(byNS.Rows[0].Key, "prod/") && !strings.HasPrefix(byNS.Rows[0].Key, "staging/") && byNS.Rows[0].Key != cost.UnallocatedKey {
		t.Errorf("namespaces are not prefixed by their cluster: %q", byNS.Rows[0].Key)
	}
	_, stderr, code := run(t, "report", "--from", a, "--from", a, "-o", "json")
	if code != ExitUsage || !strings.Contains(stderr, `both name cluster "a"`) {
		t.Errorf("the same file twice: exit %d, %s", code, stderr)
	}
}
