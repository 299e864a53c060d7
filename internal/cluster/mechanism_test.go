package cluster_test

import (
	"testing"
	"time"

	"github.com/gpuwise/gpuwise/internal/cluster"
	ct "github.com/gpuwise/gpuwise/internal/cluster/clustertest"
)

// A pod of an admitted Kueue workload reads its units' mechanism and
// ViaKueue; a pod of a workload still pending, and a pod without GPUs,
// do not.
func TestPodMechanismNamesKueueAdmission(t *testing.T) {
	t0 := time.Date(2026, 11, 2, 0, 0, 0, 0, time.UTC)
	n := ct.Node("gpu-1").GPUs(2, "H100-80GB").Obj()
	admitted := ct.Pod("ml", "train-0").On("gpu-1").Holds("gpu-1/gpu0", -1, 0).Obj()
	pending := ct.Pod("ml", "sweep-0").On("gpu-1").Holds("gpu-1/gpu1", -1, 0).Obj()
	cpu := ct.Pod("ml", "loader").On("gpu-1").Obj()
	s := &cluster.Snapshot{Window: cluster.Window{Start: t0, End: t0.Add(time.Hour)}, Nodes: []cluster.Node{n},
		Pods: []cluster.Pod{admitted, pending, cpu},
		Kueue: &cluster.KueueInfo{Workloads: []cluster.QueuedWorkload{
			{Namespace: "ml", Name: "train", Created: t0, Admitted: t0, GPUs: map[string]int64{"nvidia.com/gpu": 1}, Pods: []string{"ml/train-0", "ml/loader"}},
			{Namespace: "ml", Name: "sweep", Created: t0, GPUs: map[string]int64{"nvidia.com/gpu": 1}, Pods: []string{"ml/sweep-0"}},
		}}}
	ix := cluster.NewIndex(s)
	for _, tt := range []struct {
		pod  *cluster.Pod
		want string
	}{
		{&s.Pods[0], cluster.ViaDevicePlugin + "+" + cluster.ViaKueue},
		{&s.Pods[1], cluster.ViaDevicePlugin},
		{&s.Pods[2], ""},
	} {
		if got := cluster.PodMechanism(tt.pod, ix); got != tt.want {
			t.Errorf("%s: mechanism %q, want %q", tt.pod.Name, got, tt.want)
		}
	}
}
