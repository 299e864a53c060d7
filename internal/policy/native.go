package policy

import (
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strings"
)

// The API server's own admission policies, admissionregistration.k8s.io/v1.
const admissionV1 = "admissionregistration.k8s.io/v1"

// The native engine writes one ValidatingAdmissionPolicy per object shape
// (gpuwise-pods, -workloads, -cronjobs) holding every rule as its own
// validation, and binds it twice: gpuwise-<shape>-warn (validationActions
// Warn, Audit) and gpuwise-<shape>-deny (Deny). Each binding is its own
// parameter object (paramKind ValidatingAdmissionPolicyBinding, paramRef
// its own name): the rules in its mode are labels on it (RuleLabel), and
// each validation checks only when its rule's label is there. A pod
// create thus pays the API server's fixed work per policy evaluation
// (activation, matching, the object's conversion for CEL) once per
// binding, not once per rule, and the containers and GPU limits are
// derived once per evaluation; flipping a rule's mode labels the other
// mode's bindings first, then unlabels these (rollout.sh). Bindings as
// params keep the API server's param informer on the few bindings, not on
// every ConfigMap in the cluster, and the audit reads the modes from the
// bindings it already lists.

// RuleLabelPrefix prefixes a rule's label on the bindings that check it:
// rules.gpuwise.io/GW003. Only the key counts; gpuwise writes "true".
const RuleLabelPrefix = "rules.gpuwise.io/"

// RuleLabel is the label that puts a rule on a binding.
func RuleLabel(rule string) string { return RuleLabelPrefix + rule }

// ruleOn is a rule label's value (only the key counts).
const ruleOn = "true"

// LabelMode is a native binding's mode, warn or deny (rollout.sh selects
// a mode's bindings by it).
const LabelMode = "gpuwise.io/mode"

// Modes lists the rollout modes, warn first.
var Modes = []Mode{Warn, Deny}

// annotationRules lists, comma-separated, the rules a native policy holds;
// the audit reads it.
const annotationRules = "gpuwise.io/rules"

type vapSpec struct {
	FailurePolicy    string         `json:"failurePolicy"`
	ParamKind        *paramKind     `json:"paramKind,omitempty"`
	MatchConstraints matchResources `json:"matchConstraints"`
	MatchConditions  []Variable     `json:"matchConditions,omitempty"`
	Variables        []Variable     `json:"variables"`
	Validations      []Validation   `json:"validations"`
}

type paramKind struct {
	APIVersion string `json:"apiVersion"`
	Kind       string `json:"kind"`
}

type vapBindingSpec struct {
	PolicyName        string    `json:"policyName"`
	ParamRef          *paramRef `json:"paramRef,omitempty"`
	ValidationActions []string  `json:"validationActions"`
}

type paramRef struct {
	Name                    string `json:"name"`
	Namespace               string `json:"namespace,omitempty"`
	ParameterNotFoundAction string `json:"parameterNotFoundAction"`
}

// bindingActions are a binding's validationActions for a mode: warn
// surfaces failures as API warnings and audit annotations.
func bindingActions(m Mode) []string {
	if m == Deny {
		return []string{"Deny"}
	}
	return []string{"Warn", "Audit"}
}

// nativeArtefacts are, per shape, the policy and its two bindings.
func (s Settings) nativeArtefacts() []Artefact {
	var out []Artefact
	for _, sh := range []shape{podShape, workloadShape, cronJobShape} {
		if rules := s.nativeRules(sh); len(rules) > 0 {
			out = append(out, s.native(sh, rules))
		}
	}
	return append(out, s.claimArtefacts()...)
}

// nativeRules are the enabled rules generated for a shape.
func (s Settings) nativeRules(sh shape) []Rule {
	var out []Rule
	for _, r := range Rules {
		if s.Enabled(r.Name) && slices.ContainsFunc(s.shapes(r, Native), func(x shape) bool { return x.name() == sh.name() }) {
			out = append(out, r)
		}
	}
	return out
}

// modeLabels are the labels of every enabled rule in mode m: the same on
// each shape's binding of that mode, so that a flip (which labels every
// binding of a mode) gives what generate gives with the new modes.
func (s Settings) modeLabels(m Mode) map[string]string {
	out := map[string]string{}
	for _, r := range Rules {
		if s.Enabled(r.Name) && s.ModeOf(r.Name) == m {
			out[RuleLabel(r.Name)] = ruleOn
		}
	}
	return out
}

// nativeName is a shape's policy name: gpuwise-pods, gpuwise-workloads.
func nativeName(sh shape) string { return "gpuwise-" + sh.name() }

