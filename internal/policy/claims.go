package policy

import (
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/gpuwise/gpuwise/internal/cluster"
)

// A pod that holds its GPU through Dynamic Resource Allocation asks for it
// in a ResourceClaim (or the ResourceClaimTemplate its claims are made
// from): the device class and count are there, not in the pod, which only
// names the claim. Two rules read what a claim asks and apply to claims
// and templates (resource.k8s.io/v1) as to pods; the others do not
// (docs/policy.md, "ResourceClaims"):
//   - whole-gpu-in-dev-namespace (GW006): a request, or any alternative of
//     a firstAvailable request, of a whole-GPU device class
//     (wholeGPUDeviceClasses, gpu.nvidia.com) in a dev namespace; a MIG
//     device (mig.nvidia.com) passes.
//   - max-gpus-per-pod: a claim asking more devices of the GPU device
//     classes (gpuDeviceClasses) than the namespace's cap: every pod
//     holding it would (allocationMode All, every matching device of a
//     node, is more than any cap; a firstAvailable request counts its
//     largest alternative).
//
// The pod rules stay on pods: GPU container limits, the toleration and the
// cost labels are the pod's (a claim has no containers, tolerations or
// workload labels), and a pod that names a claim is never a "pod that
// requests no GPU" (GW002): admission sees only the pod, not the class of
// the claims it names, so it gives such a pod the benefit of the doubt.

// The claim shapes: requests is CEL for the device requests.
var (
	claimShape = shape{suffix: "-resourceclaims", requests: listOrEmpty("object.spec.?devices.?requests.orValue([])"),
		resources: []string{"resource.k8s.io/v1/resourceclaims"}}
	claimTemplateShape = shape{suffix: "-resourceclaimtemplates", requests: listOrEmpty("object.spec.?spec.?devices.?requests.orValue([])"),
		resources: []string{"resource.k8s.io/v1/resourceclaimtemplates"}}
	claimShapes = []shape{claimShape, claimTemplateShape}
)

// listOrEmpty is the list at path x, [] when x is null: resource.k8s.io/v1
// writes a claim without requests as "requests": null (the field has no
// omitempty), which the API server hands to CEL as null, not as absent,
// so the optional field alone does not cover it.
func listOrEmpty(x string) string { return "(type(" + x + ") == list ? " + x + " : [])" }

// claimRules are the rules that apply to ResourceClaims.
var claimRules = []Rule{RuleDevWholeGPU, RuleMaxGPUs}

// Default device classes of NVIDIA's DRA driver (docs/dra.md).
var (
	defaultWholeGPUDeviceClasses = []string{cluster.DRAGPUClass}
	defaultGPUDeviceClasses      = []string{cluster.DRAGPUClass, cluster.DRAMIGClass}
)

// claimArtefacts are, per claim shape, the native policy and its two
// bindings (Kyverno and Gatekeeper write a claim policy per rule:
// engineShapes).
func (s Settings) claimArtefacts() []Artefact {
	var rules []Rule
	for _, r := range claimRules {
		if s.Enabled(r.Name) {
			rules = append(rules, r)
		}
	}
	if len(rules) == 0 {
		return nil
	}
	var out []Artefact
	for _, sh := range claimShapes {
		out = append(out, s.claimNative(sh, rules))
	}
	return out
}

