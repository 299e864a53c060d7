//go:build integration

package kube

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/dynamic"
	kueuev1beta2 "sigs.k8s.io/kueue/apis/kueue/v1beta2"

	"github.com/gpuwise/gpuwise/internal/cli"
	"github.com/gpuwise/gpuwise/internal/cluster"
	"github.com/gpuwise/gpuwise/internal/kube"
	"github.com/gpuwise/gpuwise/internal/snapshot"
)

// kueueCRDs are Kueue's CRDs under $GPUWISE_CRDS (hack/crds/build.sh,
// from sigs.k8s.io/kueue at the version go.mod pins).
var kueueCRDs = []string{"kueue/kueue.x-k8s.io_resourceflavors.yaml", "kueue/kueue.x-k8s.io_cohorts.yaml",
	"kueue/kueue.x-k8s.io_clusterqueues.yaml", "kueue/kueue.x-k8s.io_localqueues.yaml", "kueue/kueue.x-k8s.io_workloads.yaml"}

const (
	kueueNS   = "kueue-ml"
	kueueNode = "kueue-a100"
)

// installKueue puts Kueue's CRDs in the apiserver and removes those it
// created when the test ends.
func installKueue(ctx context.Context, t *testing.T, dyn dynamic.Interface) {
	t.Helper()
	dir := os.Getenv("GPUWISE_CRDS")
	if dir == "" {
		t.Fatal("GPUWISE_CRDS is unset: run `make integration-kube`, which fetches the CRDs (hack/crds)")
	}
	var made []string
	for _, f := range kueueCRDs {
		made = append(made, putCRD(ctx, t, dyn, firstDocument(t, filepath.Join(dir, f))))
	}
	t.Cleanup(func() { removeCRDs(t, dyn, &made) })
}

func kueueUnstructured(t *testing.T, kind string, obj any) *unstructured.Unstructured {
	t.Helper()
	m, err := runtime.DefaultUnstructuredConverter.ToUnstructured(obj)
	if err != nil {
		t.Fatal(err)
	}
	u := &unstructured.Unstructured{Object: m}
	u.SetAPIVersion(kueuev1beta2.GroupVersion.String())
	u.SetKind(kind)
	unstructured.RemoveNestedField(u.Object, "status")
	unstructured.RemoveNestedField(u.Object, "metadata", "creationTimestamp")
	return u
}

