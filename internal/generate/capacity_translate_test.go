package generate

import (
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/gpuwise/gpuwise/internal/capacity"
	"github.com/gpuwise/gpuwise/internal/cluster"
	"github.com/gpuwise/gpuwise/internal/cluster/clustertest"
)

// Spot turns candidates into placements and one spot-first NodePool per
// GPU model: the candidates' instance types (each once, sorted), the
// node class given, and a GPU limit of today's GPUs of the model alive at
// the window's end.
func TestSpotTranslatesCandidates(t *testing.T) {
	t.Parallel()
	w := clustertest.Window(24)
	s := &cluster.Snapshot{Window: w, Nodes: []cluster.Node{
		clustertest.Node("a1").Instance("p4d.24xlarge", cluster.OnDemand).GPUs(8, "A100-40GB").Obj(),
		clustertest.Node("a2").Instance("p4d.24xlarge", cluster.OnDemand).GPUs(8, "A100-40GB").Obj(),
		clustertest.Node("gone").Instance("p4de.24xlarge", cluster.OnDemand).GPUs(8, "A100-40GB").Life(time.Time{}, w.End.Add(-time.Hour)).Obj(),
		clustertest.Node("l1").Instance("g6.xlarge", cluster.OnDemand).GPUs(1, "L4").Obj(),
	}}
	cands := []capacity.SpotWorkload{
		{Workload: "ml/PyTorchJob/big", Namespace: "ml", Kind: "PyTorchJob", Name: "big", Checkpoint: time.Hour, Model: "A100-40GB", InstanceTypes: []string{"p4d.24xlarge"}},
		{Workload: "ml/Job/small", Namespace: "ml", Kind: "Job", Name: "small", Checkpoint: 20 * time.Minute, Model: "L4", InstanceTypes: []string{"g6.xlarge"}},
		{Workload: "ml/PyTorchJob/wide", Namespace: "ml", Kind: "PyTorchJob", Name: "wide", Checkpoint: 30 * time.Minute, Model: "A100-40GB", InstanceTypes: []string{"p4de.24xlarge", "p4d.24xlarge"}},
	}
	places, pools := Spot(s, cands, SpotOptions{NodeClassGroup: "karpenter.k8s.aws", NodeClassKind: "EC2NodeClass", NodeClassName: "gpu"})
	if len(places) != 3 || places[0].Name != "big" || !strings.Contains(places[0].Evidence, "checkpoints every 1h0m0s") ||
		!strings.Contains(places[0].Evidence, "loses about 30m0s") {
		t.Errorf("placements %+v", places)
	}
	type pool struct {
		Name     string
		Types    []string
		Capacity []string
		Limit    int
		Class    string
	}
	var got []pool
	for _, np := range pools {
		got = append(got, pool{np.Name, np.InstanceTypes, np.CapacityTypes, np.GPULimit, np.NodeClassKind + "/" + np.NodeClassName})
	}
	want := []pool{
		{"gpu-a100-40gb-spot", []string{"p4d.24xlarge", "p4de.24xlarge"}, []string{"spot", "on-demand"}, 16, "EC2NodeClass/gpu"},
		{"gpu-l4-spot", []string{"g6.xlarge"}, []string{"spot", "on-demand"}, 1, "EC2NodeClass/gpu"},
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("pools (-want +got):\n%s", d)
	}
	if _, err := NodePools(pools); err != nil {
		t.Errorf("the pools do not validate: %v", err)
	}
	if p, n := Spot(s, nil, SpotOptions{}); p != nil || n != nil {
		t.Error("no candidates, yet placements or pools")
	}
}

// Reclaimed gives each idle workload its evidence and the policy's
// shortest idle stretch as the culling timeout.
func TestReclaimedTranslatesIdleWorkloads(t *testing.T) {
	t.Parallel()
	p := capacity.DefaultReclaimPolicy()
	rs := Reclaimed([]capacity.Idle{{Workload: "dev/StatefulSet/nb", Namespace: "dev", Kind: "StatefulSet", Name: "nb",
		IdleHours: 30, IdleGPUHours: 30, HeldGPUHours: 48, Stretches: 2, Longest: 18}}, p)
	if len(rs) != 1 || rs[0].Name != "nb" || rs[0].IdleMinutes != p.MinIdleHours*60 {
		t.Fatalf("reclaims %+v", rs)
	}
	if want := "2 stretch(es)"; !strings.Contains(rs[0].Evidence, want) || !strings.Contains(rs[0].Evidence, "30 of 48 GPU-hours") {
		t.Errorf("evidence %q", rs[0].Evidence)
	}
	if _, err := Reclaims(rs); err != nil {
		t.Errorf("the suggestion does not validate: %v", err)
	}
}
