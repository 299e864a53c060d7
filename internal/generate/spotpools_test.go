package generate

import (
	"strings"
	"testing"
	"time"

	"github.com/gpuwise/gpuwise/internal/capacity"
	"github.com/gpuwise/gpuwise/internal/cluster"
	"github.com/gpuwise/gpuwise/internal/cluster/clustertest"
)

// TestSpotArtefacts: the spot lever's candidates become one placement
// each and one spot-first NodePool per GPU model and cloud. A pool with a
// node alive at the window's end is limited to its GPUs; a pool whose
// nodes were all deleted in the window gets the most GPUs alive at once
// (two overlapping nodes add up, a replacement at the same instant does
// not) and a note; an on-premises instance type is in no pool, with a note.
func TestSpotArtefacts(t *testing.T) {
	t.Parallel()
	w := clustertest.Window(48)
	aws := func(n cluster.Node) cluster.Node { n.Cloud, n.Region = "aws", "us-east-1"; return n }
	onprem := clustertest.Node("dgx").Instance("dgx-h100", cluster.OnDemand).GPUs(8, "H100-80GB").Obj()
	onprem.Cloud, onprem.Region = "", ""
	s := &cluster.Snapshot{Window: w, Nodes: []cluster.Node{
		aws(clustertest.Node("l4-live").Instance("g6.xlarge", cluster.OnDemand).GPUs(1, "L4").Obj()),
		aws(clustertest.Node("a100-1").Instance("p4d.24xlarge", cluster.OnDemand).GPUs(8, "A100-40GB").Life(w.Start, clustertest.At(20)).Obj()),
		aws(clustertest.Node("a100-2").Instance("p4d.24xlarge", cluster.OnDemand).GPUs(8, "A100-40GB").Life(clustertest.At(10), clustertest.At(30)).Obj()),
		aws(clustertest.Node("a100-3").Instance("p4d.24xlarge", cluster.OnDemand).GPUs(8, "A100-40GB").Life(clustertest.At(30), clustertest.At(40)).Obj()),
		onprem,
	}}
	cands := []capacity.SpotWorkload{
		{Workload: "train/PyTorchJob/a", Namespace: "train", Kind: "PyTorchJob", Name: "a", Checkpoint: 30 * time.Minute, Model: "A100-40GB", InstanceTypes: []string{"p4d.24xlarge"}},
		{Workload: "train/Job/b", Namespace: "train", Kind: "Job", Name: "b", Checkpoint: time.Hour, Model: "L4", InstanceTypes: []string{"g6.xlarge"}},
		{Workload: "lab/Job/c", Namespace: "lab", Kind: "Job", Name: "c", Checkpoint: time.Hour, Model: "H100-80GB", InstanceTypes: []string{"dgx-h100"}},
	}
	placements, pools, notes := SpotArtefacts(s, cands, DefaultNodeClasses())
	if len(placements) != 3 || placements[0].Name != "a" || !strings.Contains(placements[0].Evidence, "checkpoints every 30m0s") {
		t.Errorf("placements %+v: want one per candidate, with its checkpoint", placements)
	}
	limits := map[string]int{}
	for _, np := range pools {
		limits[np.Name] = np.GPULimit
		if np.CapacityTypes[0] != "spot" || np.NodeClassKind != "EC2NodeClass" {
			t.Errorf("pool %s: capacity %v, class %s; want spot first on the AWS node class", np.Name, np.CapacityTypes, np.NodeClassKind)
		}
	}
	want := map[string]int{"gpu-a100-40gb-aws-spot": 16, "gpu-l4-aws-spot": 1}
	if len(limits) != len(want) || limits["gpu-a100-40gb-aws-spot"] != 16 || limits["gpu-l4-aws-spot"] != 1 {
		t.Errorf("pool limits %v, want %v", limits, want)
	}
	all := strings.Join(notes, "\n")
	if !strings.Contains(all, "dgx-h100 is not on a cloud with a Karpenter provider") ||
		!strings.Contains(all, "the GPU limit 16 is the most such GPUs alive at once") {
		t.Errorf("notes %q: want the on-premises type and the deleted pool's limit explained", notes)
	}
}
