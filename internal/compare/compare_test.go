package compare

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func f(alloc, active, unmeasured float64, idle, total *float64, oom *int) Figures {
	return Figures{GPUAllocatedHours: alloc, GPUActiveHours: active, GPUUnmeasuredHours: unmeasured,
		Utilization: Utilization(active, alloc, unmeasured), IdleUSD: idle, TotalUSD: total, OOMKills: oom}
}

func TestCompare(t *testing.T) {
	t.Parallel()
	before := Side{Label: "last week", Keys: map[string]Figures{
		"ml":       f(100, 20, 0, ptr(400.0), ptr(1000.0), ptr(3)),
		"research": f(50, 10, 50, nil, nil, ptr(0)), // unpriced and unmeasured
		"gone":     f(10, 5, 0, ptr(10.0), ptr(50.0), ptr(1)),
	}}
	after := Side{Label: "this week", Keys: map[string]Figures{
		"ml":       f(80, 40, 0, ptr(150.0), ptr(800.0), ptr(5)),
		"research": f(50, 10, 0, nil, nil, ptr(0)),
		"new":      f(5, 1, 0, ptr(20.0), ptr(25.0), ptr(0)),
	}}
	d := Compare("namespace", before, after)
	type row struct {
		Key       string
		Points    *float64
		GPUHours  float64
		Idle, Tot *float64
		OOM       *int
	}
	var got []row
	for _, c := range d.Changes {
		got = append(got, row{c.Key, c.UtilizationPoints, c.GPUHours, c.IdleUSD, c.TotalUSD, c.OOMKills})
	}
	want := []row{
		{"ml", ptr(30.0), -20, ptr(-250.0), ptr(-200.0), ptr(2)}, // biggest idle-$ change first
		{"new", nil, 5, ptr(20.0), ptr(25.0), ptr(0)},            // absent before: $0 then, no utilization change
		{"gone", nil, -10, ptr(-10.0), ptr(-50.0), ptr(-1)},      // absent after
		{"research", nil, 0, nil, nil, ptr(0)},                   // unmeasured before, unpriced both: unknown, not zero
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("changes (-want +got):\n%s", diff)
	}
	if d.Total.TotalUSD == nil || *d.Total.TotalUSD != -225 || *d.Total.OOMKills != 1 {
		t.Errorf("total change $%v, OOM %v; want -225, 1", d.Total.TotalUSD, d.Total.OOMKills)
	}
}

func TestUtilizationOfNothingMeasuredIsUnknown(t *testing.T) {
	t.Parallel()
	if u := Utilization(0, 10, 10); u != nil {
		t.Errorf("Utilization = %v, want nil", *u)
	}
}