// TestKueueCollected (issue 28): Kueue's CRDs from its Go module in the
// real apiserver; a ResourceFlavor, a Cohort, a ClusterQueue with a GPU
// quota and its status usage, a LocalQueue, and two GPU Workloads — one
// admitted (status.admission and the Admitted condition, as Kueue's
// controller writes them) and run by a Job's pod on a KWOK GPU node, one
// pending — are created, and `gpuwise collect` with the shipped read-only
// role reads them back into the snapshot, the admitted workload joined to
// its pod; serve's watcher reads the same and follows the pending one's
// admission (checkWatchedKueue).
func TestKueueCollected(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cs, cfg := admin(t)
	dyn := dynamic.NewForConfigOrDie(cfg)
	installKueue(ctx, t, dyn)
	ensureNamespace(ctx, t, cs, kueueNS)
	n := kwokNode(kueueNode, awsLabels("p4d.24xlarge", "on-demand", "nvidia.com/gpu.product", "NVIDIA-A100-SXM4-40GB"), nil, "aws:///us-east-1a/i-kueue",
		"cpu", "96", "memory", "1152Gi", "nvidia.com/gpu", "8")
	if _, err := cs.CoreV1().Nodes().Create(ctx, n, metav1.CreateOptions{}); err != nil {
		t.Fatalf("creating node: %v", err)
	}
	t.Cleanup(func() { cs.CoreV1().Nodes().Delete(context.Background(), kueueNode, metav1.DeleteOptions{}) })

	res := func(name string) dynamic.NamespaceableResourceInterface {
		return dyn.Resource(kueuev1beta2.GroupVersion.WithResource(name))
	}
	create := func(r dynamic.ResourceInterface, kind string, obj any) *unstructured.Unstructured {
		t.Helper()
		got, err := r.Create(ctx, kueueUnstructured(t, kind, obj), metav1.CreateOptions{FieldValidation: "Strict"})
		if err != nil {
			t.Fatalf("creating %s: %v", kind, err)
		}
		return got
	}
	// setStatus writes status as Kueue's controller would (the status
	// subresource), strictly validated.
	setStatus := func(r dynamic.ResourceInterface, got *unstructured.Unstructured, status any) {
		t.Helper()
		m, err := runtime.DefaultUnstructuredConverter.ToUnstructured(status)
		if err != nil {
			t.Fatal(err)
		}
		got.Object["status"] = m
		if _, err := r.UpdateStatus(ctx, got, metav1.UpdateOptions{FieldValidation: "Strict"}); err != nil {
			t.Fatalf("status of %s %s: %v", got.GetKind(), got.GetName(), err)
		}
	}
	t.Cleanup(func() {
		c := context.Background()
		res("workloads").Namespace(kueueNS).DeleteCollection(c, metav1.DeleteOptions{}, metav1.ListOptions{})
		res("localqueues").Namespace(kueueNS).DeleteCollection(c, metav1.DeleteOptions{}, metav1.ListOptions{})
		for _, r := range []string{"clusterqueues", "resourceflavors", "cohorts"} {
			res(r).DeleteCollection(c, metav1.DeleteOptions{}, metav1.ListOptions{})
		}
		zero := int64(0)
		cs.CoreV1().Pods(kueueNS).DeleteCollection(c, metav1.DeleteOptions{GracePeriodSeconds: &zero}, metav1.ListOptions{})
		cs.BatchV1().Jobs(kueueNS).DeleteCollection(c, metav1.DeleteOptions{}, metav1.ListOptions{})
	})

	create(res("resourceflavors"), "ResourceFlavor", &kueuev1beta2.ResourceFlavor{ObjectMeta: metav1.ObjectMeta{Name: "a100"},
		Spec: kueuev1beta2.ResourceFlavorSpec{NodeLabels: map[string]string{"nvidia.com/gpu.product": "NVIDIA-A100-SXM4-40GB"}}})
	create(res("cohorts"), "Cohort", &kueuev1beta2.Cohort{ObjectMeta: metav1.ObjectMeta{Name: "gpus"}})
	borrow := resource.MustParse("2")
	cq := create(res("clusterqueues"), "ClusterQueue", &kueuev1beta2.ClusterQueue{ObjectMeta: metav1.ObjectMeta{Name: "team-ml"},
		Spec: kueuev1beta2.ClusterQueueSpec{CohortName: "gpus", NamespaceSelector: &metav1.LabelSelector{},
			ResourceGroups: []kueuev1beta2.ResourceGroup{{CoveredResources: []corev1.ResourceName{"cpu", "nvidia.com/gpu"},
				Flavors: []kueuev1beta2.FlavorQuotas{{Name: "a100", Resources: []kueuev1beta2.ResourceQuota{
					{Name: "cpu", NominalQuota: resource.MustParse("64")},
					{Name: "nvidia.com/gpu", NominalQuota: resource.MustParse("4"), BorrowingLimit: &borrow}}}}}}}})
	setStatus(res("clusterqueues"), cq, &kueuev1beta2.ClusterQueueStatus{PendingWorkloads: 1, AdmittedWorkloads: 1,
		FlavorsUsage: []kueuev1beta2.FlavorUsage{{Name: "a100", Resources: []kueuev1beta2.ResourceUsage{
			{Name: "cpu", Total: resource.MustParse("8")}, {Name: "nvidia.com/gpu", Total: resource.MustParse("2")}}}}})
	create(res("localqueues").Namespace(kueueNS), "LocalQueue", &kueuev1beta2.LocalQueue{ObjectMeta: metav1.ObjectMeta{Namespace: kueueNS, Name: "batch"},
		Spec: kueuev1beta2.LocalQueueSpec{ClusterQueue: "team-ml"}})

	// The admitted workload's job and its running pods. The Job names
	// another controller (spec.managedBy): the built-in Job controller
	// would otherwise release the hand-made pods, which lack its
	// selector's labels, by removing their owner reference (a race the
	// test lost once the machine was quiet).
	suspend, no := true, false
	managedBy := "gpuwise.io/test"
	job, err := cs.BatchV1().Jobs(kueueNS).Create(ctx, &batchv1.Job{ObjectMeta: metav1.ObjectMeta{Name: "train", Labels: map[string]string{"kueue.x-k8s.io/queue-name": "batch"}},
		Spec: batchv1.JobSpec{Suspend: &suspend, ManagedBy: &managedBy, Template: corev1.PodTemplateSpec{Spec: corev1.PodSpec{RestartPolicy: corev1.RestartPolicyNever,
			Containers: []corev1.Container{{Name: "main", Image: "registry.invalid/train:1"}}}}}}, metav1.CreateOptions{})
	if err != nil {
		t.Fatalf("creating job: %v", err)
	}
	owner := []metav1.OwnerReference{{APIVersion: "batch/v1", Kind: "Job", Name: job.Name, UID: job.UID, Controller: &suspend}}
	gpus := corev1.ResourceList{"cpu": resource.MustParse("4"), "memory": resource.MustParse("16Gi"), "nvidia.com/gpu": resource.MustParse("1")}
	for _, name := range []string{"train-0", "train-1"} {
		p := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: kueueNS, Name: name, OwnerReferences: owner}, Spec: corev1.PodSpec{
			AutomountServiceAccountToken: &no, NodeName: kueueNode, RestartPolicy: corev1.RestartPolicyNever,
			Containers: []corev1.Container{{Name: "main", Image: "registry.invalid/train:1", Resources: corev1.ResourceRequirements{Requests: gpus, Limits: gpus}}}}}
		if _, err := cs.CoreV1().Pods(kueueNS).Create(ctx, p, metav1.CreateOptions{}); err != nil {
			t.Fatalf("creating pod %s: %v", name, err)
		}
	}
	podSet := func(count int32) []kueuev1beta2.PodSet {
		return []kueuev1beta2.PodSet{{Name: "main", Count: count, Template: corev1.PodTemplateSpec{Spec: corev1.PodSpec{RestartPolicy: corev1.RestartPolicyNever,
			Containers: []corev1.Container{{Name: "main", Image: "registry.invalid/train:1", Resources: corev1.ResourceRequirements{Requests: gpus, Limits: gpus}}}}}}}
	}
	wl := res("workloads").Namespace(kueueNS)
	admitted := create(wl, "Workload", &kueuev1beta2.Workload{ObjectMeta: metav1.ObjectMeta{Namespace: kueueNS, Name: "job-train", OwnerReferences: owner},
		Spec: kueuev1beta2.WorkloadSpec{QueueName: "batch", PodSets: podSet(2)}})
	admittedAt := metav1.NewTime(time.Now().UTC().Truncate(time.Second))
	two := int32(2)
	setStatus(wl, admitted, &kueuev1beta2.WorkloadStatus{
		Admission: &kueuev1beta2.Admission{ClusterQueue: "team-ml", PodSetAssignments: []kueuev1beta2.PodSetAssignment{{Name: "main", Count: &two,
			Flavors:       map[corev1.ResourceName]kueuev1beta2.ResourceFlavorReference{"cpu": "a100", "memory": "a100", "nvidia.com/gpu": "a100"},
			ResourceUsage: corev1.ResourceList{"cpu": resource.MustParse("8"), "memory": resource.MustParse("32Gi"), "nvidia.com/gpu": resource.MustParse("2")}}}},
		Conditions: []metav1.Condition{
			{Type: kueuev1beta2.WorkloadQuotaReserved, Status: metav1.ConditionTrue, Reason: "QuotaReserved", Message: "Quota reserved in ClusterQueue team-ml", LastTransitionTime: admittedAt},
			{Type: kueuev1beta2.WorkloadAdmitted, Status: metav1.ConditionTrue, Reason: "Admitted", Message: "The workload is admitted", LastTransitionTime: admittedAt}}})
	create(wl, "Workload", &kueuev1beta2.Workload{ObjectMeta: metav1.ObjectMeta{Namespace: kueueNS, Name: "job-sweep"},
		Spec: kueuev1beta2.WorkloadSpec{QueueName: "batch", PodSets: podSet(4)}})

	ensureNamespace(ctx, t, cs, "gpuwise")
	reader := serviceAccountKubeconfig(ctx, t, cs, cfg, "gpuwise", true)
	path := filepath.Join(t.TempDir(), "kueue.gwsnap")
	if _, errOut, code := execute(t, "collect", "--kubeconfig", reader, "-o", path); code != cli.ExitOK {
		t.Fatalf("collect exit %d: %s", code, errOut)
	}
	s, err := snapshot.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Partial) > 0 {
		t.Errorf("collect with the shipped role is partial: %q", s.Partial)
	}
	if s.Kueue == nil {
		t.Fatal("the snapshot has no Kueue section")
	}
	two64 := int64(2)
	var gotCQ *cluster.ClusterQueue
	for i := range s.Kueue.ClusterQueues {
		if s.Kueue.ClusterQueues[i].Name == "team-ml" {
			gotCQ = &s.Kueue.ClusterQueues[i]
		}
	}
	wantCQ := &cluster.ClusterQueue{Name: "team-ml", Cohort: "gpus", Pending: 1, Admitted: 1,
		Quotas: []cluster.QueueQuota{{Flavor: "a100", Resource: "nvidia.com/gpu", Nominal: 4, BorrowingLimit: &two64, Used: 2}}}
	if diff := cmp.Diff(wantCQ, gotCQ); diff != "" {
		t.Errorf("ClusterQueue (-want +got):\n%s", diff)
	}
	var got []cluster.QueuedWorkload
	for _, w := range s.Kueue.Workloads {
		if w.Namespace == kueueNS {
			w.Created = time.Time{} // the apiserver's clock
			got = append(got, w)
		}
	}
	want := []cluster.QueuedWorkload{
		{Namespace: kueueNS, Name: "job-sweep", Queue: "batch", ClusterQueue: "team-ml", GPUs: map[string]int64{"nvidia.com/gpu": 4}},
		{Namespace: kueueNS, Name: "job-train", Queue: "batch", ClusterQueue: "team-ml", Owner: cluster.Owner{Kind: "Job", Name: "train"},
			Admitted: admittedAt.Time, GPUs: map[string]int64{"nvidia.com/gpu": 2}, Flavors: []string{"a100"},
			Pods: []string{kueueNS + "/train-0", kueueNS + "/train-1"}},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("workloads (-want +got):\n%s", diff)
	}
	if !containsLQ(s.Kueue.LocalQueues, cluster.LocalQueue{Namespace: kueueNS, Name: "batch", ClusterQueue: "team-ml"}) {
		t.Errorf("local queues %+v lack %s/batch", s.Kueue.LocalQueues, kueueNS)
	}
	// The report reads the queue: its admitted pods' GPU-hours from the
	// cost engine, the pending workload's 4 GPUs as starved demand.
	out, errOut, code := execute(t, "report", "--from", path, "-o", "json")
	if code != cli.ExitOK && code != cli.ExitPartial {
		t.Fatalf("report exit %d: %s", code, errOut)
	}
	for _, w := range []string{`"kueue"`, `"name": "team-ml"`, `"pending_gpus": 4`} {
		if !strings.Contains(out, w) {
			t.Errorf("report -o json lacks %s", w)
		}
	}
	checkWatchedKueue(ctx, t, reader, s, func(status *kueuev1beta2.WorkloadStatus) {
		got, err := wl.Get(ctx, "job-sweep", metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		setStatus(wl, got, status)
	})
}

