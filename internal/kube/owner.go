package kube

import (
	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/gpuwise/gpuwise/internal/cluster"
)

// owners resolves a pod's controller to its top-level workload:
// ReplicaSet → Deployment, Job → CronJob; StatefulSet, DaemonSet and any
// other controller stay as they are; a bare pod owns itself.
type owners struct {
	// parent maps "Kind/namespace/name" of a ReplicaSet or Job to its own
	// controller.
	parent map[string]*metav1.OwnerReference
}

func newOwners(rs []appsv1.ReplicaSet, jobs []batchv1.Job) *owners {
	o := &owners{parent: map[string]*metav1.OwnerReference{}}
	for i := range rs {
		if ref := metav1.GetControllerOf(&rs[i]); ref != nil {
			o.parent["ReplicaSet/"+rs[i].Namespace+"/"+rs[i].Name] = ref
		}
	}
	for i := range jobs {
		if ref := metav1.GetControllerOf(&jobs[i]); ref != nil {
			o.parent["Job/"+jobs[i].Namespace+"/"+jobs[i].Name] = ref
		}
	}
	return o
}

// controllers are the UIDs of p's controller and of that controller's
// own controller (a Job's JobSet or CronJob), nearest first: what a Kueue
// Workload's owner is matched against.
func (o *owners) controllers(p *corev1.Pod) []string {
	return o.controllersOf(p.Namespace, metav1.GetControllerOf(p))
}

// controllersOf is controllers for a pod in namespace whose controller
// is ref (nil: none).
func (o *owners) controllersOf(namespace string, ref *metav1.OwnerReference) []string {
	if ref == nil {
		return nil
	}
	out := []string{string(ref.UID)}
	if up := o.parent[ref.Kind+"/"+namespace+"/"+ref.Name]; up != nil {
		out = append(out, string(up.UID))
	}
	return out
}

func (o *owners) of(p *corev1.Pod) cluster.Owner {
	return o.ofRef(p.Namespace, p.Name, metav1.GetControllerOf(p))
}

// ofRef resolves the pod namespace/name whose controller is ref (nil: a
// bare pod).
func (o *owners) ofRef(namespace, name string, ref *metav1.OwnerReference) cluster.Owner {
	if ref == nil {
		return cluster.Owner{Kind: "Pod", Name: name}
	}
	owner := cluster.Owner{Kind: ref.Kind, Name: ref.Name}
	if ref.Kind == "ReplicaSet" || ref.Kind == "Job" {
		if up := o.parent[ref.Kind+"/"+namespace+"/"+ref.Name]; up != nil {
			owner = cluster.Owner{Kind: up.Kind, Name: up.Name}
		}
	}
	return owner
}
