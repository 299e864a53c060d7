package app

import (
	"math"
	"os"
	"strings"
	"testing"
)

// FuzzParseReportJSON feeds the report-JSON reader behind diff. Whatever
// it accepts has the properties diff relies on: a window that ends after
// it starts, unique non-empty keys, finite non-negative hours and dollars,
// active within allocated; and it becomes a side without a panic.
func FuzzParseReportJSON(f *testing.F) {
	f.Add([]byte(`{"window":{"start":"2026-11-01T00:00:00Z","end":"2026-11-08T00:00:00Z"},"by":"namespace",` +
		`"rows":[{"key":"ml","pods":2,"gpu_hours":{"allocated":10,"active":4,"idle":6},"total_cost_usd":30,"gpu_utilization":0.4}]}`))
	f.Add([]byte(`{"window":{"start":"2026-11-08T00:00:00Z","end":"2026-11-01T00:00:00Z"},"by":"pod","rows":[{"key":"a"},{"key":"a"}]}`))
	f.Add([]byte(`{"by":"workload","rows":[{"key":"x","gpu_hours":{"allocated":-1}}]} {}`))
	if b, err := os.ReadFile("testdata/fuzz-seed-report.json"); err == nil {
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		r, err := ParseReportJSON(b)
		if err != nil {
			return
		}
		if !r.Window.End.After(r.Window.Start) {
			t.Fatalf("accepted window %v", r.Window)
		}
		seen := map[string]bool{}
		for _, row := range r.Rows {
			if row.Key == "" || seen[row.Key] {
				t.Fatalf("accepted key %q twice or empty", row.Key)
			}
			seen[row.Key] = true
			h := row.GPUHours
			for _, v := range []float64{h.Allocated, h.Active, h.Idle, h.Unmeasured, row.TotalCost} {
				if math.IsNaN(v) || math.IsInf(v, 0) || v < 0 {
					t.Fatalf("accepted figure %v in %+v", v, row)
				}
			}
			if h.Active > h.Allocated*(1+1e-9)+1e-9 {
				t.Fatalf("accepted active %v above allocated %v", h.Active, h.Allocated)
			}
		}
		if got := ReportFigures(r, nil); len(got) != len(r.Rows) {
			t.Fatalf("%d figures for %d rows", len(got), len(r.Rows))
		}
	})
}

// FuzzParseClusterFile feeds --from values. A NAME=FILE value names its
// cluster with a name that holds no path separator and is never empty;
// any other value is a path, kept whole.
func FuzzParseClusterFile(f *testing.F) {
	for _, s := range []string{"snap.json.gz", "prod=snap.json.gz", "=x", "a/b=c", `c:\x=y`, "prod=", "x==y", "../a.b.c", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		c := ParseClusterFile(s)
		if c.Name != "" {
			if strings.ContainsAny(c.Name, `/\=`) || c.Name+"="+c.Path != s {
				t.Fatalf("%q parsed as name %q, path %q", s, c.Name, c.Path)
			}
		} else if c.Path != s {
			t.Fatalf("%q parsed as path %q", s, c.Path)
		}
		if n := c.name(); strings.ContainsAny(n, `/`) && c.Name == "" {
			t.Fatalf("%q: the cluster name %q taken from the path holds a separator", s, n)
		}
	})
}
