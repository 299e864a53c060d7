package policy

import (
	"slices"
	"strings"
	"testing"

	"github.com/gpuwise/gpuwise/internal/cluster"
	"github.com/gpuwise/gpuwise/internal/cluster/clustertest"
)

func TestLearnTakesTheGPUNodesTaintAndTheOperatorNamespace(t *testing.T) {
	t.Parallel()
	n1 := clustertest.Node("g1").GPUs(8, "H100-80GB").Obj()
	n1.Taints = []cluster.Taint{{Key: "gpu", Value: "true", Effect: "NoSchedule"}}
	n2 := clustertest.Node("g2").GPUs(8, "H100-80GB").Obj()
	n2.Taints = []cluster.Taint{{Key: "gpu", Value: "true", Effect: "NoSchedule"}}
	n3 := clustertest.Node("g3").GPUs(8, "H100-80GB").Obj()
	n3.Taints = []cluster.Taint{{Key: "nvidia.com/gpu", Effect: "NoSchedule"}, {Key: "spot", Effect: "NoSchedule"}}
	snap := &cluster.Snapshot{Nodes: []cluster.Node{n1, n2, n3}, Pods: []cluster.Pod{
		{Namespace: "nvidia", Name: "x", Owner: cluster.Owner{Kind: "DaemonSet", Name: "nvidia-driver-daemonset"}},
		{Namespace: "ml", Name: "y", Owner: cluster.Owner{Kind: "Deployment", Name: "train"}},
	}}
	s, notes := Learn(Defaults(), snap)
	if s.GPUTaint != (Taint{Key: "gpu", Effect: "NoSchedule"}) {
		t.Errorf("taint %+v, want gpu:NoSchedule (on 2 of 3 nodes)", s.GPUTaint)
	}
	if !slices.Contains(s.ExemptNamespaces, "nvidia") || slices.Contains(s.ExemptNamespaces, "ml") {
		t.Errorf("exempt %v: want the operator's namespace nvidia added, ml not", s.ExemptNamespaces)
	}
	all := strings.Join(notes, "\n")
	for _, w := range []string{"GPU taint: gpu:NoSchedule", "others: nvidia.com/gpu:NoSchedule on 1 nodes", "exempt namespace nvidia"} {
		if !strings.Contains(all, w) {
			t.Errorf("notes do not say %q:\n%s", w, all)
		}
	}
	if err := s.Validate(); err != nil {
		t.Error(err)
	}
}

func TestLearnSaysWhenNoGPUNodeIsTainted(t *testing.T) {
	t.Parallel()
	snap := &cluster.Snapshot{Nodes: []cluster.Node{clustertest.Node("g1").GPUs(1, "L4").Obj()}}
	s, notes := Learn(Defaults(), snap)
	if s.GPUTaint != Defaults().GPUTaint || len(notes) != 1 || !strings.Contains(notes[0], "no GPU node carries a GPU taint") {
		t.Errorf("taint %+v, notes %v", s.GPUTaint, notes)
	}
}
