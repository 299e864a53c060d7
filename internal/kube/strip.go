package kube

import (
	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// strip is the informers' transform: it keeps only what the snapshot
// reads, so that the caches of a large cluster hold a fraction of the API
// objects (no managed fields, env, volumes, images, conditions, ...).
func strip(obj any) (any, error) {
	switch o := obj.(type) {
	case *corev1.Pod:
		return stripPod(o), nil
	case *corev1.Node:
		return stripNode(o), nil
	case *appsv1.ReplicaSet:
		return &appsv1.ReplicaSet{ObjectMeta: ownerMeta(&o.ObjectMeta)}, nil
	case *batchv1.Job:
		return &batchv1.Job{ObjectMeta: ownerMeta(&o.ObjectMeta)}, nil
	}
	return obj, nil
}

// ownerMeta is the identity and controller of an object.
func ownerMeta(m *metav1.ObjectMeta) metav1.ObjectMeta {
	return metav1.ObjectMeta{Name: m.Name, Namespace: m.Namespace, UID: m.UID, ResourceVersion: m.ResourceVersion,
		OwnerReferences: m.OwnerReferences}
}

func stripPod(p *corev1.Pod) *corev1.Pod {
	meta := ownerMeta(&p.ObjectMeta)
	meta.Labels, meta.CreationTimestamp, meta.DeletionTimestamp = p.Labels, p.CreationTimestamp, p.DeletionTimestamp
	out := &corev1.Pod{ObjectMeta: meta}
	out.Spec.NodeName, out.Spec.NodeSelector, out.Spec.Tolerations = p.Spec.NodeName, p.Spec.NodeSelector, p.Spec.Tolerations
	if a := p.Spec.Affinity; a != nil && a.NodeAffinity != nil {
		out.Spec.Affinity = &corev1.Affinity{NodeAffinity: &corev1.NodeAffinity{
			RequiredDuringSchedulingIgnoredDuringExecution: a.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution}}
	}
	out.Spec.Containers = make([]corev1.Container, len(p.Spec.Containers))
	for i, c := range p.Spec.Containers {
		out.Spec.Containers[i] = corev1.Container{Name: c.Name, Resources: corev1.ResourceRequirements{Requests: c.Resources.Requests, Limits: c.Resources.Limits}}
	}
	out.Status.Phase, out.Status.StartTime = p.Status.Phase, p.Status.StartTime
	for _, cs := range p.Status.ContainerStatuses {
		out.Status.ContainerStatuses = append(out.Status.ContainerStatuses, corev1.ContainerStatus{Name: cs.Name,
			State: corev1.ContainerState{Terminated: cs.State.Terminated}, LastTerminationState: cs.LastTerminationState,
			RestartCount: cs.RestartCount})
	}
	return out
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