// native is a shape's policy and its warn and deny bindings. The exempt
// namespaces are excluded in the policy itself, so no binding can bring
// them back.
func (s Settings) native(sh shape, rules []Rule) Artefact {
	name := nativeName(sh)
	g := gen{s: s, native: true}
	spec := vapSpec{FailurePolicy: "Fail", ParamKind: &paramKind{APIVersion: admissionV1, Kind: "ValidatingAdmissionPolicyBinding"},
		MatchConstraints: matchResources{NamespaceSelector: s.exemptSelector(), ResourceRules: sh.rules()}}
	spec.Variables, spec.Validations = g.merged(sh, rules)
	spec.MatchConditions = g.nativeConditions(sh, g.fails(sh, spec.Variables, spec.Validations))
	a := Artefact{Name: name, Objects: []Object{{APIVersion: admissionV1, Kind: "ValidatingAdmissionPolicy", Metadata: nativeMeta(name, sh, rules), Spec: spec}}}
	for _, m := range Modes {
		b := name + "-" + string(m)
		md := nativeMeta(b, sh, rules)
		md.Labels[LabelMode] = string(m)
		maps.Copy(md.Labels, s.modeLabels(m))
		a.Objects = append(a.Objects, Object{APIVersion: admissionV1, Kind: "ValidatingAdmissionPolicyBinding", Metadata: md,
			Spec: vapBindingSpec{PolicyName: name, ValidationActions: bindingActions(m),
				ParamRef: &paramRef{Name: b, ParameterNotFoundAction: "Allow"}}})
	}
	return a
}

func nativeMeta(name string, sh shape, rules []Rule) Meta {
	names := make([]string, len(rules))
	for i, r := range rules {
		names[i] = r.Name
	}
	return Meta{Name: name, Labels: map[string]string{LabelManagedBy: ManagedBy, LabelShape: sh.name()},
		Annotations: map[string]string{annotationRules: strings.Join(names, ","),
			annotationSummary: "The gpuwise admission rules for " + sh.name() + "; each binding checks the rules labelled on it (" + RuleLabelPrefix + "RULE)."}}
}

// nativeConditions skip the bindings labelled with no rule, the objects
// no rule concerns (only a pod with a GPU limit, any value, or a
// toleration of the GPU taint can break a rule: GW002 concerns the
// second, every other rule the first), and, with fails, the objects that
// pass every validation. The API server evaluates the match conditions in
// a CEL activation of their own and, only when they match, the
// validations and the messages in two more, each converting the binding
// (the params) anew; so an object that breaks no rule costs one
// activation instead of three (docs/performance.md). Match conditions
// cannot read variables: fails is every validation written out.
func (g gen) nativeConditions(sh shape, fails string) []Variable {
	spec := sh.spec
	// One expression, not two: the API server evaluates every condition
	// before it looks at the results, and && stops at a binding without
	// rule labels.
	out := []Variable{
		{"a-listed-rule-fails", "params.metadata.?labels.orValue({}).exists(k, k.startsWith(" + quote(RuleLabelPrefix) + ")) && (" +
			inAnyContainer(spec, g.hasGPULimit("c", false)) + " || " +
			spec + ".?tolerations.orValue([]).exists(t, " + g.tolerates("t") + ")) && (" + fails + ")"},
	}
	if sh.update {
		out = append(out, specChanged)
	}
	return out
}

// fails is CEL true when one of the validations fails (or errs). Whether
// the object holds a GPU (the variable isGPU, which is this test) is
// decided once, first; each branch holds every validation with that
// answer put in and every other variable written out, so that a GPU pod
// skips the non-GPU rule's test, and a non-GPU pod the tests that only
// GPU pods can fail (GW004, the labels).
func (g gen) fails(sh shape, vars []Variable, vals []Validation) string {
	spec := sh.spec
	isGPU := "(" + inAnyContainer(spec, g.hasGPULimit("c", true)) + ")"
	return isGPU + " ? (" + violation(vars, vals, "isGPU", "true") + ") : (" + violation(vars, vals, "isGPU", "false") + ")"
}

// violation is CEL true when one of the validations fails (or errs), with
// the variable named fixed replaced by value and every other variable
// written out: the variables from the last back, so that one used by a
// later variable is replaced there too.
func violation(vars []Variable, vals []Validation, fixed, value string) string {
	exprs := make([]string, len(vals))
	fixedRef := varRef(fixed)
	for i, v := range vals {
		exprs[i] = fixedRef.ReplaceAllLiteralString(v.Expression, value)
	}
	for i := len(vars) - 1; i >= 0; i-- {
		ref, sub := varRef(vars[i].Name), "("+vars[i].Expression+")"
		if vars[i].Name == fixed {
			sub = value
		}
		for j := range exprs {
			exprs[j] = ref.ReplaceAllLiteralString(exprs[j], sub)
		}
	}
	for i, e := range exprs {
		exprs[i] = "!(" + e + ")"
	}
	return strings.Join(exprs, " || ")
}

