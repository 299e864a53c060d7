package kube

import (
	"context"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/client-go/kubernetes/fake"

	"github.com/gpuwise/gpuwise/internal/cluster"
)

func fakeCluster() *Client {
	h100 := node("h100-a", map[string]string{lblProduct: "NVIDIA-H100-80GB-HBM3", lblCount: "2"},
		"cpu", "96", "memory", "1Ti", "nvidia.com/gpu", "2")
	l4 := node("l4-a", map[string]string{lblProduct: "NVIDIA-L4", lblCount: "1", lblReplicas: "4", lblSharing: "time-slicing"},
		"cpu", "16", "memory", "64Gi", "nvidia.com/gpu", "4")
	train := pod("ml", "train-abc-1", "h100-a", t0.Add(time.Hour), "nvidia.com/gpu", "1", "cpu", "8", "memory", "64Gi")
	train.OwnerReferences = controller("ReplicaSet", "train-abc")
	early := pod("ml", "early", "h100-a", t0, "nvidia.com/gpu", "1")
	nightly := pod("ml", "nightly-1-x", "h100-a", t0.Add(2*time.Hour), "nvidia.com/gpu", "1")
	nightly.OwnerReferences = controller("Job", "nightly-1")
	nb := pod("dev", "nb-0", "l4-a", t0, "nvidia.com/gpu", "2")
	nb.OwnerReferences = controller("StatefulSet", "nb")
	done := pod("ml", "done", "h100-a", t0, "nvidia.com/gpu", "1")
	done.Status.Phase = corev1.PodSucceeded
	pending := pod("ml", "pending", "", t0, "nvidia.com/gpu", "1")
	pending.Status.Phase, pending.Status.StartTime = corev1.PodPending, nil
	cs := fake.NewClientset(h100, l4, train, early, nightly, nb, done, pending,
		replicaSet("ml", "train-abc", "train"), job("ml", "nightly-1", "nightly"))
	return &Client{Interface: cs, Server: "https://fake", Source: "test"}
}

func TestSnapshotFromFakeCluster(t *testing.T) {
	t.Parallel()
	now := t0.Add(24 * time.Hour)
	s, err := fakeCluster().Snapshot(context.Background(), now, 24*time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	type row struct {
		Owner cluster.Owner
		Node  string
		Units []string
	}
	got := map[string]row{}
	for _, p := range s.Pods {
		r := row{Owner: p.Owner, Node: p.Node}
		for _, h := range p.GPUs {
			if h.Activity != nil {
				t.Errorf("pod %s: inventory must leave activity unmeasured", p.Key())
			}
			r.Units = append(r.Units, h.UnitID)
		}
		got[p.Key()] = r
	}
	want := map[string]row{
		// Earliest start takes the first free unit; the finished pod holds none.
		"ml/early":       {Owner: cluster.Owner{Kind: "Pod", Name: "early"}, Node: "h100-a", Units: []string{"h100-a/gpu0"}},
		"ml/train-abc-1": {Owner: cluster.Owner{Kind: "Deployment", Name: "train"}, Node: "h100-a", Units: []string{"h100-a/gpu1"}},
		"ml/nightly-1-x": {Owner: cluster.Owner{Kind: "CronJob", Name: "nightly"}, Node: "h100-a"},
		"ml/done":        {Owner: cluster.Owner{Kind: "Pod", Name: "done"}, Node: "h100-a"},
		"ml/pending":     {Owner: cluster.Owner{Kind: "Pod", Name: "pending"}},
		"dev/nb-0":       {Owner: cluster.Owner{Kind: "StatefulSet", Name: "nb"}, Node: "l4-a", Units: []string{"l4-a/gpu0/ts-0", "l4-a/gpu0/ts-1"}},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("pods (-want +got):\n%s", diff)
	}
	wantNote := "pod ml/nightly-1-x: requests 1 nvidia.com/gpu on node h100-a, which advertises only 0 free; 1 not modelled"
	if !contains(s.Notes, wantNote) {
		t.Errorf("notes %q lack %q", s.Notes, wantNote)
	}
	if _, err := cluster.Prepare(s); err != nil {
		t.Errorf("snapshot does not prepare: %v", err)
	}
	if s.Window.End != now || s.Window.Start != t0 {
		t.Errorf("window %v", s.Window)
	}
}

func contains(ss []string, s string) bool {
	for _, x := range ss {
		if x == s {
			return true
		}
	}
	return false
}

func TestSelectorOf(t *testing.T) {
	t.Parallel()
	p := pod("ml", "p", "", t0)
	p.Spec.NodeSelector = map[string]string{lblProduct: "NVIDIA-H100-80GB-HBM3"}
	p.Spec.Affinity = &corev1.Affinity{NodeAffinity: &corev1.NodeAffinity{
		RequiredDuringSchedulingIgnoredDuringExecution: &corev1.NodeSelector{NodeSelectorTerms: []corev1.NodeSelectorTerm{
			{MatchExpressions: []corev1.NodeSelectorRequirement{
				{Key: lblProduct, Operator: corev1.NodeSelectorOpIn, Values: []string{"NVIDIA-A100-SXM4-80GB", "NVIDIA-H100-80GB-HBM3"}},
				{Key: "zone", Operator: corev1.NodeSelectorOpNotIn, Values: []string{"a"}},
			}},
		}}}}
	want := map[string][]string{lblProduct: {"NVIDIA-A100-SXM4-80GB", "NVIDIA-H100-80GB-HBM3"}}
	if diff := cmp.Diff(want, selectorOf(&p.Spec)); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

// TestPodEndReasonAndCheckpoint: a terminated pod keeps Kubernetes' reason
// for its end (status reason first, then the DisruptionTarget condition),
// and the checkpoint hint is read from the annotation, else the label.
func TestPodEndReasonAndCheckpoint(t *testing.T) {
	t.Parallel()
	failed := func(mod func(p *corev1.Pod)) *corev1.Pod {
		p := pod("ml", "p", "n1", t0)
		p.Status.Phase = corev1.PodFailed
		mod(p)
		return p
	}
	tests := []struct {
		name       string
		pod        *corev1.Pod
		wantReason string
		wantCkpt   int64
	}{
		{"evicted by the kubelet", failed(func(p *corev1.Pod) { p.Status.Reason = "Evicted" }), "Evicted", 0},
		{"preempted", failed(func(p *corev1.Pod) {
			p.Status.Conditions = []corev1.PodCondition{{Type: corev1.DisruptionTarget, Status: corev1.ConditionTrue, Reason: "PreemptionByScheduler"}}
		}), "PreemptionByScheduler", 0},
		{"running pods have no end reason", func() *corev1.Pod { p := pod("ml", "p", "n1", t0); p.Status.Reason = "x"; return p }(), "", 0},
		{"annotation hint", failed(func(p *corev1.Pod) { p.Annotations = map[string]string{cluster.CheckpointHint: "45m"} }), "", 2700},
		{"label hint", failed(func(p *corev1.Pod) { p.Labels = map[string]string{cluster.CheckpointHint: "2h"} }), "", 7200},
		{"invalid hint is no hint", failed(func(p *corev1.Pod) { p.Labels = map[string]string{cluster.CheckpointHint: "often"} }), "", 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := convertPod(tt.pod, cluster.Owner{Kind: "Pod", Name: "p"}, t0.Add(time.Hour))
			if got.EndReason != tt.wantReason || got.CheckpointSeconds != tt.wantCkpt {
				t.Errorf("end reason %q, checkpoint %ds; want %q, %ds", got.EndReason, got.CheckpointSeconds, tt.wantReason, tt.wantCkpt)
			}
		})
	}
}
