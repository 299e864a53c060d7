package kube

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	dynamicfake "k8s.io/client-go/dynamic/fake"
	"k8s.io/client-go/kubernetes/fake"
	k8stesting "k8s.io/client-go/testing"
	kueuev1beta2 "sigs.k8s.io/kueue/apis/kueue/v1beta2"

	"github.com/gpuwise/gpuwise/internal/cluster"
)

func kueueObj(t *testing.T, kind string, obj any) *unstructured.Unstructured {
	t.Helper()
	m, err := runtime.DefaultUnstructuredConverter.ToUnstructured(obj)
	if err != nil {
		t.Fatal(err)
	}
	u := &unstructured.Unstructured{Object: m}
	u.SetAPIVersion(kueuev1beta2.GroupVersion.String())
	u.SetKind(kind)
	return u
}

func kueueDynamic(t *testing.T, objs ...runtime.Object) *dynamicfake.FakeDynamicClient {
	lists := map[schema.GroupVersionResource]string{
		kueueClusterQueues: "ClusterQueueList", kueueLocalQueues: "LocalQueueList", kueueFlavors: "ResourceFlavorList",
		kueueCohorts: "CohortList", kueueWorkloads: "WorkloadList",
		kedaScaledObjects: "ScaledObjectList", vpaObjects: "VerticalPodAutoscalerList", karpenterPools: "NodePoolList",
		kyvernoVPolicies: "ValidatingPolicyList", kyvernoCPolicies: "ClusterPolicyList"}
	return dynamicfake.NewSimpleDynamicClientWithCustomListKinds(runtime.NewScheme(), lists, objs...)
}

func qty(s string) resource.Quantity { return resource.MustParse(s) }

