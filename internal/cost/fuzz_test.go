package cost

import (
	"math"
	"os"
	"testing"
)

// FuzzParseReportJSON feeds the report-JSON reader behind diff. Whatever
// it accepts has the properties diff relies on: a window that ends after
// it starts, unique non-empty keys, finite non-negative hours and dollars,
// active within allocated, utilizations within [0, 1]. It lives here, not
// in internal/app, because a fuzz binary instruments every package it
// links: app's 558 dependencies made each execution 20 times dearer.
func FuzzParseReportJSON(f *testing.F) {
	f.Add([]byte(`{"window":{"start":"2026-11-01T00:00:00Z","end":"2026-11-08T00:00:00Z"},"by":"namespace",` +
		`"rows":[{"key":"ml","pods":2,"gpu_hours":{"allocated":10,"active":4,"idle":6},"total_cost_usd":30,"gpu_utilization":0.4}]}`))
	f.Add([]byte(`{"window":{"start":"2026-11-08T00:00:00Z","end":"2026-11-01T00:00:00Z"},"by":"pod","rows":[{"key":"a"},{"key":"a"}]}`))
	f.Add([]byte(`{"by":"workload","rows":[{"key":"x","gpu_hours":{"allocated":-1}}]} {}`))
	if b, err := os.ReadFile("testdata/fuzz-seed-report.json"); err == nil { // gpuwise demo -o json
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
			if u := row.GPUUtilization; u != nil && (*u < 0 || *u > 1) {
				t.Fatalf("accepted utilization %v", *u)
			}
		}
	})
}
