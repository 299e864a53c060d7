package kube

import (
	"time"

	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
)

var t0 = time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)

// node builds a v1.Node with labels and allocatable resources given as
// "name=quantity" pairs.
func node(name string, labels map[string]string, res ...string) *corev1.Node {
	n := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: labels, CreationTimestamp: metav1.NewTime(t0)}}
	n.Status.Allocatable = resources(res...)
	return n
}

func resources(pairs ...string) corev1.ResourceList {
	l := corev1.ResourceList{}
	for i := 0; i+1 < len(pairs); i += 2 {
		l[corev1.ResourceName(pairs[i])] = resource.MustParse(pairs[i+1])
	}
	return l
}

func controller(kind, name string) []metav1.OwnerReference {
	yes := true
	return []metav1.OwnerReference{{Kind: kind, Name: name, Controller: &yes}}
}

// pod builds a running pod on nodeName whose one container has the given
// limits (requests equal limits).
func pod(ns, name, nodeName string, started time.Time, limits ...string) *corev1.Pod {
	p := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name, UID: types.UID("uid-" + ns + "-" + name),
		CreationTimestamp: metav1.NewTime(started)}}
	p.Spec.NodeName = nodeName
	p.Spec.Containers = []corev1.Container{{Name: "main", Resources: corev1.ResourceRequirements{
		Limits: resources(limits...), Requests: resources(limits...)}}}
	p.Status.Phase = corev1.PodRunning
	st := metav1.NewTime(started)
	p.Status.StartTime = &st
	return p
}

func replicaSet(ns, name, deployment string) *appsv1.ReplicaSet {
	return &appsv1.ReplicaSet{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name,
		OwnerReferences: controller("Deployment", deployment)}}
}

func job(ns, name, cronJob string) *batchv1.Job {
	return &batchv1.Job{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name,
		OwnerReferences: controller("CronJob", cronJob)}}
}
