package exporter_test

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/gpuwise/gpuwise/internal/cluster"
	"github.com/gpuwise/gpuwise/internal/cluster/clustertest"
	"github.com/gpuwise/gpuwise/internal/exporter"
)

func TestNewFleet(t *testing.T) {
	t.Parallel()
	start := time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)
	w := cluster.Window{Start: start, End: start.Add(24 * time.Hour)}
	zero := time.Time{}
	tests := []struct {
		name      string
		nodes     []cluster.Node
		wantGPUs  map[exporter.FleetKey]int
		wantEnded map[string]int
	}{
		{"alive nodes counted by model and sharing",
			[]cluster.Node{
				clustertest.Node("a").GPUs(8, "H100-80GB").Obj(),
				clustertest.Node("b").MIG("A100-80GB", "3g.40gb", "4g.40gb").MIG("A100-80GB", "7g.80gb").Obj(),
				clustertest.Node("c").TimeSliced("L4", 4).Obj(),
			},
			map[exporter.FleetKey]int{{"H100-80GB", cluster.Exclusive}: 8, {"A100-80GB", cluster.MIG}: 2, {"L4", cluster.TimeSlicing}: 1},
			map[string]int{}},
		{"a spot node that ended in the window is counted as ended, not alive",
			[]cluster.Node{clustertest.Node("s").GPUs(8, "H100-80GB").Instance("p5.48xlarge", cluster.Spot).Life(zero, start.Add(3*time.Hour)).Obj()},
			map[exporter.FleetKey]int{}, map[string]int{"H100-80GB": 1}},
		{"an on-demand node that ended is not a spot interruption",
			[]cluster.Node{clustertest.Node("o").GPUs(8, "H100-80GB").Instance("p5.48xlarge", cluster.OnDemand).Life(zero, start.Add(3*time.Hour)).Obj()},
			map[exporter.FleetKey]int{}, map[string]int{}},
		{"a spot node that ended before the window or after it",
			[]cluster.Node{
				clustertest.Node("early").GPUs(1, "L4").Instance("g6.xlarge", cluster.Spot).Life(zero, start.Add(-time.Hour)).Obj(),
				clustertest.Node("late").GPUs(1, "L4").Instance("g6.xlarge", cluster.Spot).Life(zero, w.End.Add(time.Hour)).Obj(),
			},
			map[exporter.FleetKey]int{{"L4", cluster.Exclusive}: 1}, map[string]int{}},
		{"a node created after the window's end and a CPU node are left out",
			[]cluster.Node{
				clustertest.Node("new").GPUs(2, "L4").Life(w.End.Add(time.Minute), zero).Obj(),
				clustertest.Node("cpu").Resources(64, 256).Obj(),
			},
			map[exporter.FleetKey]int{}, map[string]int{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := exporter.NewFleet(tt.nodes, w)
			if d := cmp.Diff(tt.wantGPUs, f.GPUs); d != "" {
				t.Errorf("GPUs (-want +got):\n%s", d)
			}
			if d := cmp.Diff(tt.wantEnded, f.SpotEnded); d != "" {
				t.Errorf("SpotEnded (-want +got):\n%s", d)
			}
		})
	}
}
