package kube

import (
	"context"
	"fmt"
	"strings"

	admissionv1 "k8s.io/api/admissionregistration/v1"
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/gpuwise/gpuwise/internal/cluster"
)

// The custom resources of the controls (docs/progress.md), read through
// the dynamic client as unstructured objects: only the fields detection
// needs, so no operator's Go module is linked for them.
var (
	kedaScaledObjects = schema.GroupVersionResource{Group: "keda.sh", Version: "v1alpha1", Resource: "scaledobjects"}
	vpaObjects        = schema.GroupVersionResource{Group: "autoscaling.k8s.io", Version: "v1", Resource: "verticalpodautoscalers"}
	karpenterPools    = schema.GroupVersionResource{Group: "karpenter.sh", Version: "v1", Resource: "nodepools"}
	kyvernoVPolicies  = schema.GroupVersionResource{Group: "policies.kyverno.io", Version: "v1", Resource: "validatingpolicies"}
	kyvernoCPolicies  = schema.GroupVersionResource{Group: "kyverno.io", Version: "v1", Resource: "clusterpolicies"}
)

// kedaPaused is the annotation that pauses a ScaledObject.
const kedaPaused = "autoscaling.keda.sh/paused"

// controlStep lists one resource of the controls; name is the resource as
// cluster.Controls.Read names it, and what the note says is lost when
// listing it is forbidden.
type controlStep struct {
	step
	lost string
}

// listControls reads the autoscalers, NodePools and admission policies.
// A resource that is not served (its CRD not installed, or no dynamic
// client for custom resources) is absent from Read, and in NotServed when
// the API said so (none exists); one whose listing is forbidden is a
// partial note; any other failure is an error.
func (c *Client) listControls(ctx context.Context, o *objects) error {
	ctl := &cluster.Controls{}
	for _, s := range c.controlSteps(ctl) {
		err := listAll(ctx, s.resource, c.Progress, s.fetch)
		switch {
		case err == nil:
			ctl.Read = append(ctl.Read, s.resource)
		case apierrors.IsNotFound(err):
			ctl.NotServed = append(ctl.NotServed, s.resource)
		case apierrors.IsForbidden(err):
			o.partial = append(o.partial, fmt.Sprintf("listing %s is forbidden (grant list on it, see docs/rbac.md): %s", s.resource, s.lost))
		default:
			return classify(err, "list", s.resource, c.Server)
		}
	}
	if len(ctl.Read) > 0 || len(ctl.NotServed) > 0 {
		ctl.Sort()
		o.controls = ctl
	}
	return nil
}

// The notes' words for what a forbidden control resource loses.
const (
	lostScale = "progress cannot see the autoscaler objects, only their effect"
	lostAdm   = "progress cannot see which admission policies are bound"
)

// controlKind is one resource of the controls: how one of its objects is
// added to the controls, for the list (controlSteps) and the watcher
// (watchcontrols.go) alike. gvr is set for the custom resources, read
// through the dynamic client; add reports false for an object not of the
// kind.
type controlKind struct {
	resource string
	lost     string
	gvr      schema.GroupVersionResource
	add      func(obj any, ctl *cluster.Controls) bool
}

// typedControls are the built-in kinds: HPAs, ValidatingAdmissionPolicies
// and their bindings.
var typedControls = []controlKind{
	{cluster.ResourceHPA, lostScale, schema.GroupVersionResource{}, func(obj any, ctl *cluster.Controls) bool {
		h, ok := obj.(*autoscalingv2.HorizontalPodAutoscaler)
		if ok {
			ctl.Autoscalers = append(ctl.Autoscalers, convertHPA(h))
		}
		return ok
	}},
	{cluster.ResourceVAP, lostAdm, schema.GroupVersionResource{}, func(obj any, ctl *cluster.Controls) bool {
		p, ok := obj.(*admissionv1.ValidatingAdmissionPolicy)
		if ok {
			ctl.Policies = append(ctl.Policies, cluster.AdmissionPolicy{Kind: cluster.KindVAP, Name: p.Name, Labels: p.Labels})
		}
		return ok
	}},
	{cluster.ResourceVAPBinding, lostAdm, schema.GroupVersionResource{}, func(obj any, ctl *cluster.Controls) bool {
		b, ok := obj.(*admissionv1.ValidatingAdmissionPolicyBinding)
		if !ok {
			return false
		}
		cb := cluster.AdmissionBinding{Name: b.Name, Policy: b.Spec.PolicyName}
		for _, a := range b.Spec.ValidationActions {
			cb.Actions = append(cb.Actions, string(a))
		}
		ctl.Bindings = append(ctl.Bindings, cb)
		return true
	}},
}