// A ClusterQueue with a GPU and a CPU quota, its LocalQueue, a flavor, a
// cohort object and three workloads: one admitted (run by a Job's pod),
// one pending, one asking for no GPU (left out).
func TestSnapshotReadsKueue(t *testing.T) {
	t.Parallel()
	yes := true
	bl := qty("4")
	cq := &kueuev1beta2.ClusterQueue{ObjectMeta: metav1.ObjectMeta{Name: "team-a"}, Spec: kueuev1beta2.ClusterQueueSpec{
		CohortName: "gpus", ResourceGroups: []kueuev1beta2.ResourceGroup{{CoveredResources: []corev1.ResourceName{"cpu", "nvidia.com/gpu"},
			Flavors: []kueuev1beta2.FlavorQuotas{{Name: "a100", Resources: []kueuev1beta2.ResourceQuota{
				{Name: "cpu", NominalQuota: qty("64")}, {Name: "nvidia.com/gpu", NominalQuota: qty("8"), BorrowingLimit: &bl}}}}}}},
		Status: kueuev1beta2.ClusterQueueStatus{PendingWorkloads: 1, AdmittedWorkloads: 1, FlavorsUsage: []kueuev1beta2.FlavorUsage{{Name: "a100",
			Resources: []kueuev1beta2.ResourceUsage{{Name: "nvidia.com/gpu", Total: qty("10"), Borrowed: qty("2")}}}}}}
	lq := &kueuev1beta2.LocalQueue{ObjectMeta: metav1.ObjectMeta{Namespace: "ml", Name: "batch"}, Spec: kueuev1beta2.LocalQueueSpec{ClusterQueue: "team-a"}}
	rf := &kueuev1beta2.ResourceFlavor{ObjectMeta: metav1.ObjectMeta{Name: "a100"}, Spec: kueuev1beta2.ResourceFlavorSpec{NodeLabels: map[string]string{"nvidia.com/gpu.product": "NVIDIA-A100-SXM4-80GB"}}}
	co := &kueuev1beta2.Cohort{ObjectMeta: metav1.ObjectMeta{Name: "gpus"}, Spec: kueuev1beta2.CohortSpec{ParentName: "org"}}
	gpuSet := func(count int32, gpus string) []kueuev1beta2.PodSet {
		return []kueuev1beta2.PodSet{{Name: "main", Count: count, Template: corev1.PodTemplateSpec{Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "c",
			Resources: corev1.ResourceRequirements{Limits: resources("nvidia.com/gpu", gpus, "cpu", "4")}}}}}}}
	}
	admitted := &kueuev1beta2.Workload{ObjectMeta: metav1.ObjectMeta{Namespace: "ml", Name: "job-train", CreationTimestamp: metav1.NewTime(t0),
		OwnerReferences: []metav1.OwnerReference{{Kind: "Job", Name: "train", UID: "uid-job-train", Controller: &yes}}},
		Spec: kueuev1beta2.WorkloadSpec{QueueName: "batch", PodSets: gpuSet(2, "1")},
		Status: kueuev1beta2.WorkloadStatus{
			Admission: &kueuev1beta2.Admission{ClusterQueue: "team-a", PodSetAssignments: []kueuev1beta2.PodSetAssignment{{Name: "main",
				Flavors:       map[corev1.ResourceName]kueuev1beta2.ResourceFlavorReference{"nvidia.com/gpu": "a100", "cpu": "default"},
				ResourceUsage: resources("nvidia.com/gpu", "2", "cpu", "8")}}},
			Conditions: []metav1.Condition{{Type: kueuev1beta2.WorkloadAdmitted, Status: metav1.ConditionTrue, Reason: "Admitted", LastTransitionTime: metav1.NewTime(t0.Add(30 * time.Minute))}}}}
	pending := &kueuev1beta2.Workload{ObjectMeta: metav1.ObjectMeta{Namespace: "ml", Name: "job-sweep", CreationTimestamp: metav1.NewTime(t0.Add(time.Hour))},
		Spec:   kueuev1beta2.WorkloadSpec{QueueName: "batch", PodSets: gpuSet(4, "2")},
		Status: kueuev1beta2.WorkloadStatus{Conditions: []metav1.Condition{{Type: kueuev1beta2.WorkloadQuotaReserved, Status: metav1.ConditionFalse, Reason: "Pending", LastTransitionTime: metav1.NewTime(t0.Add(time.Hour))}}}}
	cpuOnly := &kueuev1beta2.Workload{ObjectMeta: metav1.ObjectMeta{Namespace: "ml", Name: "job-etl", CreationTimestamp: metav1.NewTime(t0)},
		Spec: kueuev1beta2.WorkloadSpec{QueueName: "batch", PodSets: []kueuev1beta2.PodSet{{Name: "main", Count: 1, Template: corev1.PodTemplateSpec{Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "c",
			Resources: corev1.ResourceRequirements{Limits: resources("cpu", "4")}}}}}}}}}
	trainer := pod("ml", "train-0", "gpu-a", t0.Add(31*time.Minute), "nvidia.com/gpu", "1")
	trainer.OwnerReferences = []metav1.OwnerReference{{Kind: "Job", Name: "train", UID: types.UID("uid-job-train"), Controller: &yes}}
	other := pod("ml", "other", "gpu-a", t0, "nvidia.com/gpu", "1")
	c := &Client{Interface: fake.NewClientset(node("gpu-a", nil, "cpu", "32", "memory", "128Gi", "nvidia.com/gpu", "8"), trainer, other),
		Dynamic: kueueDynamic(t, kueueObj(t, "ClusterQueue", cq), kueueObj(t, "LocalQueue", lq), kueueObj(t, "ResourceFlavor", rf),
			kueueObj(t, "Cohort", co), kueueObj(t, "Workload", admitted), kueueObj(t, "Workload", pending), kueueObj(t, "Workload", cpuOnly)),
		Server: "https://fake", Source: "test"}
	s, err := c.Snapshot(context.Background(), t0.Add(3*time.Hour), 3*time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	four := int64(4)
	want := &cluster.KueueInfo{
		ClusterQueues: []cluster.ClusterQueue{{Name: "team-a", Cohort: "gpus", Pending: 1, Admitted: 1,
			Quotas: []cluster.QueueQuota{{Flavor: "a100", Resource: "nvidia.com/gpu", Nominal: 8, BorrowingLimit: &four, Used: 10, Borrowed: 2}}}},
		LocalQueues: []cluster.LocalQueue{{Namespace: "ml", Name: "batch", ClusterQueue: "team-a"}},
		Flavors:     []cluster.ResourceFlavor{{Name: "a100", NodeLabels: map[string]string{"nvidia.com/gpu.product": "NVIDIA-A100-SXM4-80GB"}}},
		Cohorts:     []cluster.Cohort{{Name: "gpus", Parent: "org"}},
		Workloads: []cluster.QueuedWorkload{
			{Namespace: "ml", Name: "job-sweep", Queue: "batch", ClusterQueue: "team-a", Created: t0.Add(time.Hour), GPUs: map[string]int64{"nvidia.com/gpu": 8}},
			{Namespace: "ml", Name: "job-train", Queue: "batch", ClusterQueue: "team-a", Owner: cluster.Owner{Kind: "Job", Name: "train"},
				Created: t0, Admitted: t0.Add(30 * time.Minute), GPUs: map[string]int64{"nvidia.com/gpu": 2}, Flavors: []string{"a100"}, Pods: []string{"ml/train-0"}},
		},
	}
	if diff := cmp.Diff(want, s.Kueue); diff != "" {
		t.Errorf("Kueue (-want +got):\n%s", diff)
	}
	if got := s.KueueAdmitted(); !cmp.Equal(got, map[string]string{"ml/train-0": "ml/job-train"}) {
		t.Errorf("admitted pods: %v", got)
	}
}

