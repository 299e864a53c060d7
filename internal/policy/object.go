package policy

import (
	"slices"
	"strings"
)

// Object is one Kubernetes object as generated; its JSON is the upstream
// object's.
type Object struct {
	APIVersion string `json:"apiVersion"`
	Kind       string `json:"kind"`
	Metadata   Meta   `json:"metadata"`
	Spec       any    `json:"spec,omitempty"`
}

// Meta is the generated objects' metadata.
type Meta struct {
	Name        string            `json:"name"`
	Namespace   string            `json:"namespace,omitempty"`
	Labels      map[string]string `json:"labels,omitempty"`
	Annotations map[string]string `json:"annotations,omitempty"`
}

// Labels and annotations on every generated object; the audit reads
// LabelRule to learn which rule an installed policy enforces.
const (
	LabelManagedBy = "app.kubernetes.io/managed-by"
	ManagedBy      = "gpuwise"
	LabelRule      = "gpuwise.io/rule"
	LabelAuditRule = "gpuwise.io/audit-rule"
	// LabelShape is "pods", "workloads" or "cronjobs": which objects the
	// policy checks (the pod policy is the one that always applies).
	LabelShape        = "gpuwise.io/shape"
	annotationSummary = "gpuwise.io/summary"
)

// Shape names (LabelShape values).
const (
	ShapePods      = "pods"
	ShapeWorkloads = "workloads"
	ShapeCronJobs  = "cronjobs"
	// ShapeClaims and ShapeClaimTemplates: resource.k8s.io/v1
	// ResourceClaims and ResourceClaimTemplates (claims.go).
	ShapeClaims         = "resourceclaims"
	ShapeClaimTemplates = "resourceclaimtemplates"
)

func (sh shape) name() string {
	switch sh.suffix {
	case "-workloads":
		return ShapeWorkloads
	case "-cronjobs":
		return ShapeCronJobs
	case "-resourceclaims":
		return ShapeClaims
	case "-resourceclaimtemplates":
		return ShapeClaimTemplates
	}
	return ShapePods
}

// kind is the API group and kind of a shape of one kind: pods, claims or
// claim templates (Kyverno's and Gatekeeper's shapes, engineShapes).
func (sh shape) kind() (group, kind string) {
	if sh.requests != "" {
		return "resource.k8s.io", kindOf(sh)
	}
	return "", "Pod"
}

// version is the API version of a per-kind shape's resources.
func (sh shape) version() string { return strings.SplitN(sh.resources[0], "/", 3)[1] }

func meta(name string, r Rule, sh shape) Meta {
	m := Meta{Name: name, Labels: map[string]string{LabelManagedBy: ManagedBy, LabelRule: r.Name, LabelShape: sh.name()},
		Annotations: map[string]string{annotationSummary: r.Summary}}
	if r.Audit != "" {
		m.Labels[LabelAuditRule] = r.Audit
	}
	return m
}

// matchResources is admissionregistration/v1 MatchResources, the part used.
type matchResources struct {
	NamespaceSelector *labelSelector `json:"namespaceSelector,omitempty"`
	ResourceRules     []resourceRule `json:"resourceRules"`
}

type resourceRule struct {
	APIGroups   []string `json:"apiGroups"`
	APIVersions []string `json:"apiVersions"`
	Operations  []string `json:"operations"`
	Resources   []string `json:"resources"`
}

type labelSelector struct {
	MatchExpressions []selectorRequirement `json:"matchExpressions"`
}

type selectorRequirement struct {
	Key      string   `json:"key"`
	Operator string   `json:"operator"`
	Values   []string `json:"values"`
}

// namespaceLabel is the label the API server sets on every namespace to
// its name.
const namespaceLabel = "kubernetes.io/metadata.name"

func (s Settings) exemptSelector() *labelSelector {
	ns := slices.Clone(s.ExemptNamespaces)
	slices.Sort(ns)
	return &labelSelector{MatchExpressions: []selectorRequirement{{Key: namespaceLabel, Operator: "NotIn", Values: slices.Compact(ns)}}}
}

// rules groups a shape's resources by API group and version.
func (sh shape) rules() []resourceRule {
	var out []resourceRule
	ops := []string{"CREATE"}
	if sh.update {
		ops = []string{"CREATE", "UPDATE"}
	}
	for _, r := range sh.resources {
		parts := strings.SplitN(r, "/", 3)
		if n := len(out); n > 0 && out[n-1].APIGroups[0] == parts[0] && out[n-1].APIVersions[0] == parts[1] {
			out[n-1].Resources = append(out[n-1].Resources, parts[2])
			continue
		}
		out = append(out, resourceRule{APIGroups: []string{parts[0]}, APIVersions: []string{parts[1]}, Operations: ops, Resources: []string{parts[2]}})
	}
	return out
}

// specChanged skips updates that leave the spec alone (labels, status,
// finalizers), so that deny mode never blocks a controller's bookkeeping on
// an object admitted before the rule.
var specChanged = Variable{Name: "spec-changed", Expression: "request.operation != 'UPDATE' || object.spec != oldObject.spec"}

// shapes are the object shapes a rule is generated for.
func (s Settings) shapes(r Rule, engine Engine) []shape {
	if engine != Native || !s.Workloads {
		return []shape{podShape}
	}
	// With the mutating policy the pods get the toleration, so a template
	// without it is fine.
	if r == RuleToleration && s.Mutate {
		return []shape{podShape}
	}
	return []shape{podShape, workloadShape, cronJobShape}
}

func objectName(r Rule, sh shape) string { return r.ObjectName() + sh.suffix }

// kindPlural is how kubectl names a kind in the rollout commands.
func kindPlural(kind, group string) string {
	return strings.ToLower(kind) + "s." + group
}

// Artefact is one rule's objects (one file), or a shared one.
type Artefact struct {
	// Name is the file's base name without extension.
	Name    string
	Objects []Object
}

func fmtActions(actions []string) string {
	return `["` + strings.Join(actions, `","`) + `"]`
}