// varRef matches a use of the variable name.
func varRef(name string) *regexp.Regexp {
	return regexp.MustCompile(`\bvariables\.` + regexp.QuoteMeta(name) + `\b`)
}

// merged is the shape's rules as one program: the variables of every rule
// once (rules share the containers and GPU limits), each validation
// guarded by its rule's label on the binding. The API server
// evaluates a policy's messageExpressions on every request whose match
// conditions hold, failing or not, in an activation of their own that
// computes the variables again (v1.37 validator.go); the native messages
// name the rule and the fix, and only the namespace and its cap
// (nativeMessage). Since the match conditions hold only for objects that
// break a rule (fails), richer messages would now cost only refusals.
// Kyverno and Gatekeeper keep the messages that name the containers and
// counts.
func (g gen) merged(sh shape, rules []Rule) ([]Variable, []Validation) {
	vars := []Variable{{"rules", "params.metadata.?labels.orValue({})"}}
	seen := map[string]string{}
	var vals []Validation
	for _, r := range rules {
		p := g.program(r, sh)
		for _, v := range p.Variables {
			if _, ok := seen[v.Name]; !ok {
				seen[v.Name] = v.Expression
				vars = append(vars, v)
			}
		}
		in := quote(RuleLabel(r.Name)) + " in variables.rules"
		for _, v := range p.Validations {
			v.Expression = "!(" + in + ") || (" + v.Expression + ")"
			v.MessageExpression = v.nativeMessage
			vals = append(vals, v)
		}
	}
	return inline(vars, vals)
}

// inline substitutes into their users the variables that are a path or a
// constant, or that one expression uses once, and drops them. The API
// server builds an entry per variable in every CEL activation of a
// binding (its match conditions, validations and messages, each), and
// evaluates a variable at most once per activation either way, so fewer
// variables are the same checks for less work per request
// (docs/performance.md). Later variables may use earlier ones, never the
// reverse, so one pass from the last variable back settles every use.
func inline(vars []Variable, vals []Validation) ([]Variable, []Validation) {
	for i := len(vars) - 1; i >= 0; i-- {
		v := vars[i]
		ref := varRef(v.Name)
		uses := 0
		for _, w := range vars[i+1:] {
			uses += len(ref.FindAllStringIndex(w.Expression, -1))
		}
		for _, x := range vals {
			uses += len(ref.FindAllStringIndex(x.Expression, -1)) + len(ref.FindAllStringIndex(x.MessageExpression, -1))
		}
		if uses > 1 && !trivial(v.Expression) {
			continue
		}
		sub := v.Expression
		if !trivial(sub) {
			sub = "(" + sub + ")"
		}
		repl := func(s string) string { return ref.ReplaceAllLiteralString(s, sub) }
		for j := i + 1; j < len(vars); j++ {
			vars[j].Expression = repl(vars[j].Expression)
		}
		for j := range vals {
			vals[j].Expression, vals[j].MessageExpression = repl(vals[j].Expression), repl(vals[j].MessageExpression)
		}
		vars = slices.Delete(vars, i, i+1)
	}
	return vars, vals
}

// trivialExpr is a field path or a literal without a call: as cheap to
// write out at each use as a variable's lookup.
var trivialExpr = regexp.MustCompile(`^-?[A-Za-z0-9_.]+$`)

func trivial(expr string) bool { return trivialExpr.MatchString(expr) }

// variableClashes lists the variable names two rules define differently
// for a shape (merged keeps the first): always empty, checked by a test.
func (g gen) variableClashes(sh shape) []string {
	seen := map[string]string{}
	var out []string
	for _, r := range Rules {
		for _, v := range g.program(r, sh).Variables {
			if e, ok := seen[v.Name]; ok && e != v.Expression {
				out = append(out, fmt.Sprintf("%s: %s", r.Name, v.Name))
			}
			seen[v.Name] = v.Expression
		}
	}
	return out
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
	g := gen{s: s}
	t := s.GPUTaint
	tol := "Object.spec.tolerations{key: " + quote(t.Key) + ", operator: 'Exists', effect: " + quote(t.Effect) + "}"
	expr := "has(object.spec.tolerations) ? " +
		"[JSONPatch{op: 'add', path: '/spec/tolerations/-', value: " + tol + "}] : " +
		"[JSONPatch{op: 'add', path: '/spec/tolerations', value: [" + tol + "]}]"
	needs := Variable{"gpu-pod-without-gpu-toleration", "!object.spec.?tolerations.orValue([]).exists(t, " + g.tolerates("t") + ") && " +
		"(" + inAnyContainer("object.spec", g.hasGPULimit("c", true)) + ")"}
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
