package packing

import (
	"strings"
	"testing"

	"github.com/gpuwise/gpuwise/internal/cluster"
)

// A workload that fails in the first pass (both L4 nodes time-sliced for
// two classes, no whole GPU anywhere) was pinned to its full node as a
// fallback and reported "pinned to node n08, which has no room", though
// the final packing frees n03 for whole GPUs. The real scheduler bound it
// to n03 (found by the control-plane tier). Stragglers are retried on the
// final packing and explained with their planned shape.
func TestUnplacedAreRetriedOnTheFinalPacking(t *testing.T) {
	l4 := func(name, zone string) Node {
		n := gpuNode(name, "g6x4", "L4", 4, 4.6)
		n.CPUMilli, n.MemoryBytes, n.Labels["zone"] = 48000, 192<<30, zone
		return n
	}
	ts := func(id, class string, cpu int64) Workload {
		return Workload{ID: id, Demand: Demand{Kind: TimeSlice, Replicas: 8, Class: class}, Models: []string{"L4"},
			CPUMilli: cpu, MemoryBytes: 4 << 30, Node: "n08"}
	}
	w03 := whole("w-03", "n03", 1)
	w03.Models, w03.Tolerations = []string{"L4"}, []cluster.Toleration{{Key: "nvidia.com/gpu", Operator: "Exists"}}
	w03.NodeSelector = map[string][]string{"pool": nil, "zone": {"z0", "z1"}}
	w04 := whole("w-04", "n08", 1)
	w04.Models = []string{"L4"}
	p := &Problem{Nodes: []Node{l4("n03", "z1"), l4("n08", "z0")},
		Workloads: []Workload{w03, w04, ts("w-05", "dev", 3000), ts("w-06", "batch", 1700)}}
	pl := mustSolve(t, p)
	if pc := placementOf(pl, "w-04"); pc == nil {
		t.Errorf("w-04 unplaced though a kept node has free whole GPUs: %+v", pl.Unplaced)
	}
	for _, u := range pl.Unplaced {
		if strings.HasPrefix(u.Reason, "pinned to node") {
			t.Errorf("%s: reason %q, but it is not pinned", u.Workload, u.Reason)
		}
	}
}
