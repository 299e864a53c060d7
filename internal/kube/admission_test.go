package kube

import (
	"context"
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"
	admissionv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/kubernetes/fake"
	k8stesting "k8s.io/client-go/testing"
)

// Admission carries what the audit needs of a native policy and its
// bindings: annotations (the rules it holds) and each binding's paramRef.
func TestAdmissionReadsAnnotationsAndParamRefs(t *testing.T) {
	t.Parallel()
	cs := fake.NewClientset(
		&admissionv1.ValidatingAdmissionPolicy{ObjectMeta: metav1.ObjectMeta{Name: "gpuwise-pods",
			Labels: map[string]string{"app.kubernetes.io/managed-by": "gpuwise"}, Annotations: map[string]string{"gpuwise.io/rules": "a,b"}}},
		&admissionv1.ValidatingAdmissionPolicyBinding{ObjectMeta: metav1.ObjectMeta{Name: "gpuwise-pods-deny"},
			Spec: admissionv1.ValidatingAdmissionPolicyBindingSpec{PolicyName: "gpuwise-pods",
				ParamRef:          &admissionv1.ParamRef{Name: "gpuwise-rules-deny", Namespace: "kube-system"},
				ValidationActions: []admissionv1.ValidationAction{admissionv1.Deny}}},
	)
	c := &Client{Interface: cs, Server: "https://fake"}
	adm, err := c.Admission(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	want := &Admission{Served: true,
		Policies: []AdmissionPolicy{{Name: "gpuwise-pods", Labels: map[string]string{"app.kubernetes.io/managed-by": "gpuwise"},
			Annotations: map[string]string{"gpuwise.io/rules": "a,b"}}},
		Bindings: []AdmissionBinding{{Name: "gpuwise-pods-deny", PolicyName: "gpuwise-pods", Actions: []string{"Deny"},
			ParamNamespace: "kube-system", ParamName: "gpuwise-rules-deny"}}}
	if diff := cmp.Diff(want, adm); diff != "" {
		t.Errorf("admission (-want +got):\n%s", diff)
	}
}

// ConfigMapKeys returns the sorted keys, not-found as absent, and a
// refused get classified with the verb and the object.
func TestConfigMapKeys(t *testing.T) {
	t.Parallel()
	cs := fake.NewClientset(&corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "gpuwise-rules-deny", Namespace: "kube-system"},
		Data: map[string]string{"b": "enabled", "a": "enabled"}})
	c := &Client{Interface: cs, Server: "https://fake"}
	keys, found, err := c.ConfigMapKeys(context.Background(), "kube-system", "gpuwise-rules-deny")
	if err != nil || !found || !cmp.Equal(keys, []string{"a", "b"}) {
		t.Errorf("existing: %v %v %v", keys, found, err)
	}
	keys, found, err = c.ConfigMapKeys(context.Background(), "kube-system", "gpuwise-rules-warn")
	if err != nil || found || keys != nil {
		t.Errorf("missing: %v %v %v", keys, found, err)
	}
	cs.PrependReactor("get", "configmaps", func(k8stesting.Action) (bool, runtime.Object, error) {
		return true, nil, apierrors.NewForbidden(schema.GroupResource{Resource: "configmaps"}, "gpuwise-rules-deny", errors.New("RBAC: denied"))
	})
	_, _, err = c.ConfigMapKeys(context.Background(), "kube-system", "gpuwise-rules-deny")
	ae, ok := err.(*APIError)
	if !ok || ae.Kind != Forbidden || ae.Verb != "get" || ae.Resource != "configmaps kube-system/gpuwise-rules-deny" {
		t.Errorf("forbidden: %#v", err)
	}
}