// Without Kueue's API (no CRDs: the list answers 404) the snapshot has
// no Kueue section and no note; a forbidden list is named in the partial
// list; without a dynamic client nothing is read.
func TestSnapshotWithoutKueue(t *testing.T) {
	t.Parallel()
	c := &Client{Interface: fake.NewClientset(node("gpu-a", nil, "nvidia.com/gpu", "1")), Server: "https://fake"}
	s, err := c.Snapshot(context.Background(), t0, time.Hour)
	if err != nil || s.Kueue != nil {
		t.Fatalf("no dynamic client: Kueue %v, err %v", s.Kueue, err)
	}
	for _, tc := range []struct {
		name        string
		err         error
		wantPartial bool
	}{
		{"not served", apierrors.NewNotFound(kueueClusterQueues.GroupResource(), ""), false},
		{"forbidden", apierrors.NewForbidden(kueueClusterQueues.GroupResource(), "", nil), true},
	} {
		dc := kueueDynamic(t)
		dc.PrependReactor("list", "clusterqueues", func(k8stesting.Action) (bool, runtime.Object, error) { return true, nil, tc.err })
		c.Dynamic = dc
		s, err := c.Snapshot(context.Background(), t0, time.Hour)
		if err != nil || s.Kueue != nil {
			t.Fatalf("%s: Kueue %v, err %v", tc.name, s.Kueue, err)
		}
		if got := len(s.Partial) == 1 && strings.Contains(s.Partial[0], "clusterqueues.kueue.x-k8s.io is forbidden"); got != tc.wantPartial {
			t.Errorf("%s: partial %q", tc.name, s.Partial)
		}
	}
	// A Cohort CRD missing (Kueue before hierarchical cohorts) is no loss.
	dc := kueueDynamic(t)
	dc.PrependReactor("list", "cohorts", func(k8stesting.Action) (bool, runtime.Object, error) {
		return true, nil, apierrors.NewNotFound(kueueCohorts.GroupResource(), "")
	})
	c.Dynamic = dc
	if s, err := c.Snapshot(context.Background(), t0, time.Hour); err != nil || s.Kueue == nil {
		t.Fatalf("no Cohort API: Kueue %v, err %v", s.Kueue, err)
	}
}
