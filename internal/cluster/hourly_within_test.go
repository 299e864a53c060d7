package cluster

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func TestHourlyWithin(t *testing.T) {
	t0 := time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)
	src := Window{Start: t0, End: t0.Add(6 * time.Hour)}
	h := &Hourly{IdleThreshold: 0.1, Workloads: []WorkloadHours{
		// hours 1..4 of the source window
		{Workload: "a", From: 1, Pods: Series{1, 2, 3, 4}, GPUHeld: Series{1, 2, 3, 4}, GPUMeasured: Series{1, 2, 3, 4}, OOMKills: Series{0, 1, 0, 1}},
		// hour 5 only
		{Workload: "b", From: 5, Pods: Series{9}, GPUHeld: Series{9}, GPUMeasured: Series{9}},
	}}
	cases := []struct {
		name     string
		from, to time.Duration
		want     *Hourly
	}{
		{"same window", 0, 6 * time.Hour, h},
		{"hours 2-4 (a only)", 2 * time.Hour, 5 * time.Hour, &Hourly{IdleThreshold: 0.1, Workloads: []WorkloadHours{
			{Workload: "a", From: 0, Pods: Series{2, 3, 4}, GPUHeld: Series{2, 3, 4}, GPUMeasured: Series{2, 3, 4}, OOMKills: Series{1, 0, 1}},
		}}},
		{"hour 0 (nothing ran)", 0, time.Hour, &Hourly{IdleThreshold: 0.1}},
		{"hours 4-6", 4 * time.Hour, 6 * time.Hour, &Hourly{IdleThreshold: 0.1, Workloads: []WorkloadHours{
			{Workload: "a", From: 0, Pods: Series{4}, GPUHeld: Series{4}, GPUMeasured: Series{4}, OOMKills: Series{1}},
			{Workload: "b", From: 1, Pods: Series{9}, GPUHeld: Series{9}, GPUMeasured: Series{9}},
		}}},
		{"not hour-aligned", 30 * time.Minute, 6 * time.Hour, nil},
		{"past the source", time.Hour, 7 * time.Hour, nil},
		{"before the source", -time.Hour, 6 * time.Hour, nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := h.Within(src, Window{Start: t0.Add(c.from), End: t0.Add(c.to)})
			if diff := cmp.Diff(c.want, got); diff != "" {
				t.Errorf("Within (-want +got):\n%s", diff)
			}
		})
	}
	if (*Hourly)(nil).Within(src, src) != nil {
		t.Error("nil series: want nil")
	}
}
