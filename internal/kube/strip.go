package kube

import (
	"time"

	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/gpuwise/gpuwise/internal/cluster"
)

// strip is the informers' transform: it keeps only what the snapshot
// reads, so that the caches of a large cluster hold a fraction of the API
// objects (no managed fields, env, volumes, images, conditions, ...):
// pods are cached already converted (cachedPod), nodes, ReplicaSets and
// Jobs stripped to the fields conversion reads.
func strip(obj any) (any, error) {
	switch o := obj.(type) {
	case *corev1.Pod:
		return newCachedPod(o), nil
	case *corev1.Node:
		return stripNode(o), nil
	case *appsv1.ReplicaSet:
		return &appsv1.ReplicaSet{ObjectMeta: ownerMeta(&o.ObjectMeta)}, nil
	case *batchv1.Job:
		return &batchv1.Job{ObjectMeta: ownerMeta(&o.ObjectMeta)}, nil
	}
	if d, ok := stripDRA(obj); ok {
		return d, nil
	}
	return obj, nil
}

// ownerMeta is the identity and controller of an object.
func ownerMeta(m *metav1.ObjectMeta) metav1.ObjectMeta {
	return metav1.ObjectMeta{Name: m.Name, Namespace: m.Namespace, UID: m.UID, ResourceVersion: m.ResourceVersion,
		OwnerReferences: m.OwnerReferences}
}

func stripNode(n *corev1.Node) *corev1.Node {
	meta := ownerMeta(&n.ObjectMeta)
	meta.Labels, meta.CreationTimestamp = n.Labels, n.CreationTimestamp
	for k, v := range n.Annotations {
		if k == corev1.LastAppliedConfigAnnotation {
			continue
		}
		if meta.Annotations == nil {
			meta.Annotations = map[string]string{}
		}
		meta.Annotations[k] = v
	}
	out := &corev1.Node{ObjectMeta: meta}
	out.Spec.Taints, out.Spec.ProviderID = n.Spec.Taints, n.Spec.ProviderID
	out.Status.Capacity, out.Status.Allocatable = n.Status.Capacity, n.Status.Allocatable
	return out
}

// cachedPod is what the pod informer keeps: the pod converted to the
// model (owner not yet resolved: ReplicaSets and Jobs change on their
// own), with its identity and controller reference. A pod that terminated
// without a recorded finish time ends at the snapshot's now (endless).
type cachedPod struct {
	metav1.TypeMeta
	metav1.ObjectMeta
	pod     cluster.Pod
	endless bool
	// templates maps the pod's claims made from ResourceClaimTemplates to
	// their templates (podClaimTemplates).
	templates map[string]string
}

func newCachedPod(p *corev1.Pod) *cachedPod {
	meta := metav1.ObjectMeta{Name: p.Name, Namespace: p.Namespace, UID: p.UID, ResourceVersion: p.ResourceVersion}
	if ref := metav1.GetControllerOf(p); ref != nil {
		meta.OwnerReferences = []metav1.OwnerReference{*ref}
	}
	c := &cachedPod{ObjectMeta: meta, pod: convertPod(p, cluster.Owner{}, time.Time{}), templates: podClaimTemplates(p)}
	if terminated(p) && !finished(p) {
		c.endless, c.pod.End = true, time.Time{}
	}
	return c
}

// DeepCopyObject copies the pod (the informer's contract; nothing here
// writes a cached pod).
func (c *cachedPod) DeepCopyObject() runtime.Object {
	cp := *c
	return &cp
}

// finished reports whether a container recorded when it finished.
func finished(p *corev1.Pod) bool {
	for _, cs := range p.Status.ContainerStatuses {
		if cs.State.Terminated != nil && !cs.State.Terminated.FinishedAt.IsZero() {
			return true
		}
	}
	return false
}

// controllers are the cached pod's controller UIDs (owners.controllers).
func (c *cachedPod) controllers(own *owners) []string {
	if len(c.OwnerReferences) == 0 {
		return nil
	}
	return own.controllersOf(c.Namespace, &c.OwnerReferences[0])
}

// model is the cached pod as the snapshot at now sees it, its owner
// resolved through own.
func (c *cachedPod) model(own *owners, now time.Time) cluster.Pod {
	p := c.pod
	var ref *metav1.OwnerReference
	if len(c.OwnerReferences) > 0 {
		ref = &c.OwnerReferences[0]
	}
	p.Owner = own.ofRef(c.Namespace, c.Name, ref)
	if c.endless {
		p.End = now
		if p.End.Before(p.Start) {
			p.End = p.Start
		}
	}
	return p
}
