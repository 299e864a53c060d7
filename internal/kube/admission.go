package kube

import (
	"context"
	"slices"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// AdmissionPolicy is a ValidatingAdmissionPolicy: its name and labels
// (gpuwise's say which rule it enforces).
type AdmissionPolicy struct {
	Name        string
	Labels      map[string]string
	Annotations map[string]string
}

// AdmissionBinding is a ValidatingAdmissionPolicyBinding.
type AdmissionBinding struct {
	Name       string
	PolicyName string
	// Actions are its validationActions: Deny, Warn, Audit.
	Actions []string
	// ParamNamespace and ParamName are its paramRef's (by name), "" without
	// one.
	ParamNamespace, ParamName string
	// Labels are its labels (a gpuwise binding's rules).
	Labels map[string]string
}

// Admission is the cluster's validating admission policies.
type Admission struct {
	// Served is false when the server does not serve
	// admissionregistration.k8s.io/v1 ValidatingAdmissionPolicy (before
	// Kubernetes 1.30): nothing could be enforced that way.
	Served   bool
	Policies []AdmissionPolicy
	Bindings []AdmissionBinding
}

// Admission lists every ValidatingAdmissionPolicy and binding, paginated;
// the only reads beyond the inventory's (deploy/rbac grants them).
func (c *Client) Admission(ctx context.Context) (*Admission, error) {
	out := &Admission{Served: true}
	api := c.Interface.AdmissionregistrationV1()
	err := listAll(ctx, "validatingadmissionpolicies", c.Progress, func(ctx context.Context, lo metav1.ListOptions) (page, error) {
		l, err := api.ValidatingAdmissionPolicies().List(ctx, lo)
		if err != nil {
			return page{}, err
		}
		for _, p := range l.Items {
			out.Policies = append(out.Policies, AdmissionPolicy{Name: p.Name, Labels: p.Labels, Annotations: p.Annotations})
		}
		return pageOf(l.ListMeta, len(l.Items)), nil
	})
	if apierrors.IsNotFound(err) {
		return &Admission{}, nil
	}
	if err != nil {
		return nil, classify(err, "list", "validatingadmissionpolicies.admissionregistration.k8s.io", c.Server)
	}
	err = listAll(ctx, "validatingadmissionpolicybindings", c.Progress, func(ctx context.Context, lo metav1.ListOptions) (page, error) {
		l, err := api.ValidatingAdmissionPolicyBindings().List(ctx, lo)
		if err != nil {
			return page{}, err
		}
		for _, b := range l.Items {
			ab := AdmissionBinding{Name: b.Name, PolicyName: b.Spec.PolicyName, Labels: b.Labels}
			if r := b.Spec.ParamRef; r != nil {
				ab.ParamNamespace, ab.ParamName = r.Namespace, r.Name
			}
			for _, a := range b.Spec.ValidationActions {
				ab.Actions = append(ab.Actions, string(a))
			}
			out.Bindings = append(out.Bindings, ab)
		}
		return pageOf(l.ListMeta, len(l.Items)), nil
	})
	if err != nil {
		return nil, classify(err, "list", "validatingadmissionpolicybindings.admissionregistration.k8s.io", c.Server)
	}
	return out, nil
}

// ServesMutatingAdmissionPolicy asks discovery whether the server serves
// admissionregistration.k8s.io/v1 MutatingAdmissionPolicy (GA in 1.36).
// Discovery needs no RBAC beyond what every authenticated user has.
func (c *Client) ServesMutatingAdmissionPolicy() (bool, error) {
	l, err := c.Interface.Discovery().ServerResourcesForGroupVersion("admissionregistration.k8s.io/v1")
	if apierrors.IsNotFound(err) {
		return false, nil
	}
	if err != nil {
		return false, classify(err, "discover", "admissionregistration.k8s.io/v1", c.Server)
	}
	return slices.ContainsFunc(l.APIResources, func(r metav1.APIResource) bool { return r.Name == "mutatingadmissionpolicies" }), nil
}
