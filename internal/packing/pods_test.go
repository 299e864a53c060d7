package packing

import (
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/gpuwise/gpuwise/internal/cluster"
	"github.com/gpuwise/gpuwise/internal/cluster/clustertest"
)

// The scheduler refuses a pod beyond a node's allocatable pod count
// (NodeResourcesFit, "Too many pods"), however little CPU it asks for.
// The plan used to put 184 small pods on one L4 node with 110 pod slots
// (found by the control-plane tier, test/integration/kube).
func TestPodSlotsBindLikeCPU(t *testing.T) {
	slots := 110
	p := &Problem{}
	for i := range 3 {
		n := gpuNode(fmt.Sprintf("l4-%d", i), "g6", "L4", 4, 4.6)
		n.MaxPods = &slots
		p.Nodes = append(p.Nodes, n)
		for j := range 92 {
			w := Workload{ID: fmt.Sprintf("small-%d-%02d", i, j), Node: n.Name, CPUMilli: 50, MemoryBytes: 128 << 20, Demand: Demand{Kind: NoGPU}}
			if j < 2 {
				w.Demand, w.Models = Demand{Kind: Whole, GPUs: 1}, []string{"L4"}
			}
			p.Workloads = append(p.Workloads, w)
		}
	}
	pl := mustSolve(t, p)
	for _, n := range pl.Nodes {
		if n.Workloads > slots {
			t.Errorf("node %s holds %d workloads, more than its %d pod slots", n.Name, n.Workloads, slots)
		}
	}
	if pl.After.Nodes != 3 || len(pl.Unplaced) != 0 {
		t.Errorf("after: %d nodes, %d unplaced; want all 3 nodes kept (276 pods need 3 × 110 slots) and nothing unplaced", pl.After.Nodes, len(pl.Unplaced))
	}
	// Check refuses a plan that overfills a node's pod slots.
	tight := 50
	pl.problem.Nodes[0].MaxPods = &tight
	if err := pl.Check(); err == nil {
		t.Error("Check accepted more workloads than pod slots")
	}
}

// FromSnapshot takes a node's pod slots from its allocatable pod count
// (the kubelet default, 110, when the snapshot does not have it) less its
// DaemonSet pods, which run on every node that stays.
func TestPodSlotsFromSnapshot(t *testing.T) {
	known := clustertest.Node("known").GPUs(1, "L4").Obj()
	known.Pods = 20
	unknown := clustertest.Node("unknown").GPUs(1, "L4").Obj()
	s := &cluster.Snapshot{Window: clustertest.Window(1), Nodes: []cluster.Node{known, unknown}}
	for _, node := range []string{"known", "unknown"} {
		for _, ds := range []string{"dcgm-exporter", "device-plugin"} {
			s.Pods = append(s.Pods, clustertest.Pod("kube-system", ds+"-"+node).On(node).Owner("DaemonSet", ds).Obj())
		}
		s.Pods = append(s.Pods, clustertest.Pod("ml", "serve-"+node).On(node).Holds(node+"/gpu0", 0.5, 3600).Obj())
	}
	prep, err := cluster.Prepare(s)
	if err != nil {
		t.Fatal(err)
	}
	p, err := FromSnapshot(prep, SnapshotOptions{})
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]int{}
	for _, n := range p.Nodes {
		got[n.Name] = *n.MaxPods
	}
	if diff := cmp.Diff(map[string]int{"known": 18, "unknown": DefaultMaxPods - 2}, got); diff != "" {
		t.Errorf("pod slots (-want +got):\n%s", diff)
	}
}
