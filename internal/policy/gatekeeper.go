package policy

import "strings"

// Gatekeeper: a ConstraintTemplate whose code is K8sNativeValidation
// (CEL), and one constraint of its kind.

type templateSpec struct {
	CRD     templateCRD      `json:"crd"`
	Targets []templateTarget `json:"targets"`
}

type templateCRD struct {
	Spec templateCRDSpec `json:"spec"`
}

type templateCRDSpec struct {
	Names templateNames `json:"names"`
}

type templateNames struct {
	Kind string `json:"kind"`
}

type templateTarget struct {
	Target     string         `json:"target"`
	Operations []string       `json:"operations"`
	Code       []templateCode `json:"code"`
}

type templateCode struct {
	Engine string    `json:"engine"`
	Source celSource `json:"source"`
}

type celSource struct {
	FailurePolicy string       `json:"failurePolicy"`
	Variables     []Variable   `json:"variables"`
	Validations   []Validation `json:"validations"`
}

type constraintSpec struct {
	EnforcementAction string          `json:"enforcementAction"`
	Match             constraintMatch `json:"match"`
}

type constraintMatch struct {
	Kinds              []constraintKinds `json:"kinds"`
	ExcludedNamespaces []string          `json:"excludedNamespaces"`
}

type constraintKinds struct {
	APIGroups []string `json:"apiGroups"`
	Kinds     []string `json:"kinds"`
}

// ConstraintKind is the Gatekeeper constraint kind of a rule:
// "GpuwiseGw003GpuContainerLimits".
func (r Rule) ConstraintKind() string {
	var b strings.Builder
	for _, part := range strings.Split(r.ObjectName(), "-") {
		b.WriteString(strings.ToUpper(part[:1]) + part[1:])
	}
	return b.String()
}

func enforcementAction(m Mode) string {
	if m == Deny {
		return "deny"
	}
	return "warn"
}

// gatekeeper is a rule's template and constraint for pods and, for a rule
// that applies to ResourceClaims, a template and constraint per claim
// shape (engineShapes), each from the CEL the native policies hold.
func (s Settings) gatekeeper(r Rule) Artefact {
	a := Artefact{Name: r.ObjectName()}
	for _, sh := range engineShapes(r) {
		prog := gen{s: s}.engineProgram(r, sh)
		kind := constraintKind(r, sh)
		group, objKind := sh.kind()
		// Gatekeeper names the template after the kind, in lower case.
		tmpl := Object{APIVersion: "templates.gatekeeper.sh/v1", Kind: "ConstraintTemplate", Metadata: meta(strings.ToLower(kind), r, sh),
			Spec: templateSpec{CRD: templateCRD{Spec: templateCRDSpec{Names: templateNames{Kind: kind}}},
				Targets: []templateTarget{{Target: "admission.k8s.gatekeeper.sh", Operations: []string{"CREATE"},
					Code: []templateCode{{Engine: "K8sNativeValidation", Source: celSource{FailurePolicy: "Fail", Variables: prog.Variables, Validations: prog.Validations}}}}}}}
		cons := Object{APIVersion: "constraints.gatekeeper.sh/v1beta1", Kind: kind, Metadata: meta(objectName(r, sh), r, sh),
			Spec: constraintSpec{EnforcementAction: enforcementAction(s.ModeOf(r.Name)),
				Match: constraintMatch{Kinds: []constraintKinds{{APIGroups: []string{group}, Kinds: []string{objKind}}}, ExcludedNamespaces: s.exemptSelector().MatchExpressions[0].Values}}}
		a.Objects = append(a.Objects, tmpl, cons)
	}
	return a
}

// constraintKind is the constraint kind of a rule's policy for a shape:
// the rule's kind for pods, "GpuwiseGw006WholeGpuInDevNamespaceResourceClaims"
// for claims.
func constraintKind(r Rule, sh shape) string {
	if sh.name() == ShapePods {
		return r.ConstraintKind()
	}
	_, kind := sh.kind()
	return r.ConstraintKind() + kind + "s"
}
