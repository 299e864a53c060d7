package kube

import (
	"context"
	"fmt"
	"maps"
	"math"
	"slices"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
	kueuev1beta2 "sigs.k8s.io/kueue/apis/kueue/v1beta2"

	"github.com/gpuwise/gpuwise/internal/cluster"
	"github.com/gpuwise/gpuwise/internal/gpurule"
)

// Kueue's resources (kueue.x-k8s.io/v1beta2, served since Kueue 0.15 and
// its storage version since 0.16; docs/kueue.md).
var (
	kueueClusterQueues = kueuev1beta2.GroupVersion.WithResource("clusterqueues")
	kueueLocalQueues   = kueuev1beta2.GroupVersion.WithResource("localqueues")
	kueueFlavors       = kueuev1beta2.GroupVersion.WithResource("resourceflavors")
	kueueCohorts       = kueuev1beta2.GroupVersion.WithResource("cohorts")
	kueueWorkloads     = kueuev1beta2.GroupVersion.WithResource("workloads")
	// cohortsResource is the one Kueue resource a cluster may not serve
	// (Cohort objects came with hierarchical cohorts): its absence is no loss.
	cohortsResource = kueueCohorts.Resource + "." + kueueCohorts.Group
)

// kueueObjects are the Kueue objects a snapshot reads, converted page by
// page, and the owners of the pods listed before them, by controller UID.
type kueueObjects struct {
	info      cluster.KueueInfo
	workloads []kueueWorkload
}

// kueueWorkload is a converted workload and the UID of its job, which
// its pods name as their controller (or their controller's).
type kueueWorkload struct {
	w        cluster.QueuedWorkload
	ownerUID string
}

// kueueKind is one Kueue resource and how one of its objects is added
// to the objects a snapshot reads: the list (kueueSteps) and the watcher
// (watchkueue.go) decode through the same table.
type kueueKind struct {
	gvr schema.GroupVersionResource
	add func(u *unstructured.Unstructured, k *kueueObjects) error
}

// resource is the kind's "resource.group", as lists and errors name it.
func (kk kueueKind) resource() string { return kk.gvr.Resource + "." + kk.gvr.Group }

// kueueKinds are ClusterQueues, LocalQueues, ResourceFlavors, Cohorts and
// Workloads, in the order they are read.
var kueueKinds = []kueueKind{
	{kueueClusterQueues, func(u *unstructured.Unstructured, k *kueueObjects) error {
		var q kueuev1beta2.ClusterQueue
		if err := fromUnstructured(u, &q); err != nil {
			return err
		}
		k.info.ClusterQueues = append(k.info.ClusterQueues, convertClusterQueue(&q))
		return nil
	}},
	{kueueLocalQueues, func(u *unstructured.Unstructured, k *kueueObjects) error {
		var q kueuev1beta2.LocalQueue
		if err := fromUnstructured(u, &q); err != nil {
			return err
		}
		k.info.LocalQueues = append(k.info.LocalQueues, cluster.LocalQueue{Namespace: q.Namespace, Name: q.Name, ClusterQueue: string(q.Spec.ClusterQueue)})
		return nil
	}},
	{kueueFlavors, func(u *unstructured.Unstructured, k *kueueObjects) error {
		var f kueuev1beta2.ResourceFlavor
		if err := fromUnstructured(u, &f); err != nil {
			return err
		}
		k.info.Flavors = append(k.info.Flavors, cluster.ResourceFlavor{Name: f.Name, NodeLabels: f.Spec.NodeLabels})
		return nil
	}},
	{kueueCohorts, func(u *unstructured.Unstructured, k *kueueObjects) error {
		var c kueuev1beta2.Cohort
		if err := fromUnstructured(u, &c); err != nil {
			return err
		}
		k.info.Cohorts = append(k.info.Cohorts, cluster.Cohort{Name: c.Name, Parent: string(c.Spec.ParentName)})
		return nil
	}},
	{kueueWorkloads, func(u *unstructured.Unstructured, k *kueueObjects) error {
		var w kueuev1beta2.Workload
		if err := fromUnstructured(u, &w); err != nil {
			return err
		}
		if cw, ok := convertWorkload(&w); ok {
			k.workloads = append(k.workloads, cw)
		}
		return nil
	}},
}

