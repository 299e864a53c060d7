package kube

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	dynamicfake "k8s.io/client-go/dynamic/fake"
	"k8s.io/client-go/kubernetes/fake"
	k8stesting "k8s.io/client-go/testing"
	kueuev1beta2 "sigs.k8s.io/kueue/apis/kueue/v1beta2"

	"github.com/gpuwise/gpuwise/internal/cluster"
)

// kueueCluster is one GPU node, a Job's pod on it, a ClusterQueue with
// its LocalQueue and flavor, and the Job's workload, still pending.
func kueueCluster(t *testing.T) (*Client, *dynamicfake.FakeDynamicClient, *kueuev1beta2.Workload) {
	t.Helper()
	yes := true
	cq := &kueuev1beta2.ClusterQueue{ObjectMeta: metav1.ObjectMeta{Name: "team-a"}, Spec: kueuev1beta2.ClusterQueueSpec{
		ResourceGroups: []kueuev1beta2.ResourceGroup{{CoveredResources: []corev1.ResourceName{"nvidia.com/gpu"},
			Flavors: []kueuev1beta2.FlavorQuotas{{Name: "h100", Resources: []kueuev1beta2.ResourceQuota{{Name: "nvidia.com/gpu", NominalQuota: qty("4")}}}}}}}}
	lq := &kueuev1beta2.LocalQueue{ObjectMeta: metav1.ObjectMeta{Namespace: "ml", Name: "batch"}, Spec: kueuev1beta2.LocalQueueSpec{ClusterQueue: "team-a"}}
	rf := &kueuev1beta2.ResourceFlavor{ObjectMeta: metav1.ObjectMeta{Name: "h100"}}
	wl := &kueuev1beta2.Workload{ObjectMeta: metav1.ObjectMeta{Namespace: "ml", Name: "job-train", CreationTimestamp: metav1.NewTime(t0),
		OwnerReferences: []metav1.OwnerReference{{Kind: "Job", Name: "train", UID: "uid-job-train", Controller: &yes}}},
		Spec: kueuev1beta2.WorkloadSpec{QueueName: "batch", PodSets: []kueuev1beta2.PodSet{{Name: "main", Count: 1, Template: corev1.PodTemplateSpec{
			Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Resources: corev1.ResourceRequirements{Limits: resources("nvidia.com/gpu", "2")}}}}}}}}}
	trainer := pod("ml", "train-0", "gpu-a", t0.Add(31*time.Minute), "nvidia.com/gpu", "2")
	trainer.OwnerReferences = []metav1.OwnerReference{{Kind: "Job", Name: "train", UID: types.UID("uid-job-train"), Controller: &yes}}
	dc := kueueDynamic(t, kueueObj(t, "ClusterQueue", cq), kueueObj(t, "LocalQueue", lq), kueueObj(t, "ResourceFlavor", rf), kueueObj(t, "Workload", wl))
	c := &Client{Interface: fake.NewClientset(node("gpu-a", nil, "cpu", "32", "memory", "128Gi", "nvidia.com/gpu", "8"), trainer),
		Dynamic: dc, Server: "https://fake", Source: "test"}
	return c, dc, wl
}

// dynamicLists counts the Kueue lists (the dynamic client lists the
// controls' custom resources too).
func dynamicLists(dc *dynamicfake.FakeDynamicClient) int {
	n := 0
	for _, a := range dc.Actions() {
		if a.GetVerb() == "list" && a.GetResource().Group == kueueWorkloads.Group {
			n++
		}
	}
	return n
}

func workload(s *cluster.Snapshot, key string) *cluster.QueuedWorkload {
	if s.Kueue == nil {
		return nil
	}
	for i := range s.Kueue.Workloads {
		if s.Kueue.Workloads[i].Key() == key {
			return &s.Kueue.Workloads[i]
		}
	}
	return nil
}

