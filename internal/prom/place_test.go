package prom

import (
	"testing"
	"time"

	"github.com/gpuwise/gpuwise/internal/cluster"
)

// A GPU pod the window lists but that ended before it (a deleted devbox
// kube-state-metrics still had) held nothing in the window: it gets no
// unit. Given one, it clashed over its whole life with the unit's real
// holder and the snapshot was refused as inconsistent (a time-slice
// replica "held by two pods at the same time", found by serve's hourly
// reads of the real-Prometheus tier).
func TestPlaceUnmeasuredSkipsPodsEndedBeforeTheWindow(t *testing.T) {
	t.Parallel()
	w := cluster.Window{Start: time.Date(2026, 11, 11, 3, 0, 0, 0, time.UTC), End: time.Date(2026, 11, 11, 4, 0, 0, 0, time.UTC)}
	unit := cluster.Unit{ID: "n1/gpu0/ts-0", Kind: cluster.TimeSlice}
	node := cluster.Node{Name: "n1", GPUs: []cluster.GPU{{Units: []cluster.Unit{unit}}}}
	g := gpuRead{nodes: []cluster.Node{node}, units: unitIndex{units: map[string]cluster.UnitRef{}}}
	gpuPod := func(name string, start, end time.Time) *podFacts {
		p := &podFacts{pod: cluster.Pod{Namespace: "dev", Name: name, Node: "n1", Start: start, End: end,
			Containers: []cluster.Container{{Name: "main", GPURequests: map[string]int64{"nvidia.com/gpu.shared": 1}}}}}
		p.key = p.pod.Key()
		return p
	}
	ended := gpuPod("ended", w.Start.Add(-7*time.Hour), w.Start.Add(-40*time.Minute))
	running := gpuPod("running", w.Start.Add(-2*24*time.Hour), time.Time{})
	unplaced := placeUnmeasured([]*podFacts{ended, running}, g, map[string][]interval{}, w)
	if len(ended.pod.GPUs) != 0 {
		t.Errorf("the pod that ended before the window was given %v", ended.pod.GPUs)
	}
	if len(running.pod.GPUs) != 1 || running.pod.GPUs[0].UnitID != unit.ID || len(unplaced) != 0 {
		t.Errorf("the running pod holds %v (unplaced %v), want %s", running.pod.GPUs, unplaced, unit.ID)
	}
}
