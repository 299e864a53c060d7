package kube

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	admissionv1 "k8s.io/api/admissionregistration/v1"
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes/fake"
	k8stesting "k8s.io/client-go/testing"

	"github.com/gpuwise/gpuwise/internal/cluster"
)

func unstr(apiVersion, kind, ns, name string, spec map[string]any) *unstructured.Unstructured {
	u := &unstructured.Unstructured{Object: map[string]any{"spec": spec}}
	u.SetAPIVersion(apiVersion)
	u.SetKind(kind)
	u.SetNamespace(ns)
	u.SetName(name)
	return u
}

// Every control kind is read with the fields detection needs: an HPA, a
// ScaledObject (kind defaulted, paused) and one with its replica counts, a
// VPA, a NodePool, a gpuwise ValidatingAdmissionPolicy and its binding, a
// Kyverno ValidatingPolicy and ClusterPolicy.
func TestSnapshotReadsControls(t *testing.T) {
	t.Parallel()
	c := controlsCluster(t)
	s, err := c.Snapshot(context.Background(), t0, time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	want := wantControls()
	if diff := cmp.Diff(want, s.Controls); diff != "" {
		t.Errorf("controls (-want +got):\n%s", diff)
	}
	if len(s.Partial) != 0 {
		t.Errorf("partial %q, want none", s.Partial)
	}
}

// controlsCluster is a GPU node and one object of every control kind.
func controlsCluster(t *testing.T) *Client {
	t.Helper()
	two := int32(2)
	h := &autoscalingv2.HorizontalPodAutoscaler{ObjectMeta: metav1.ObjectMeta{Namespace: "inference", Name: "chat"},
		Spec: autoscalingv2.HorizontalPodAutoscalerSpec{ScaleTargetRef: autoscalingv2.CrossVersionObjectReference{Kind: "Deployment", Name: "chat", APIVersion: "apps/v1"},
			MinReplicas: &two, MaxReplicas: 6, Metrics: []autoscalingv2.MetricSpec{{Type: autoscalingv2.ExternalMetricSourceType}}}}
	vap := &admissionv1.ValidatingAdmissionPolicy{ObjectMeta: metav1.ObjectMeta{Name: "gpuwise-pods", Labels: map[string]string{"app.kubernetes.io/managed-by": "gpuwise"}}}
	vapb := &admissionv1.ValidatingAdmissionPolicyBinding{ObjectMeta: metav1.ObjectMeta{Name: "gpuwise-pods-warn"},
		Spec: admissionv1.ValidatingAdmissionPolicyBindingSpec{PolicyName: "gpuwise-pods", ValidationActions: []admissionv1.ValidationAction{admissionv1.Warn, admissionv1.Audit}}}
	paused := unstr("keda.sh/v1alpha1", "ScaledObject", "inference", "ocr", map[string]any{
		"scaleTargetRef": map[string]any{"name": "ocr"}, "triggers": []any{map[string]any{"type": "prometheus"}}})
	paused.SetAnnotations(map[string]string{"autoscaling.keda.sh/paused": "true"})
	so := unstr("keda.sh/v1alpha1", "ScaledObject", "inference", "asr", map[string]any{
		"scaleTargetRef": map[string]any{"name": "asr", "kind": "StatefulSet"}, "minReplicaCount": int64(1), "maxReplicaCount": int64(8),
		"triggers": []any{map[string]any{"type": "prometheus"}, map[string]any{"type": "cpu"}}})
	vpa := unstr("autoscaling.k8s.io/v1", "VerticalPodAutoscaler", "ml", "train", map[string]any{
		"targetRef": map[string]any{"apiVersion": "batch/v1", "kind": "Job", "name": "train"}, "updatePolicy": map[string]any{"updateMode": "Off"}})
	np := unstr("karpenter.sh/v1", "NodePool", "", "gpu-h100", map[string]any{
		"template": map[string]any{"metadata": map[string]any{"labels": map[string]any{"gpuwise.io/gpu-pool": "gpu-h100"}},
			"spec": map[string]any{"taints": []any{map[string]any{"key": "nvidia.com/gpu", "value": "true", "effect": "NoSchedule"}},
				"requirements": []any{
					map[string]any{"key": "karpenter.sh/capacity-type", "operator": "In", "values": []any{"spot", "on-demand"}},
					map[string]any{"key": "node.kubernetes.io/instance-type", "operator": "In", "values": []any{"p5.48xlarge"}},
					map[string]any{"key": "karpenter.k8s.aws/instance-gpu-count", "operator": "Gt", "values": []any{"0"}}}}},
		"disruption": map[string]any{"consolidationPolicy": "WhenEmpty", "consolidateAfter": "10m"}})
	kvp := unstr("policies.kyverno.io/v1", "ValidatingPolicy", "", "gpuwise-gw003", map[string]any{"validationActions": []any{"Audit"}})
	kvp.SetLabels(map[string]string{"app.kubernetes.io/managed-by": "gpuwise"})
	kcp := unstr("kyverno.io/v1", "ClusterPolicy", "", "team-limits", map[string]any{"validationFailureAction": "Enforce",
		"rules": []any{map[string]any{"name": "a", "validate": map[string]any{"failureAction": "Audit"}}, map[string]any{"name": "b", "validate": map[string]any{}},
			map[string]any{"name": "c", "mutate": map[string]any{}}}})
	return &Client{Interface: fake.NewClientset(node("gpu-a", nil, "nvidia.com/gpu", "1"), h, vap, vapb),
		Dynamic: kueueDynamic(t, paused, so, vpa, np, kvp, kcp), Server: "https://fake", Source: "test"}
}

// wantControls are controlsCluster's controls.
func wantControls() *cluster.Controls {
	return &cluster.Controls{
		Read: []string{cluster.ResourceKyvernoCluster, cluster.ResourceHPA, cluster.ResourceNodePool, cluster.ResourceScaledObject,
			cluster.ResourceVAP, cluster.ResourceVAPBinding, cluster.ResourceKyvernoVPol, cluster.ResourceVPA},
		Autoscalers: []cluster.Autoscaler{
			{Kind: cluster.KindHPA, Namespace: "inference", Name: "chat", TargetKind: "Deployment", TargetName: "chat", MinReplicas: 2, MaxReplicas: 6, Metrics: []string{"External"}},
			{Kind: cluster.KindScaledObject, Namespace: "inference", Name: "asr", TargetKind: "StatefulSet", TargetName: "asr", MinReplicas: 1, MaxReplicas: 8, Metrics: []string{"prometheus", "cpu"}},
			{Kind: cluster.KindScaledObject, Namespace: "inference", Name: "ocr", TargetKind: "Deployment", TargetName: "ocr", MaxReplicas: 100, Mode: "paused", Metrics: []string{"prometheus"}},
			{Kind: cluster.KindVPA, Namespace: "ml", Name: "train", TargetKind: "Job", TargetName: "train", Mode: "Off"},
		},
		NodePools: []cluster.NodePool{{Name: "gpu-h100", InstanceTypes: []string{"p5.48xlarge"}, CapacityTypes: []string{"spot", "on-demand"},
			Labels: map[string]string{"gpuwise.io/gpu-pool": "gpu-h100"}, Taints: []cluster.Taint{{Key: "nvidia.com/gpu", Value: "true", Effect: "NoSchedule"}},
			ConsolidationPolicy: "WhenEmpty", ConsolidateAfter: "10m"}},
		Policies: []cluster.AdmissionPolicy{
			{Kind: cluster.KindKyvernoCluster, Name: "team-limits", Actions: []string{"Audit", "Enforce"}},
			{Kind: cluster.KindVAP, Name: "gpuwise-pods", Labels: map[string]string{"app.kubernetes.io/managed-by": "gpuwise"}},
			{Kind: cluster.KindKyvernoValidating, Name: "gpuwise-gw003", Labels: map[string]string{"app.kubernetes.io/managed-by": "gpuwise"}, Actions: []string{"Audit"}},
		},
		Bindings: []cluster.AdmissionBinding{{Name: "gpuwise-pods-warn", Policy: "gpuwise-pods", Actions: []string{"Warn", "Audit"}}},
	}
}

// A control CRD that is not served is left out of Read, silently; a
// forbidden list is named in the partial list and the rest is still read;
// without a dynamic client only the built-in kinds are read; any other
// failure is an error.
func TestSnapshotControlsNotServedOrForbidden(t *testing.T) {
	t.Parallel()
	c := &Client{Interface: fake.NewClientset(node("gpu-a", nil, "nvidia.com/gpu", "1")), Server: "https://fake"}
	s, err := c.Snapshot(context.Background(), t0, time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{cluster.ResourceHPA, cluster.ResourceVAP, cluster.ResourceVAPBinding}; s.Controls == nil || !cmp.Equal(s.Controls.Read, want) {
		t.Errorf("no dynamic client: controls %+v, want %v read", s.Controls, want)
	}
	dc := kueueDynamic(t)
	dc.PrependReactor("list", "scaledobjects", func(k8stesting.Action) (bool, runtime.Object, error) {
		return true, nil, apierrors.NewNotFound(kedaScaledObjects.GroupResource(), "")
	})
	dc.PrependReactor("list", "nodepools", func(k8stesting.Action) (bool, runtime.Object, error) {
		return true, nil, apierrors.NewForbidden(karpenterPools.GroupResource(), "", nil)
	})
	c.Dynamic = dc
	s, err = c.Snapshot(context.Background(), t0, time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	if s.Controls.Reads(cluster.ResourceScaledObject) || s.Controls.Reads(cluster.ResourceNodePool) || !s.Controls.Reads(cluster.ResourceVPA) || !s.Controls.Reads(cluster.ResourceHPA) {
		t.Errorf("read %v: want neither ScaledObjects (not served) nor NodePools (forbidden), the rest", s.Controls.Read)
	}
	if !s.Controls.Knows(cluster.ResourceScaledObject) || s.Controls.Knows(cluster.ResourceNodePool) {
		t.Errorf("not served %v: want ScaledObjects known absent (not served), NodePools unknown (forbidden)", s.Controls.NotServed)
	}
	if len(s.Partial) != 1 || !strings.Contains(s.Partial[0], "listing nodepools.karpenter.sh is forbidden") {
		t.Errorf("partial %q, want the forbidden NodePools named", s.Partial)
	}
	cs := fake.NewClientset()
	cs.PrependReactor("list", "horizontalpodautoscalers", func(k8stesting.Action) (bool, runtime.Object, error) {
		return true, nil, apierrors.NewInternalError(context.DeadlineExceeded)
	})
	c = &Client{Interface: cs, Server: "https://fake"}
	if _, err := c.Snapshot(context.Background(), t0, time.Hour); err == nil || !strings.Contains(err.Error(), "horizontalpodautoscalers.autoscaling") {
		t.Errorf("a 500 on HPAs: %v, want an error naming them", err)
	}
}
