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

func (s Settings) kyverno(r Rule, legacy bool) Artefact {
	prog := gen{s: s}.program(r, podShape)
	name := r.ObjectName()
	if legacy {
		return Artefact{Name: name, Objects: []Object{s.clusterPolicy(r, prog)}}
	}
	spec := vpolSpec{ValidationActions: vpolActions(s.ModeOf(r.Name)), FailurePolicy: "Fail",
		MatchConstraints: matchResources{NamespaceSelector: s.exemptSelector(), ResourceRules: podShape.rules()},
		Variables:        prog.Variables, Validations: prog.Validations}
	// Kyverno rewrites pod policies for Deployments, Jobs, CronJobs… by
	// text replacement of object.spec and object.metadata. The agent
	// exception reads the pod's ownerReferences, which a template lacks,
	// so that rule stays on pods.
	if r == RuleNonGPUToleration {
		spec.Autogen = &vpolAutogen{PodControllers: vpolControllers{Controllers: []string{}}}
	}
	return Artefact{Name: name, Objects: []Object{{APIVersion: "policies.kyverno.io/v1", Kind: "ValidatingPolicy", Metadata: meta(name, r, podShape), Spec: spec}}}
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
// or Enforce. Kyverno's autogen copies it to the pod controllers.
func (s Settings) clusterPolicy(r Rule, prog program) Object {
	action, warn := "Audit", true
	if s.ModeOf(r.Name) == Deny {
		action, warn = "Enforce", false
	}
	rule := kyvernoRule{Name: r.Name,
		Match:    kyvernoMatch{Any: []kyvernoFilter{{Resources: kyvernoResources{Kinds: []string{"Pod"}, Operations: []string{"CREATE"}}}}},
		Exclude:  &kyvernoMatch{Any: []kyvernoFilter{{Resources: kyvernoResources{Namespaces: s.exemptSelector().MatchExpressions[0].Values}}}},
		Validate: kyvernoValidate{FailureAction: action, CEL: kyvernoCEL{Variables: prog.Variables, Expressions: prog.Validations}}}
	m := meta(r.ObjectName(), r, podShape)
	if r == RuleNonGPUToleration {
		m.Annotations["pod-policies.kyverno.io/autogen-controllers"] = "none"
	}
	return Object{APIVersion: "kyverno.io/v1", Kind: "ClusterPolicy", Metadata: m,
		Spec: clusterPolicySpec{Admission: true, Background: true, EmitWarning: warn, Rules: []kyvernoRule{rule}}}
}