// claimNative is a claim shape's policy, bound as the pod policies are:
// each binding its own params, the rules in its mode labels on it.
func (s Settings) claimNative(sh shape, rules []Rule) Artefact {
	name := nativeName(sh)
	g := gen{s: s, native: true}
	vars := []Variable{{"rules", "params.metadata.?labels.orValue({})"}}
	var vals []Validation
	for _, r := range rules {
		p := g.claimProgram(r, sh)
		for _, v := range p.Variables {
			if !slices.ContainsFunc(vars, func(w Variable) bool { return w.Name == v.Name }) {
				vars = append(vars, v)
			}
		}
		in := quote(RuleLabel(r.Name)) + " in variables.rules"
		for _, v := range p.Validations {
			v.Expression = "!(" + in + ") || (" + v.Expression + ")"
			vals = append(vals, v)
		}
	}
	vars, vals = inline(vars, vals)
	spec := vapSpec{FailurePolicy: "Fail", ParamKind: &paramKind{APIVersion: admissionV1, Kind: "ValidatingAdmissionPolicyBinding"},
		MatchConstraints: matchResources{NamespaceSelector: s.exemptSelector(), ResourceRules: sh.rules()},
		Variables:        vars, Validations: vals,
		// As for pods: a binding without rule labels, and a claim that
		// passes every listed rule, cost one CEL activation.
		MatchConditions: []Variable{{"a-listed-rule-fails", "params.metadata.?labels.orValue({}).exists(k, k.startsWith(" + quote(RuleLabelPrefix) + ")) && (" +
			violation(vars, vals, "-", "") + ")"}}}
	if spec.Variables == nil {
		spec.Variables = []Variable{}
	}
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

// inClasses is CEL true when the device class name in v is one of classes.
func inClasses(v string, classes []string) string {
	return v + " in " + quoteList(classes)
}

func (g gen) claimProgram(r Rule, sh shape) program {
	switch r {
	case RuleDevWholeGPU:
		return g.claimDevWholeGPU(sh)
	case RuleMaxGPUs:
		return g.claimMaxGPUs(sh)
	}
	return program{}
}

func (g gen) claimDevWholeGPU(sh shape) program {
	classes := g.s.wholeGPUDeviceClasses()
	whole := "variables.requests.exists(r, " + inClasses("r.?exactly.deviceClassName.orValue('')", classes) +
		" || r.?firstAvailable.orValue([]).exists(a, " + inClasses("a.deviceClassName", classes) + "))"
	vars := []Variable{{"requests", sh.requests}, {"devNamespace", nsMatches(g.s.DevNamespaces)}}
	r := RuleDevWholeGPU
	// No quote in the tail: it goes into a CEL string literal.
	tail := "; ask for a MIG device instead (deviceClassName: " + cluster.DRAMIGClass + " with a CEL selector on the profile attribute, docs/dra.md)"
	return program{vars, []Validation{{
		Expression:        "!variables.devNamespace || !(" + whole + ")",
		Message:           msg(r, kindOf(sh)+"s may not ask for a whole GPU ("+strings.Join(classes, ", ")+") in a dev namespace"+tail),
		MessageExpression: quote(msg(r, "the "+kindOf(sh)+" asks for a whole GPU ("+strings.Join(classes, ", ")+") in namespace ")) + " + " + namespace + " + " + quote(tail),
	}}}
}

// claimMaxGPUs counts the GPU devices a claim asks for: each request's
// count (ExactCount; allocationMode All is more than any cap), the largest
// alternative of a firstAvailable request. The count is wrapped in int():
// the API server types it int64, but Kyverno's CLI reads the claim as
// untyped JSON, where it is a double, and CEL has no sum or max over a list
// of ints and doubles ("no such overload"): every GPU claim would then be an
// evaluation error, which failurePolicy Fail turns into a refusal.
func (g gen) claimMaxGPUs(sh shape) program {
	classes := g.s.gpuDeviceClasses()
	const all = "1025" // above any cap Validate allows
	count := func(x string) string {
		return "(" + inClasses(x+".deviceClassName", classes) + " ? (" + x + ".?allocationMode.orValue('ExactCount') == 'All' ? " + all + " : int(" + x + ".?count.orValue(1))) : 0)"
	}
	exact := "(has(r.exactly) ? " + count("r.exactly") + " : ([0] + r.?firstAvailable.orValue([]).map(a, " + count("a") + ")).max())"
	vars := []Variable{{"requests", sh.requests},
		{"gpuDevices", "([0] + variables.requests.map(r, " + exact + ")).sum()"},
		{"maxGPUs", g.limitTable()}}
	r := RuleMaxGPUs
	check := "variables.maxGPUs < 0 || variables.gpuDevices <= variables.maxGPUs"
	if n, err := strconv.Atoi(vars[2].Expression); err == nil && n >= 0 {
		check = "variables.gpuDevices <= variables.maxGPUs"
	}
	return program{vars, []Validation{{
		Expression: check,
		Message:    msg(r, "the "+kindOf(sh)+" asks for more GPU devices than its namespace allows per pod"),
		MessageExpression: quote(msg(r, "the "+kindOf(sh)+" asks for more GPU devices than namespace ")) + " + " + namespace + " + " +
			quote(" allows per pod (at most ") + " + string(variables.maxGPUs) + " + quote("; allocationMode All counts as more than any cap)"),
	}}}
}

// kindOf names what a claim shape admits.
func kindOf(sh shape) string {
	if sh.suffix == claimTemplateShape.suffix {
		return "ResourceClaimTemplate"
	}
	return "ResourceClaim"
}

// appliesToClaims reports whether a rule reads what a claim asks.
func appliesToClaims(r Rule) bool { return slices.Contains(claimRules, r) }

// engineShapes are the shapes Kyverno and Gatekeeper policies of a rule
// are written for: pods and, for the rules that apply to claims, the
// claim shapes.
func engineShapes(r Rule) []shape {
	if appliesToClaims(r) {
		return append([]shape{podShape}, claimShapes...)
	}
	return []shape{podShape}
}

// engineProgram is a rule's CEL for a shape: the claim program for a
// claim shape (the one the native claim policies hold), else the pod's.
func (g gen) engineProgram(r Rule, sh shape) program {
	if sh.requests != "" {
		return g.claimProgram(r, sh)
	}
	return g.program(r, sh)
}

func (s Settings) wholeGPUDeviceClasses() []string {
	if s.WholeGPUDeviceClasses == nil {
		return defaultWholeGPUDeviceClasses
	}
	return s.WholeGPUDeviceClasses
}

func (s Settings) gpuDeviceClasses() []string {
	if s.GPUDeviceClasses == nil {
		return defaultGPUDeviceClasses
	}
	return s.GPUDeviceClasses
}

// EvaluateClaims is what the claim policies refuse among the snapshot's
// GPU ResourceClaims and ResourceClaimTemplates (dra nil: none), in Go,
// by rule name: "ResourceClaim namespace/name" and "ResourceClaimTemplate
// namespace/name", sorted. The snapshot keeps a firstAvailable request's
// first alternative only, so a whole-GPU fallback behind a MIG first
// choice, which the policy refuses in a dev namespace, is not counted
// here.
func (s Settings) EvaluateClaims(dra *cluster.DRAInfo) map[string][]string {
	out := map[string][]string{}
	if dra == nil {
		return out
	}
	check := func(kind, ns, name string, reqs []cluster.DeviceRequest) {
		if slices.Contains(s.ExemptNamespaces, ns) {
			return
		}
		key := kind + " " + ns + "/" + name
		if s.Enabled(RuleDevWholeGPU.Name) && cluster.MatchAny(s.DevNamespaces, ns) &&
			slices.ContainsFunc(reqs, func(r cluster.DeviceRequest) bool { return slices.Contains(s.wholeGPUDeviceClasses(), r.DeviceClass) }) {
			out[RuleDevWholeGPU.Name] = append(out[RuleDevWholeGPU.Name], key)
		}
		if max := s.maxGPUs(ns); s.Enabled(RuleMaxGPUs.Name) && max >= 0 {
			var n int64
			for _, r := range reqs {
				switch {
				case !slices.Contains(s.gpuDeviceClasses(), r.DeviceClass):
				case r.All:
					n += 1025
				default:
					n += max64(r.Count, 1)
				}
			}
			if n > int64(max) {
				out[RuleMaxGPUs.Name] = append(out[RuleMaxGPUs.Name], key)
			}
		}
	}
	for _, c := range dra.Claims {
		check("ResourceClaim", c.Namespace, c.Name, c.Requests)
	}
	for _, t := range dra.Templates {
		check("ResourceClaimTemplate", t.Namespace, t.Name, t.Requests)
	}
	for _, v := range out {
		slices.Sort(v)
	}
	return out
}

func max64(a, b int64) int64 {
	if a > b {
		return a
	}
	return b
}
