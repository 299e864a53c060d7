package kube

import (
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"
	admissionv1 "k8s.io/api/admissionregistration/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes/fake"
)

// Admission carries what the audit needs of a native policy and its
// bindings: annotations (the rules it holds), each binding's paramRef and
// labels (the rules it checks).
func TestAdmissionReadsAnnotationsParamRefsAndLabels(t *testing.T) {
	t.Parallel()
	cs := fake.NewClientset(
		&admissionv1.ValidatingAdmissionPolicy{ObjectMeta: metav1.ObjectMeta{Name: "gpuwise-pods",
			Labels: map[string]string{"app.kubernetes.io/managed-by": "gpuwise"}, Annotations: map[string]string{"gpuwise.io/rules": "a,b"}}},
		&admissionv1.ValidatingAdmissionPolicyBinding{ObjectMeta: metav1.ObjectMeta{Name: "gpuwise-pods-deny",
			Labels: map[string]string{"rules.gpuwise.io/a": "true"}},
			Spec: admissionv1.ValidatingAdmissionPolicyBindingSpec{PolicyName: "gpuwise-pods",
				ParamRef:          &admissionv1.ParamRef{Name: "gpuwise-pods-deny"},
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
			ParamName: "gpuwise-pods-deny", Labels: map[string]string{"rules.gpuwise.io/a": "true"}}}}
	if diff := cmp.Diff(want, adm); diff != "" {
		t.Errorf("admission (-want +got):\n%s", diff)
	}
}
