package generate

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/gpuwise/gpuwise/internal/cluster"
	"github.com/gpuwise/gpuwise/internal/gpushape"
	"github.com/gpuwise/gpuwise/internal/packing"
)

// planFixture: node a100 kept with GPU 0 cut 7×1g.10gb and GPU 1 whole;
// node old-mig kept but no longer partitioned; node l4 kept time-sliced 4
// ways; node spare removed. The chat pod moves from a whole GPU to a slice.
func planFixture() (*packing.Plan, *cluster.Snapshot) {
	pl := &packing.Plan{
		Nodes: []packing.NodePlan{
			{Name: "a100", Model: "A100-80GB", Keep: true, GPUs: []packing.GPUPlan{
				{Index: 0, Mode: packing.ModeMIG, Layout: gpushape.Layout{"1g.10gb": 7}}, {Index: 1, Mode: packing.ModeWhole}}},
			{Name: "old-mig", Model: "A100-80GB", Keep: true, GPUs: []packing.GPUPlan{{Index: 0, Mode: packing.ModeWhole}}},
			{Name: "l4", Model: "L4", Keep: true, TimeSlicingReplicas: 4, GPUs: []packing.GPUPlan{{Index: 0, Mode: packing.ModeTimeSlice, Replicas: 4}}},
			{Name: "spare", Model: "L4"},
		},
		Placements: []packing.Placement{{Workload: "ml/chat-1", Group: "ml/Deployment/chat", Node: "a100", GPUs: []int{0},
			Demand: packing.Demand{Kind: packing.MIG, GPUs: 1, Profile: "1g.10gb"}, Note: "right-sized"}},
		Moves: []packing.Move{{Workload: "ml/chat-1", Group: "ml/Deployment/chat", From: "a100", To: "a100", FromShape: "1×GPU", ToShape: "mig 1g.10gb", Kind: "reshape"}},
	}
	snap := &cluster.Snapshot{
		Nodes: []cluster.Node{{Name: "a100"}, {Name: "old-mig", MIGStrategy: "mixed"}, {Name: "l4"}, {Name: "spare"}},
		Pods: []cluster.Pod{{Namespace: "ml", Name: "chat-1", Node: "a100", Owner: cluster.Owner{Kind: "Deployment", Name: "chat"},
			Containers: []cluster.Container{{Name: "model", GPURequests: map[string]int64{"nvidia.com/gpu": 1}}}}},
	}
	return pl, snap
}

func TestPlanNodeConfigs(t *testing.T) {
	t.Parallel()
	pl, snap := planFixture()
	mig, ts := planNodeConfigs(pl, nodesByName(snap))
	groups := []MIGDeviceGroup{{Model: "A100-80GB", Devices: []int{0}, Layout: map[string]int{"1g.10gb": 7}}, {Model: "A100-80GB", Devices: []int{1}}}
	wantMIG := MIGParted{Nodes: []MIGNode{
		{Node: "a100", Config: migConfigName("A100-80GB", groups), Groups: groups},
		{Node: "old-mig", Config: AllDisabledConfig},
	}}
	if diff := cmp.Diff(wantMIG, mig); diff != "" {
		t.Errorf("MIG (-want +got):\n%s", diff)
	}
	wantTS := TimeSlicing{
		Configs: []SharingConfig{
			{Name: "mig-mixed", MIGStrategy: "mixed"},
			{Name: "ts-4", MIGStrategy: "none", RenameByDefault: true, FailRequestsGreaterThanOne: true, Resources: []SharedResource{{Name: "nvidia.com/gpu", Replicas: 4}}},
		},
		Nodes: []NodeConfig{{Node: "a100", Config: "mig-mixed"}, {Node: "old-mig", Config: ExclusiveConfig}, {Node: "l4", Config: "ts-4"}},
	}
	if diff := cmp.Diff(wantTS, ts); diff != "" {
		t.Errorf("time-slicing (-want +got):\n%s", diff)
	}
}

func TestPlanArtefacts(t *testing.T) {
	t.Parallel()
	pl, snap := planFixture()
	files, notes, err := PlanArtefacts(pl, snap)
	if err != nil {
		t.Fatal(err)
	}
	byPath := map[string]string{}
	for _, f := range files {
		byPath[f.Path] = string(f.Data)
	}
	if s := byPath["plan/remove-nodes.sh"]; !strings.Contains(s, "kubectl drain spare") || strings.Contains(s, "drain a100") {
		t.Errorf("remove-nodes.sh drains the wrong nodes:\n%s", s)
	}
	patch := byPath["patches/ml/deployment-chat.yaml"]
	if !strings.Contains(patch, `nvidia.com/mig-1g.10gb: "1"`) || !strings.Contains(patch, "nvidia.com/gpu: null") {
		t.Errorf("GPU patch of chat does not swap the resource (files %v):\n%s", keys(byPath), patch)
	}
	if len(notes) == 0 || !strings.Contains(notes[len(notes)-1], "gpuwise generate resources") {
		t.Errorf("notes %q do not point at generate resources for CPU and memory", notes)
	}
	// generate mig writes exactly the plan's mig-parted files.
	mig, _, err := PlanMIG(pl, snap)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range mig {
		if !strings.HasPrefix(f.Path, "mig-parted/") || byPath[f.Path] != string(f.Data) {
			t.Errorf("PlanMIG file %s differs from PlanArtefacts'", f.Path)
		}
	}
	if len(mig) == 0 {
		t.Error("PlanMIG wrote nothing")
	}
}

func keys(m map[string]string) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}
