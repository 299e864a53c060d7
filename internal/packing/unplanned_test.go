package packing

import (
	"fmt"
	"slices"
	"testing"

	"github.com/gpuwise/gpuwise/internal/cluster"
	ct "github.com/gpuwise/gpuwise/internal/cluster/clustertest"
)

// draNode is a node of gpus H100s that NVIDIA's DRA driver publishes:
// GPU 1 is shared by two pods through one claim (two half units), the
// others whole.
func draNode(name string, gpus int) cluster.Node {
	n := ct.Node(name).Instance("p5.48xlarge", cluster.OnDemand).GPUs(gpus, "H100-80GB").Obj()
	for i := range n.GPUs {
		g := &n.GPUs[i]
		g.Allocator, g.Driver, g.Pool = cluster.DRA, cluster.DRAGPUDriver, name
		g.Units[0].Device = fmt.Sprintf("gpu-%d", i)
	}
	g := &n.GPUs[1]
	g.Sharing, g.Replicas = cluster.TimeSlicing, 2
	g.Units = []cluster.Unit{{ID: name + "/gpu-1/share-0", Kind: cluster.TimeSlice, Device: "gpu-1", Claim: "ml/shared"},
		{ID: name + "/gpu-1/share-1", Kind: cluster.TimeSlice, Device: "gpu-1", Claim: "ml/shared"}}
	return n
}

// The planner keeps a node whose GPUs DRA allocates, and one whose GPUs
// HAMi splits, as they are: they stay, their pods stay on the units they
// hold (a shared claim's share and a HAMi vGPU as the fraction of a GPU
// they are), and no other pod is moved onto their free GPUs, while the
// device-plugin nodes are still consolidated.
func TestPlanKeepsDRAAndHAMiNodes(t *testing.T) {
	t.Parallel()
	hami := ct.Node("hami-1").Instance("g6.12xlarge", cluster.OnDemand).TimeSliced("L4", 10).Obj()
	hami.GPUs[0].Sharing, hami.GPUs[0].MemoryMiB = cluster.HAMi, 23034
	hami.GPUs[0].Units[0].CoresPercent, hami.GPUs[0].Units[0].MemoryPercent = 30, 20
	s := &cluster.Snapshot{Window: ct.Window(24), Nodes: []cluster.Node{
		draNode("dra-1", 4), hami,
		ct.Node("dp-1").Instance("p5.48xlarge", cluster.OnDemand).GPUs(8, "H100-80GB").Obj(),
		ct.Node("dp-2").Instance("p5.48xlarge", cluster.OnDemand).GPUs(8, "H100-80GB").Obj(),
	}, Pods: []cluster.Pod{
		ct.Pod("ml", "train-0").On("dra-1").Owner("Job", "train").Holds("dra-1/gpu0", 0.05, 24*3600).Obj(),
		ct.Pod("ml", "eval-a").On("dra-1").Owner("Deployment", "eval").Holds("dra-1/gpu-1/share-0", 0.1, 24*3600).Obj(),
		ct.Pod("ml", "eval-b").On("dra-1").Owner("Deployment", "eval").Holds("dra-1/gpu-1/share-1", 0.1, 24*3600).Obj(),
		ct.Pod("dev", "nb-0").On("hami-1").Owner("StatefulSet", "nb").Holds("hami-1/gpu0/ts-0", 0.02, 24*3600).Obj(),
		ct.Pod("ml", "serve-0").On("dp-1").Owner("Deployment", "serve").Holds("dp-1/gpu0", 0.5, 24*3600).Obj(),
		ct.Pod("ml", "serve-1").On("dp-2").Owner("Deployment", "serve").Holds("dp-2/gpu0", 0.5, 24*3600).Obj(),
	}}
	prep, err := cluster.Prepare(s)
	if err != nil {
		t.Fatal(err)
	}
	p, err := FromSnapshot(prep, SnapshotOptions{Shapes: CurrentShapes})
	if err != nil {
		t.Fatal(err)
	}
	pl, err := Solve(p)
	if err != nil {
		t.Fatal(err)
	}
	kept := map[string]bool{}
	for _, n := range pl.Nodes {
		kept[n.Name] = n.Keep
	}
	if !kept["dra-1"] || !kept["hami-1"] {
		t.Errorf("kept %v: the DRA and HAMi nodes must stay", kept)
	}
	if kept["dp-1"] == kept["dp-2"] {
		t.Errorf("kept %v: the two half-empty device-plugin nodes should consolidate into one", kept)
	}
	want := map[string]struct {
		node string
		gpus []int
		kind Kind
	}{
		"ml/train-0": {"dra-1", []int{0}, Whole}, "ml/eval-a": {"dra-1", []int{1}, Shared}, "ml/eval-b": {"dra-1", []int{1}, Shared},
		"dev/nb-0": {"hami-1", []int{0}, Shared},
	}
	for _, pc := range pl.Placements {
		w, own := want[pc.Workload]
		switch {
		case own && (pc.Node != w.node || !slices.Equal(pc.GPUs, w.gpus) || pc.Demand.Kind != w.kind):
			t.Errorf("%s placed on %s GPUs %v as %s, want where it is: %s GPUs %v as %s", pc.Workload, pc.Node, pc.GPUs, pc.Demand.Kind, w.node, w.gpus, w.kind)
		case !own && (pc.Node == "dra-1" || pc.Node == "hami-1"):
			t.Errorf("%s moved onto %s, whose GPUs the device plugin does not offer", pc.Workload, pc.Node)
		}
	}
	for _, m := range pl.Moves {
		if _, own := want[m.Workload]; own {
			t.Errorf("move %+v of a DRA or HAMi pod", m)
		}
	}
	// A HAMi vGPU of 30% of the cores and 20% of the memory is 300m.
	for _, w := range p.Workloads {
		if w.ID == "dev/nb-0" && w.Demand.Milli != 300 {
			t.Errorf("HAMi pod's demand %+v, want 300m (the larger of 30%% cores, 20%% memory)", w.Demand)
		}
	}
}
