package policy

// Kyverno: policies.kyverno.io/v1 ValidatingPolicy (CEL, VAP semantics),
// or the deprecated kyverno.io/v1 ClusterPolicy with a CEL validate rule.

type vpolSpec struct {
	ValidationActions []string       `json:"validationActions"`
	FailurePolicy     string         `json:"failurePolicy"`
	MatchConstraints  matchResources `json:"matchConstraints"`
	Autogen           *vpolAutogen   `json:"autogen,omitempty"`
	Variables         []Variable     `json:"variables"`
	Validations       []Validation   `json:"validations"`
}

type vpolAutogen struct {
	PodControllers vpolControllers `json:"podControllers"`
}

type vpolControllers struct {
	Controllers []string `json:"controllers"`
}

// vpolActions are a ValidatingPolicy's validationActions: Audit writes
// policy reports, Warn the API warnings.
func vpolActions(m Mode) []string {
	if m == Deny {
		return []string{"Deny"}
	}
	return []string{"Audit", "Warn"}
}

// kyverno is a rule's Kyverno policies: one for pods and, for a rule that
// applies to ResourceClaims, one per claim shape (engineShapes), each from
// the CEL the native policies hold.
func (s Settings) kyverno(r Rule, legacy bool) Artefact {
	a := Artefact{Name: r.ObjectName()}
	for _, sh := range engineShapes(r) {
		prog := gen{s: s}.engineProgram(r, sh)
		if legacy {
			a.Objects = append(a.Objects, s.clusterPolicy(r, sh, prog))
		} else {
			a.Objects = append(a.Objects, s.validatingPolicy(r, sh, prog))
		}
	}
	return a
}

func (s Settings) validatingPolicy(r Rule, sh shape, prog program) Object {
	spec := vpolSpec{ValidationActions: vpolActions(s.ModeOf(r.Name)), FailurePolicy: "Fail",
		MatchConstraints: matchResources{NamespaceSelector: s.exemptSelector(), ResourceRules: sh.rules()},
		Variables:        prog.Variables, Validations: prog.Validations}
	if !autogen(r, sh) {
		spec.Autogen = &vpolAutogen{PodControllers: vpolControllers{Controllers: []string{}}}
	}
	return Object{APIVersion: "policies.kyverno.io/v1", Kind: "ValidatingPolicy", Metadata: meta(objectName(r, sh), r, sh), Spec: spec}
}

// autogen reports whether Kyverno may copy the policy to the pod
// controllers (Deployments, Jobs, CronJobs…), which it does by text
// replacement of object.spec and object.metadata. The agent exception
// reads the pod's ownerReferences, which a template lacks, so that rule
// stays on pods; a claim policy is for no pod controller.
func autogen(r Rule, sh shape) bool {
	return sh.name() == ShapePods && r != RuleNonGPUToleration
}

type clusterPolicySpec struct {
	Admission   bool          `json:"admission"`
	Background  bool          `json:"background"`
	EmitWarning bool          `json:"emitWarning"`
	Rules       []kyvernoRule `json:"rules"`
}

type kyvernoRule struct {
	Name     string          `json:"name"`
	Match    kyvernoMatch    `json:"match"`
	Exclude  *kyvernoMatch   `json:"exclude,omitempty"`
	Validate kyvernoValidate `json:"validate"`
}

type kyvernoMatch struct {
	Any []kyvernoFilter `json:"any"`
}

type kyvernoFilter struct {
	Resources kyvernoResources `json:"resources"`
}

type kyvernoResources struct {
	Kinds      []string `json:"kinds,omitempty"`
	Namespaces []string `json:"namespaces,omitempty"`
	Operations []string `json:"operations,omitempty"`
}

type kyvernoValidate struct {
	FailureAction string     `json:"failureAction"`
	CEL           kyvernoCEL `json:"cel"`
}

type kyvernoCEL struct {
	Variables   []Variable   `json:"variables"`
	Expressions []Validation `json:"expressions"`
}

// clusterPolicy is the legacy form: one rule, Audit (with API warnings)
// or Enforce. Kyverno's autogen copies a pod policy to the pod
// controllers.
func (s Settings) clusterPolicy(r Rule, sh shape, prog program) Object {
	action, warn := "Audit", true
	if s.ModeOf(r.Name) == Deny {
		action, warn = "Enforce", false
	}
	group, kind := sh.kind()
	if group != "" {
		kind = group + "/" + sh.version() + "/" + kind
	}
	rule := kyvernoRule{Name: r.Name + sh.suffix,
		Match:    kyvernoMatch{Any: []kyvernoFilter{{Resources: kyvernoResources{Kinds: []string{kind}, Operations: []string{"CREATE"}}}}},
		Exclude:  &kyvernoMatch{Any: []kyvernoFilter{{Resources: kyvernoResources{Namespaces: s.exemptSelector().MatchExpressions[0].Values}}}},
		Validate: kyvernoValidate{FailureAction: action, CEL: kyvernoCEL{Variables: prog.Variables, Expressions: prog.Validations}}}
	m := meta(objectName(r, sh), r, sh)
	if !autogen(r, sh) {
		m.Annotations["pod-policies.kyverno.io/autogen-controllers"] = "none"
	}
	return Object{APIVersion: "kyverno.io/v1", Kind: "ClusterPolicy", Metadata: m,
		Spec: clusterPolicySpec{Admission: true, Background: true, EmitWarning: warn, Rules: []kyvernoRule{rule}}}
}