// kueueSteps list every Kueue kind through the dynamic client.
func kueueSteps(dc dynamic.Interface, k *kueueObjects) []step {
	steps := make([]step, 0, len(kueueKinds))
	for _, kk := range kueueKinds {
		steps = append(steps, step{kk.resource(), func(ctx context.Context, lo metav1.ListOptions) (page, error) {
			l, err := dc.Resource(kk.gvr).List(ctx, lo)
			if err != nil {
				return page{}, err
			}
			for i := range l.Items {
				if err := kk.add(&l.Items[i], k); err != nil {
					return page{}, err
				}
			}
			return page{next: l.GetContinue(), items: len(l.Items), remaining: l.GetRemainingItemCount()}, nil
		}})
	}
	return steps
}

// add appends what o holds to k (the watcher's caches hold one object's
// worth each).
func (k *kueueObjects) add(o *kueueObjects) {
	k.info.ClusterQueues = append(k.info.ClusterQueues, o.info.ClusterQueues...)
	k.info.LocalQueues = append(k.info.LocalQueues, o.info.LocalQueues...)
	k.info.Flavors = append(k.info.Flavors, o.info.Flavors...)
	k.info.Cohorts = append(k.info.Cohorts, o.info.Cohorts...)
	k.workloads = append(k.workloads, o.workloads...)
}

func fromUnstructured(u *unstructured.Unstructured, into any) error {
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(u.Object, into); err != nil {
		return fmt.Errorf("decoding %s %s: %w", u.GetKind(), namespaced(u.GetNamespace(), u.GetName()), err)
	}
	return nil
}

func namespaced(ns, name string) string {
	if ns == "" {
		return name
	}
	return ns + "/" + name
}

// quotaUnits is a GPU quantity in whole units (extended resources are
// integers; a fractional value is rounded up, as the scheduler would
// need a whole unit).
func quotaUnits(q resource.Quantity) int64 {
	if v, ok := q.AsInt64(); ok {
		return v
	}
	return int64(math.Ceil(q.AsApproximateFloat64()))
}

func convertClusterQueue(q *kueuev1beta2.ClusterQueue) cluster.ClusterQueue {
	out := cluster.ClusterQueue{Name: q.Name, Cohort: string(q.Spec.CohortName),
		Pending: int(q.Status.PendingWorkloads), Admitted: int(q.Status.AdmittedWorkloads)}
	type fr struct{ flavor, res string }
	at := map[fr]int{}
	for _, g := range q.Spec.ResourceGroups {
		for _, f := range g.Flavors {
			for _, r := range f.Resources {
				if !gpurule.GPUResources.Match(string(r.Name)) {
					continue
				}
				qq := cluster.QueueQuota{Flavor: string(f.Name), Resource: string(r.Name), Nominal: quotaUnits(r.NominalQuota)}
				if r.BorrowingLimit != nil {
					v := quotaUnits(*r.BorrowingLimit)
					qq.BorrowingLimit = &v
				}
				if r.LendingLimit != nil {
					v := quotaUnits(*r.LendingLimit)
					qq.LendingLimit = &v
				}
				at[fr{qq.Flavor, qq.Resource}] = len(out.Quotas)
				out.Quotas = append(out.Quotas, qq)
			}
		}
	}
	for _, f := range q.Status.FlavorsUsage {
		for _, r := range f.Resources {
			if i, ok := at[fr{string(f.Name), string(r.Name)}]; ok {
				out.Quotas[i].Used, out.Quotas[i].Borrowed = quotaUnits(r.Total), quotaUnits(r.Borrowed)
			}
		}
	}
	return out
}

// convertWorkload keeps a workload that asks for GPUs: false for one that
// asks none.
func convertWorkload(w *kueuev1beta2.Workload) (kueueWorkload, bool) {
	out := cluster.QueuedWorkload{Namespace: w.Namespace, Name: w.Name, Queue: string(w.Spec.QueueName), Created: w.CreationTimestamp.UTC()}
	var uid string
	if ref := metav1.GetControllerOf(w); ref != nil {
		out.Owner, uid = cluster.Owner{Kind: ref.Kind, Name: ref.Name}, string(ref.UID)
	}
	if c := meta.FindStatusCondition(w.Status.Conditions, kueuev1beta2.WorkloadAdmitted); c != nil && c.Status == metav1.ConditionTrue {
		out.Admitted = c.LastTransitionTime.UTC()
	}
	if c := meta.FindStatusCondition(w.Status.Conditions, kueuev1beta2.WorkloadFinished); c != nil && c.Status == metav1.ConditionTrue {
		out.Finished = c.LastTransitionTime.UTC()
	}
	flavors := map[string]bool{}
	if a := w.Status.Admission; a != nil {
		out.ClusterQueue = string(a.ClusterQueue)
		for _, ps := range a.PodSetAssignments {
			out.GPUs = addQueuedGPUs(out.GPUs, ps.ResourceUsage, 1)
			for r, f := range ps.Flavors {
				if gpurule.GPUResources.Match(string(r)) {
					flavors[string(f)] = true
				}
			}
		}
	}
	if out.GPUs == nil {
		out.GPUs = workloadAsks(w)
	}
	if len(out.GPUs) == 0 {
		return kueueWorkload{}, false
	}
	out.Flavors = slices.Sorted(maps.Keys(flavors))
	return kueueWorkload{w: out, ownerUID: uid}, true
}