// checkWatchedKueue: serve's watcher, with the same shipped role (list
// and watch), reads the same Kueue section as collect; then the pending
// workload is admitted (admit writes its status) and the watcher's next
// snapshots show the admission without a relist.
func checkWatchedKueue(ctx context.Context, t *testing.T, kubeconfig string, listed *cluster.Snapshot, admit func(*kueuev1beta2.WorkloadStatus)) {
	t.Helper()
	c, err := kube.Connect(kube.Options{Kubeconfig: kubeconfig, Timeout: 30 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	w, err := c.Watch(ctx, time.Now)
	if err != nil {
		t.Fatalf("watch with the shipped role: %v", err)
	}
	defer w.Stop()
	ws, err := w.Snapshot(listed.Window.End, listed.Window.End.Sub(listed.Window.Start))
	if err != nil {
		t.Fatal(err)
	}
	if len(ws.Partial) > 0 {
		t.Errorf("watched snapshot with the shipped role is partial: %q", ws.Partial)
	}
	if diff := cmp.Diff(listed.Kueue, ws.Kueue); diff != "" {
		t.Errorf("Kueue (-collect +watch):\n%s", diff)
	}
	at := metav1.NewTime(time.Now().UTC().Truncate(time.Second))
	four := int32(4)
	admit(&kueuev1beta2.WorkloadStatus{
		Admission: &kueuev1beta2.Admission{ClusterQueue: "team-ml", PodSetAssignments: []kueuev1beta2.PodSetAssignment{{Name: "main", Count: &four,
			Flavors:       map[corev1.ResourceName]kueuev1beta2.ResourceFlavorReference{"cpu": "a100", "memory": "a100", "nvidia.com/gpu": "a100"},
			ResourceUsage: corev1.ResourceList{"cpu": resource.MustParse("16"), "memory": resource.MustParse("64Gi"), "nvidia.com/gpu": resource.MustParse("4")}}}},
		Conditions: []metav1.Condition{
			{Type: kueuev1beta2.WorkloadQuotaReserved, Status: metav1.ConditionTrue, Reason: "QuotaReserved", Message: "Quota reserved in ClusterQueue team-ml", LastTransitionTime: at},
			{Type: kueuev1beta2.WorkloadAdmitted, Status: metav1.ConditionTrue, Reason: "Admitted", Message: "The workload is admitted", LastTransitionTime: at}}})
	var sweep *cluster.QueuedWorkload
	waitFor(t, "the watcher sees job-sweep admitted", 30*time.Second, func() (bool, string) {
		s, err := w.Snapshot(time.Now(), time.Hour)
		if err != nil {
			return false, err.Error()
		}
		for i := range s.Kueue.Workloads {
			if q := &s.Kueue.Workloads[i]; q.Namespace == kueueNS && q.Name == "job-sweep" {
				sweep = q
				return !q.Admitted.IsZero(), fmt.Sprintf("%+v", *q)
			}
		}
		return false, "no job-sweep"
	})
	if !sweep.Admitted.Equal(at.Time) || !cmp.Equal(sweep.Flavors, []string{"a100"}) || sweep.GPUs["nvidia.com/gpu"] != 4 {
		t.Errorf("admitted job-sweep: %+v, want admitted %s on a100 with 4 GPUs", *sweep, at.Time)
	}
	if err := w.Health(); err != nil {
		t.Errorf("watch health: %v", err)
	}
}

func containsLQ(qs []cluster.LocalQueue, q cluster.LocalQueue) bool {
	for _, x := range qs {
		if x == q {
			return true
		}
	}
	return false
}
