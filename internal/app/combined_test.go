package app

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/gpuwise/gpuwise/internal/cluster"
	"github.com/gpuwise/gpuwise/internal/cluster/clustertest"
)

// TestOverlayAPI (issue 26.2): the API's taints, labels, tolerations,
// node selectors and owners replace what Prometheus could say for every
// object the API still has; usage and lives stay Prometheus'; the facts
// Prometheus could not read are known once every pod running at the end
// has the API's; a pod gone from the API keeps kube-state-metrics' facts.
func TestOverlayAPI(t *testing.T) {
	t.Parallel()
	hist := &cluster.Snapshot{Window: clustertest.Window(24), Source: "prometheus http://p",
		Unknown: []string{cluster.FactNodeAffinity, cluster.FactTolerations},
		Nodes:   []cluster.Node{clustertest.Node("g1").GPUs(1, "H100-80GB").Obj()},
		Pods: []cluster.Pod{
			clustertest.Pod("ml", "train").On("g1").Holds("g1/gpu0", 0.5, 0).Obj(),
			clustertest.Pod("ml", "gone").On("g1").Obj(),
		}}
	hist.Nodes[0].Labels = map[string]string{"team": "ml"}
	hist.Pods[1].End = hist.Window.End.Add(-12 * time.Hour)
	hist.Pods[1].Tolerations = []cluster.Toleration{{Key: "inferred", Operator: "Exists"}}
	api := &cluster.Snapshot{Source: "kubeconfig context prod",
		Nodes: []cluster.Node{{Name: "g1", Labels: map[string]string{"pool": "a100"}, Taints: []cluster.Taint{{Key: "nvidia.com/gpu", Value: "present", Effect: "NoSchedule"}}}},
		Pods: []cluster.Pod{{Namespace: "ml", Name: "train", Owner: cluster.Owner{Kind: "Job", Name: "train-x"},
			Tolerations:  []cluster.Toleration{{Key: "nvidia.com/gpu", Operator: "Exists", Effect: "NoSchedule"}},
			NodeSelector: map[string][]string{"nvidia.com/gpu.product": {"NVIDIA-H100-80GB-HBM3", "NVIDIA-H200"}}}}}
	out := overlayAPI(hist, api)
	n, train, gone := out.Nodes[0], out.Pods[0], out.Pods[1]
	if len(n.Taints) != 1 || n.Labels["pool"] != "a100" || n.Labels["team"] != "ml" {
		t.Errorf("node %+v: want the API's taint and both sources' labels", n)
	}
	if train.Owner.Name != "train-x" || len(train.Tolerations) != 1 || train.Tolerations[0].Key != "nvidia.com/gpu" || len(train.NodeSelector["nvidia.com/gpu.product"]) != 2 {
		t.Errorf("train %+v: want the API's owner, toleration and affinity", train)
	}
	if train.GPUs[0].Activity == nil || !train.Start.Equal(hist.Pods[0].Start) {
		t.Errorf("train: usage and life must stay Prometheus'")
	}
	if len(gone.Tolerations) != 1 || gone.Tolerations[0].Key != "inferred" {
		t.Errorf("gone %+v: a pod the API no longer has keeps Prometheus' facts", gone)
	}
	if out.Unknown != nil {
		t.Errorf("unknown %q: every pod running at the end has the API's facts", out.Unknown)
	}
	if len(hist.Nodes[0].Taints) != 0 || hist.Pods[0].Owner.Name == "train-x" || !slices.Equal(hist.Unknown, []string{cluster.FactNodeAffinity, cluster.FactTolerations}) {
		t.Error("overlayAPI changed its input")
	}
	if !strings.Contains(strings.Join(out.Notes, "\n"), "1 of 1 nodes and 1 of 2 pods") || out.Source != "prometheus http://p + kubeconfig context prod" {
		t.Errorf("notes %q source %q", out.Notes, out.Source)
	}
	api.Pods = nil // the running pod unknown to the API: its facts stay unknown
	if out := overlayAPI(hist, api); len(out.Unknown) != 2 {
		t.Errorf("unknown %q: a running pod without the API's facts keeps them unknown", out.Unknown)
	}
}