// dynamicControls are the custom resources: KEDA ScaledObjects, VPAs,
// Karpenter NodePools, Kyverno ValidatingPolicies and ClusterPolicies.
var dynamicControls = []controlKind{
	dynControl(kedaScaledObjects, cluster.ResourceScaledObject, lostScale, func(u *unstructured.Unstructured, ctl *cluster.Controls) {
		ctl.Autoscalers = append(ctl.Autoscalers, convertScaledObject(u))
	}),
	dynControl(vpaObjects, cluster.ResourceVPA, lostScale, func(u *unstructured.Unstructured, ctl *cluster.Controls) {
		ctl.Autoscalers = append(ctl.Autoscalers, convertVPA(u))
	}),
	dynControl(karpenterPools, cluster.ResourceNodePool, lostScale, func(u *unstructured.Unstructured, ctl *cluster.Controls) {
		ctl.NodePools = append(ctl.NodePools, convertNodePool(u))
	}),
	dynControl(kyvernoVPolicies, cluster.ResourceKyvernoVPol, lostAdm, func(u *unstructured.Unstructured, ctl *cluster.Controls) {
		acts, _, _ := unstructured.NestedStringSlice(u.Object, "spec", "validationActions")
		ctl.Policies = append(ctl.Policies, cluster.AdmissionPolicy{Kind: cluster.KindKyvernoValidating, Name: u.GetName(), Labels: u.GetLabels(), Actions: acts})
	}),
	dynControl(kyvernoCPolicies, cluster.ResourceKyvernoCluster, lostAdm, func(u *unstructured.Unstructured, ctl *cluster.Controls) {
		ctl.Policies = append(ctl.Policies, cluster.AdmissionPolicy{Kind: cluster.KindKyvernoCluster, Name: u.GetName(), Labels: u.GetLabels(), Actions: clusterPolicyActions(u)})
	}),
}

func dynControl(gvr schema.GroupVersionResource, resource, lost string, add func(*unstructured.Unstructured, *cluster.Controls)) controlKind {
	return controlKind{resource, lost, gvr, func(obj any, ctl *cluster.Controls) bool {
		u, ok := obj.(*unstructured.Unstructured)
		if ok {
			add(u, ctl)
		}
		return ok
	}}
}

func (c *Client) controlSteps(ctl *cluster.Controls) []controlStep {
	cs := c.Interface
	hpa, vap, vapb := typedControls[0], typedControls[1], typedControls[2]
	out := []controlStep{
		{step{hpa.resource, func(ctx context.Context, lo metav1.ListOptions) (page, error) {
			l, err := cs.AutoscalingV2().HorizontalPodAutoscalers(metav1.NamespaceAll).List(ctx, lo)
			if err != nil {
				return page{}, err
			}
			for i := range l.Items {
				hpa.add(&l.Items[i], ctl)
			}
			return pageOf(l.ListMeta, len(l.Items)), nil
		}}, hpa.lost},
		{step{vap.resource, func(ctx context.Context, lo metav1.ListOptions) (page, error) {
			l, err := cs.AdmissionregistrationV1().ValidatingAdmissionPolicies().List(ctx, lo)
			if err != nil {
				return page{}, err
			}
			for i := range l.Items {
				vap.add(&l.Items[i], ctl)
			}
			return pageOf(l.ListMeta, len(l.Items)), nil
		}}, vap.lost},
		{step{vapb.resource, func(ctx context.Context, lo metav1.ListOptions) (page, error) {
			l, err := cs.AdmissionregistrationV1().ValidatingAdmissionPolicyBindings().List(ctx, lo)
			if err != nil {
				return page{}, err
			}
			for i := range l.Items {
				vapb.add(&l.Items[i], ctl)
			}
			return pageOf(l.ListMeta, len(l.Items)), nil
		}}, vapb.lost},
	}
	if c.Dynamic == nil {
		return out
	}
	for _, k := range dynamicControls {
		out = append(out, controlStep{step{k.resource, func(ctx context.Context, lo metav1.ListOptions) (page, error) {
			l, err := c.Dynamic.Resource(k.gvr).List(ctx, lo)
			if err != nil {
				return page{}, err
			}
			for i := range l.Items {
				k.add(&l.Items[i], ctl)
			}
			return page{next: l.GetContinue(), items: len(l.Items), remaining: l.GetRemainingItemCount()}, nil
		}}, k.lost})
	}
	return out
}

func convertHPA(h *autoscalingv2.HorizontalPodAutoscaler) cluster.Autoscaler {
	a := cluster.Autoscaler{Kind: cluster.KindHPA, Namespace: h.Namespace, Name: h.Name,
		TargetKind: h.Spec.ScaleTargetRef.Kind, TargetName: h.Spec.ScaleTargetRef.Name, MinReplicas: 1, MaxReplicas: int(h.Spec.MaxReplicas)}
	if h.Spec.MinReplicas != nil {
		a.MinReplicas = int(*h.Spec.MinReplicas)
	}
	for _, m := range h.Spec.Metrics {
		a.Metrics = append(a.Metrics, string(m.Type))
	}
	return a
}