// workloadAsks are a workload's GPU asks before admission: the totals
// Kueue computed (status.resourceRequests), else each pod set's count ×
// its template's containers' requests (limits where no request: they
// are equal for extended resources).
func workloadAsks(w *kueuev1beta2.Workload) map[string]int64 {
	var out map[string]int64
	if len(w.Status.ResourceRequests) > 0 {
		for _, r := range w.Status.ResourceRequests {
			out = addQueuedGPUs(out, r.Resources, 1)
		}
		return out
	}
	for _, ps := range w.Spec.PodSets {
		for _, c := range ps.Template.Spec.Containers {
			l := c.Resources.Requests
			if len(l) == 0 {
				l = c.Resources.Limits
			}
			out = addQueuedGPUs(out, l, int64(ps.Count))
		}
	}
	return out
}

func addQueuedGPUs(into map[string]int64, l corev1.ResourceList, times int64) map[string]int64 {
	for name, q := range l {
		if n := quotaUnits(q) * times; n > 0 && gpurule.GPUResources.Match(string(name)) {
			if into == nil {
				into = map[string]int64{}
			}
			into[string(name)] += n
		}
	}
	return into
}

// listKueue reads Kueue's objects into k; false when kueue.x-k8s.io/v1beta2
// is not served (no Kueue, or one older than 0.15), with a partial note
// when listing is forbidden.
func (c *Client) listKueue(ctx context.Context, k *kueueObjects) (read bool, partial string, err error) {
	for _, s := range kueueSteps(c.Dynamic, k) {
		err := listAll(ctx, s.resource, c.Progress, s.fetch)
		switch {
		case err == nil:
		case apierrors.IsNotFound(err) && s.resource == cohortsResource:
			// Cohort objects are optional (hierarchical cohorts).
		case apierrors.IsNotFound(err):
			return false, "", nil
		case apierrors.IsForbidden(err):
			return false, fmt.Sprintf("listing %s is forbidden (grant list on kueue.x-k8s.io %s, see docs/rbac.md): Kueue queues and workloads are not reported", s.resource, s.resource), nil
		default:
			return false, "", classify(err, "list", s.resource, c.Server)
		}
	}
	return true, "", nil
}

// kueueBuild joins the workloads to the pods that ran them (a pod whose
// controller, or its controller's controller, is the workload's job; a
// plain pod that is its own workload's owner) and fills in the cluster
// queue of workloads not yet admitted from their LocalQueue.
func kueueBuild(s *cluster.Snapshot, k *kueueObjects, ctrl map[string][]string) *cluster.KueueInfo {
	byUID := map[string][]string{}
	for i := range s.Pods {
		p := &s.Pods[i]
		if p.UID != "" {
			byUID[p.UID] = append(byUID[p.UID], p.Key())
		}
		for _, uid := range ctrl[p.Key()] {
			byUID[uid] = append(byUID[uid], p.Key())
		}
	}
	lq := map[string]string{}
	for _, q := range k.info.LocalQueues {
		lq[q.Key()] = q.ClusterQueue
	}
	info := k.info
	info.Workloads = make([]cluster.QueuedWorkload, 0, len(k.workloads))
	for _, kw := range k.workloads {
		w := kw.w
		if w.ClusterQueue == "" {
			w.ClusterQueue = lq[w.Namespace+"/"+w.Queue]
		}
		if kw.ownerUID != "" {
			w.Pods = slices.Clone(byUID[kw.ownerUID])
		}
		info.Workloads = append(info.Workloads, w)
	}
	info.Sort()
	return &info
}