// The watcher reads Kueue as the list does, and follows it: a workload
// admitted after the start, and one created admitted, show up in the next
// snapshots without a relist; a deleted pod stays joined to its workload.
func TestWatcherFollowsKueue(t *testing.T) {
	t.Parallel()
	now := t0.Add(3 * time.Hour)
	c, dc, wl := kueueCluster(t)
	want, err := c.Snapshot(context.Background(), now, 3*time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	listed := dynamicLists(dc)
	clk := &clock{}
	clk.set(now)
	w := watch(t, c, clk)
	if got := dynamicLists(dc) - listed; got != len(kueueKinds) {
		t.Errorf("%d Kueue lists at start, want %d (one per kind)", got, len(kueueKinds))
	}
	listed = dynamicLists(dc)
	got, err := w.Snapshot(now, 3*time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want.Kueue, got.Kueue); diff != "" {
		t.Errorf("Kueue (-list +watch):\n%s", diff)
	}
	if got := workload(got, "ml/job-train"); got == nil || !got.Admitted.IsZero() {
		t.Fatalf("pending workload: %+v", got)
	}

	admittedAt := t0.Add(30 * time.Minute)
	admit := func(w *kueuev1beta2.Workload) {
		w.Status.Admission = &kueuev1beta2.Admission{ClusterQueue: "team-a", PodSetAssignments: []kueuev1beta2.PodSetAssignment{{Name: "main",
			Flavors: map[corev1.ResourceName]kueuev1beta2.ResourceFlavorReference{"nvidia.com/gpu": "h100"}, ResourceUsage: resources("nvidia.com/gpu", "2")}}}
		w.Status.Conditions = []metav1.Condition{{Type: kueuev1beta2.WorkloadAdmitted, Status: metav1.ConditionTrue, Reason: "Admitted", LastTransitionTime: metav1.NewTime(admittedAt)}}
	}
	admit(wl)
	ctx := context.Background()
	if _, err := dc.Resource(kueueWorkloads).Namespace("ml").Update(ctx, kueueObj(t, "Workload", wl), metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	late := wl.DeepCopy()
	late.Name, late.OwnerReferences = "job-late", nil
	admit(late)
	if _, err := dc.Resource(kueueWorkloads).Namespace("ml").Create(ctx, kueueObj(t, "Workload", late), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	var s *cluster.Snapshot
	eventually(t, "the watcher sees the admissions", func() bool {
		s, _ = w.Snapshot(now, 3*time.Hour)
		a, b := workload(s, "ml/job-train"), workload(s, "ml/job-late")
		return a != nil && b != nil && !a.Admitted.IsZero() && !b.Admitted.IsZero()
	})
	train := workload(s, "ml/job-train")
	if !train.Admitted.Equal(admittedAt) || !slices.Equal(train.Flavors, []string{"h100"}) || !slices.Equal(train.Pods, []string{"ml/train-0"}) {
		t.Errorf("admitted workload: %+v", train)
	}
	if got := s.KueueAdmitted(); !cmp.Equal(got, map[string]string{"ml/train-0": "ml/job-train"}) {
		t.Errorf("admitted pods: %v", got)
	}

	if err := c.Interface.CoreV1().Pods("ml").Delete(ctx, "train-0", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	eventually(t, "the watcher sees the deletion", func() bool { return w.Counts()["pods"] == 0 })
	s, _ = w.Snapshot(now, 3*time.Hour)
	if got := workload(s, "ml/job-train"); got == nil || !slices.Equal(got.Pods, []string{"ml/train-0"}) {
		t.Errorf("after the pod's deletion, workload %+v (want it still joined to ml/train-0)", got)
	}
	if after := dynamicLists(dc); after != listed {
		t.Errorf("%d Kueue lists after the start (want none: the watches follow)", after-listed)
	}
	if _, err := cluster.Prepare(s); err != nil {
		t.Errorf("snapshot does not prepare: %v", err)
	}
}

// Kueue not served turns Kueue off without a note; forbidden turns it
// off with a partial note; Cohorts not served (Kueue before hierarchical
// cohorts) is no loss: the rest is watched.
func TestWatcherWithoutKueue(t *testing.T) {
	t.Parallel()
	now := t0.Add(3 * time.Hour)
	for _, tc := range []struct {
		name        string
		resource    string
		err         error
		wantKueue   bool
		wantPartial bool
	}{
		{"not served", "clusterqueues", apierrors.NewNotFound(kueueClusterQueues.GroupResource(), ""), false, false},
		{"forbidden", "workloads", apierrors.NewForbidden(kueueWorkloads.GroupResource(), "", nil), false, true},
		{"no Cohort API", "cohorts", apierrors.NewNotFound(kueueCohorts.GroupResource(), ""), true, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			c, dc, _ := kueueCluster(t)
			dc.PrependReactor("list", tc.resource, func(k8stesting.Action) (bool, runtime.Object, error) { return true, nil, tc.err })
			clk := &clock{}
			clk.set(now)
			w := watch(t, c, clk)
			s, err := w.Snapshot(now, 3*time.Hour)
			if err != nil {
				t.Fatal(err)
			}
			if (s.Kueue != nil) != tc.wantKueue {
				t.Errorf("Kueue section %v, want one: %v", s.Kueue, tc.wantKueue)
			}
			if tc.wantKueue && len(s.Kueue.Workloads) != 1 {
				t.Errorf("workloads %+v, want the pending one", s.Kueue.Workloads)
			}
			if got := len(s.Partial) == 1 && strings.Contains(s.Partial[0], "workloads.kueue.x-k8s.io is forbidden"); got != tc.wantPartial {
				t.Errorf("partial %q", s.Partial)
			}
			if w.Health() != nil {
				t.Errorf("health: %v", w.Health())
			}
		})
	}
}
