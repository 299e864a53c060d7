package generate

import (
	"strings"
	"testing"
	"time"

	"github.com/gpuwise/gpuwise/internal/policy"
	"github.com/gpuwise/gpuwise/internal/quota"
)

func samplePolicies(o policy.Options, m policy.Mode) ([]File, error) {
	s := policy.Defaults()
	s.Mode = m
	out, err := policy.Generate(s, o)
	if err != nil {
		return nil, err
	}
	return Policies(out, o.Engine)
}

func sampleQuota() *quota.Result {
	rate, capUSD := 4.0, 4*10*730.0
	return &quota.Result{Window: 7 * 24 * time.Hour, Percentile: 0.95, Headroom: 0.2, Namespaces: []quota.Namespace{
		{Namespace: "ml", Resources: []quota.Resource{
			{Name: "nvidia.com/gpu", Percentile: 8, Peak: 12, Hard: 10, UnitHours: 1100, USDPerUnitHour: &rate, MonthlyCapUSD: &capUSD},
			{Name: "nvidia.com/mig-1g.10gb", Percentile: 2, Peak: 3, Hard: 3, UnitHours: 250}}},
	}}
}

// A generated object the upstream type does not know is refused, naming
// the object: a typo in the policy builder never ships.
func TestValidateObjectRefusesUnknownFields(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ kind, doc, want string }{
		{"ValidatingAdmissionPolicy", "apiVersion: admissionregistration.k8s.io/v1\nkind: ValidatingAdmissionPolicy\nmetadata: {name: x}\nspec: {validation: []}\n", `unknown field "validation"`},
		{"ValidatingAdmissionPolicyBinding", "apiVersion: admissionregistration.k8s.io/v1\nkind: ValidatingAdmissionPolicyBinding\nmetadata: {name: x}\nspec: {policyName: x, validationActions: Deny}\n", "cannot unmarshal"},
		{"ConstraintTemplate", "apiVersion: templates.gatekeeper.sh/v1\nkind: ConstraintTemplate\nspec: {}\n", "metadata.name are required"},
	} {
		err := validateObject(tc.kind, []byte(tc.doc))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want an error with %q", tc.kind, err, tc.want)
		}
	}
}

// The policies' YAML keeps the builder's field order (variables before the
// validations that use them) and quotes CEL with double quotes.
func TestPolicyYAMLKeepsFieldOrder(t *testing.T) {
	t.Parallel()
	files, err := samplePolicies(policy.Options{Engine: policy.Native}, policy.Warn)
	if err != nil {
		t.Fatal(err)
	}
	var text string
	for _, f := range files {
		if f.Path == "policy/native/gpuwise-pods.yaml" {
			text = string(f.Data)
		}
	}
	v, val := strings.Index(text, "  variables:"), strings.Index(text, "  validations:")
	if v < 0 || val < v || strings.Contains(text, "'''") {
		t.Errorf("variables at %d, validations at %d in:\n%s", v, val, text)
	}
}

func TestQuotaOfAnInvalidNamespaceIsRefused(t *testing.T) {
	t.Parallel()
	_, err := Quotas(&quota.Result{Namespaces: []quota.Namespace{{Namespace: "Bad_NS"}}})
	if err == nil || !strings.Contains(err.Error(), "Bad_NS") {
		t.Errorf("err %v, want one naming Bad_NS", err)
	}
}