// convertScaledObject reads a KEDA ScaledObject: spec.scaleTargetRef
// (kind Deployment when unset), minReplicaCount (default 0),
// maxReplicaCount (default 100), the triggers' types and the paused
// annotation.
func convertScaledObject(u *unstructured.Unstructured) cluster.Autoscaler {
	a := cluster.Autoscaler{Kind: cluster.KindScaledObject, Namespace: u.GetNamespace(), Name: u.GetName(), MinReplicas: 0, MaxReplicas: 100}
	a.TargetKind, _, _ = unstructured.NestedString(u.Object, "spec", "scaleTargetRef", "kind")
	a.TargetName, _, _ = unstructured.NestedString(u.Object, "spec", "scaleTargetRef", "name")
	if a.TargetKind == "" {
		a.TargetKind = "Deployment"
	}
	if v, ok, _ := unstructured.NestedInt64(u.Object, "spec", "minReplicaCount"); ok {
		a.MinReplicas = int(v)
	}
	if v, ok, _ := unstructured.NestedInt64(u.Object, "spec", "maxReplicaCount"); ok {
		a.MaxReplicas = int(v)
	}
	triggers, _, _ := unstructured.NestedSlice(u.Object, "spec", "triggers")
	for _, t := range triggers {
		if m, ok := t.(map[string]any); ok {
			if typ, ok := m["type"].(string); ok {
				a.Metrics = append(a.Metrics, typ)
			}
		}
	}
	if strings.EqualFold(u.GetAnnotations()[kedaPaused], "true") {
		a.Mode = "paused"
	}
	return a
}

// convertVPA reads a VerticalPodAutoscaler's spec.targetRef and
// spec.updatePolicy.updateMode.
func convertVPA(u *unstructured.Unstructured) cluster.Autoscaler {
	a := cluster.Autoscaler{Kind: cluster.KindVPA, Namespace: u.GetNamespace(), Name: u.GetName()}
	a.TargetKind, _, _ = unstructured.NestedString(u.Object, "spec", "targetRef", "kind")
	a.TargetName, _, _ = unstructured.NestedString(u.Object, "spec", "targetRef", "name")
	a.Mode, _, _ = unstructured.NestedString(u.Object, "spec", "updatePolicy", "updateMode")
	return a
}

// convertNodePool reads a Karpenter NodePool: the template's labels,
// taints and requirements (instance and capacity types the In operator
// allows) and spec.disruption's consolidation.
func convertNodePool(u *unstructured.Unstructured) cluster.NodePool {
	p := cluster.NodePool{Name: u.GetName()}
	p.Labels, _, _ = unstructured.NestedStringMap(u.Object, "spec", "template", "metadata", "labels")
	if len(p.Labels) == 0 {
		p.Labels = nil
	}
	reqs, _, _ := unstructured.NestedSlice(u.Object, "spec", "template", "spec", "requirements")
	for _, r := range reqs {
		m, ok := r.(map[string]any)
		if !ok || m["operator"] != "In" {
			continue
		}
		vals, _, _ := unstructured.NestedStringSlice(m, "values")
		switch m["key"] {
		case "node.kubernetes.io/instance-type":
			p.InstanceTypes = append(p.InstanceTypes, vals...)
		case "karpenter.sh/capacity-type":
			p.CapacityTypes = append(p.CapacityTypes, vals...)
		}
	}
	taints, _, _ := unstructured.NestedSlice(u.Object, "spec", "template", "spec", "taints")
	for _, t := range taints {
		if m, ok := t.(map[string]any); ok {
			k, _ := m["key"].(string)
			v, _ := m["value"].(string)
			e, _ := m["effect"].(string)
			p.Taints = append(p.Taints, cluster.Taint{Key: k, Value: v, Effect: e})
		}
	}
	p.ConsolidationPolicy, _, _ = unstructured.NestedString(u.Object, "spec", "disruption", "consolidationPolicy")
	p.ConsolidateAfter, _, _ = unstructured.NestedString(u.Object, "spec", "disruption", "consolidateAfter")
	return p
}

// clusterPolicyActions are a Kyverno ClusterPolicy's failure actions: each
// validate rule's failureAction, else the spec-level
// validationFailureAction (deprecated since Kyverno 1.13; default Audit).
func clusterPolicyActions(u *unstructured.Unstructured) []string {
	def, _, _ := unstructured.NestedString(u.Object, "spec", "validationFailureAction")
	if def == "" {
		def = "Audit"
	}
	seen := map[string]bool{}
	var out []string
	rules, _, _ := unstructured.NestedSlice(u.Object, "spec", "rules")
	for _, r := range rules {
		m, ok := r.(map[string]any)
		if !ok {
			continue
		}
		if _, isValidate := m["validate"]; !isValidate {
			continue
		}
		a, _, _ := unstructured.NestedString(m, "validate", "failureAction")
		if a == "" {
			a = def
		}
		if !seen[a] {
			seen[a] = true
			out = append(out, a)
		}
	}
	return out
}
