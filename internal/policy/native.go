package policy

// The API server's own admission policies, admissionregistration.k8s.io/v1.
const admissionV1 = "admissionregistration.k8s.io/v1"

type vapSpec struct {
	FailurePolicy    string         `json:"failurePolicy"`
	MatchConstraints matchResources `json:"matchConstraints"`
	MatchConditions  []Variable     `json:"matchConditions,omitempty"`
	Variables        []Variable     `json:"variables"`
	Validations      []Validation   `json:"validations"`
}

type vapBindingSpec struct {
	PolicyName        string   `json:"policyName"`
	ValidationActions []string `json:"validationActions"`
}

// bindingActions are a binding's validationActions for a mode: warn
// surfaces failures as API warnings and audit annotations.
func bindingActions(m Mode) []string {
	if m == Deny {
		return []string{"Deny"}
	}
	return []string{"Warn", "Audit"}
}

// native is a rule's ValidatingAdmissionPolicy and binding per shape. The
// exempt namespaces are excluded in the policy itself, so no binding can
// bring them back.
func (s Settings) native(r Rule) Artefact {
	a := Artefact{Name: r.ObjectName()}
	g := gen{s}
	for _, sh := range s.shapes(r, Native) {
		prog := g.program(r, sh)
		name := objectName(r, sh)
		spec := vapSpec{FailurePolicy: "Fail", MatchConstraints: matchResources{NamespaceSelector: s.exemptSelector(), ResourceRules: sh.rules()},
			Variables: prog.Variables, Validations: prog.Validations}
		if sh.update {
			spec.MatchConditions = []Variable{specChanged}
		}
		a.Objects = append(a.Objects,
			Object{APIVersion: admissionV1, Kind: "ValidatingAdmissionPolicy", Metadata: meta(name, r, sh), Spec: spec},
			Object{APIVersion: admissionV1, Kind: "ValidatingAdmissionPolicyBinding", Metadata: meta(name, r, sh),
				Spec: vapBindingSpec{PolicyName: name, ValidationActions: bindingActions(s.ModeOf(r.Name))}})
	}
	return a
}

type mapSpec struct {
	FailurePolicy      string         `json:"failurePolicy"`
	MatchConstraints   matchResources `json:"matchConstraints"`
	ReinvocationPolicy string         `json:"reinvocationPolicy"`
	MatchConditions    []Variable     `json:"matchConditions"`
	Mutations          []mutation     `json:"mutations"`
}

type mutation struct {
	PatchType string    `json:"patchType"`
	JSONPatch jsonPatch `json:"jsonPatch"`
}

type jsonPatch struct {
	Expression string `json:"expression"`
}

type mapBindingSpec struct {
	PolicyName string `json:"policyName"`
}

// MutationName is the mutating policy's (and its binding's) name.
const MutationName = "gpuwise-gw004-add-gpu-toleration"

// mutation is the MutatingAdmissionPolicy that adds the GPU toleration to
// GPU pods that lack it, and nothing else. It fails open (Ignore): a pod
// it could not patch still meets the validating GW004 rule. Which pods need
// it is a matchCondition, not a guard in the patch: the API server then
// skips every other pod before its patch machinery (an empty JSON patch
// still round-trips the pod through JSON), the bulk of the policy's cost
// per create (docs/performance.md).
func (s Settings) mutation() Artefact {
	g := gen{s}
	t := s.GPUTaint
	tol := "Object.spec.tolerations{key: " + quote(t.Key) + ", operator: 'Exists', effect: " + quote(t.Effect) + "}"
	expr := "has(object.spec.tolerations) ? " +
		"[JSONPatch{op: 'add', path: '/spec/tolerations/-', value: " + tol + "}] : " +
		"[JSONPatch{op: 'add', path: '/spec/tolerations', value: [" + tol + "]}]"
	needs := Variable{"gpu-pod-without-gpu-toleration", "!object.spec.?tolerations.orValue([]).exists(t, " + g.tolerates("t") + ") && " +
		"(object.spec.containers + object.spec.?initContainers.orValue([])).exists(c, " + limitsOf("c") + ".exists(r, " +
		g.isGPUResource("r") + " && " + positive("c", "r") + "))"}
	m := meta(MutationName, RuleToleration, podShape)
	m.Annotations[annotationSummary] = "Adds the GPU toleration to GPU pods that lack it; mutates nothing else."
	spec := mapSpec{FailurePolicy: "Ignore", ReinvocationPolicy: "IfNeeded",
		MatchConstraints: matchResources{NamespaceSelector: s.exemptSelector(), ResourceRules: podShape.rules()},
		MatchConditions:  []Variable{needs}, Mutations: []mutation{{PatchType: "JSONPatch", JSONPatch: jsonPatch{expr}}}}
	return Artefact{Name: MutationName, Objects: []Object{
		{APIVersion: admissionV1, Kind: "MutatingAdmissionPolicy", Metadata: m, Spec: spec},
		{APIVersion: admissionV1, Kind: "MutatingAdmissionPolicyBinding", Metadata: m, Spec: mapBindingSpec{PolicyName: MutationName}},
	}}
}
