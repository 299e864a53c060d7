package policy

import (
	"fmt"
	"strconv"
	"strings"
)

// Variable is a named CEL expression (VAP, Kyverno and Gatekeeper CEL
// share the shape).
type Variable struct {
	Name       string `json:"name"`
	Expression string `json:"expression"`
}

// Validation is a CEL check and its messages.
type Validation struct {
	Expression        string `json:"expression"`
	Message           string `json:"message,omitempty"`
	MessageExpression string `json:"messageExpression,omitempty"`
	// nativeMessage replaces MessageExpression in the native policies: the
	// API server evaluates every messageExpression on every request it
	// admits, failing or not, so there only expressions that derive nothing
	// from the containers are kept ("" drops it; native.go).
	nativeMessage string
}

// program is one rule's CEL for one object shape.
type program struct {
	Variables   []Variable
	Validations []Validation
}

// shape says where the pod spec sits in the admitted object.
type shape struct {
	// suffix is added to the object names ("" for pods).
	suffix string
	// spec and meta are CEL paths to the pod spec and pod metadata.
	spec, meta string
	// agent is CEL that is true for an allowed agent DaemonSet (or its pod);
	// empty when the shape cannot be one.
	agent string
	// resources are the matched resources, each "group/version/resource".
	resources []string
	// update: also validate updates that change the spec.
	update bool
	// requests is, for a ResourceClaim or template shape, the CEL path to
	// its device requests (claims.go); empty for the pod shapes.
	requests string
}

// The object shapes a rule is generated for.
var (
	podShape = shape{spec: "object.spec", meta: "object.metadata",
		agent:     "object.metadata.?ownerReferences.orValue([]).exists(o, o.kind == 'DaemonSet' && o.apiVersion.startsWith('apps/') && (object.metadata.namespace + '/' + o.name).matches(%s))",
		resources: []string{"/v1/pods"}}
	workloadShape = shape{suffix: "-workloads", spec: "object.spec.template.spec", meta: "object.spec.template.metadata",
		agent:     "object.kind == 'DaemonSet' && (object.metadata.namespace + '/' + object.metadata.name).matches(%s)",
		resources: []string{"apps/v1/deployments", "apps/v1/statefulsets", "apps/v1/daemonsets", "batch/v1/jobs"}, update: true}
	cronJobShape = shape{suffix: "-cronjobs", spec: "object.spec.jobTemplate.spec.template.spec",
		meta: "object.spec.jobTemplate.spec.template.metadata", resources: []string{"batch/v1/cronjobs"}, update: true}
)

// gen writes the CEL of the settings.
type gen struct {
	s Settings
	// native: the API server's own validating policies. They see an
	// object that has passed the API server's validation and whose
	// quantities read as their canonical form (Quantity.String), which
	// lets the common cases skip quantity parsing exactly (positive,
	// sameQuantity); Kyverno's and Gatekeeper's CEL, and the mutating
	// policy (which runs before validation), parse every quantity.
	native bool
}

// quote is a CEL string literal; raw (r'…') when it holds a backslash, so
// that regular expressions read as written. Settings.Validate keeps quotes
// out of every name and glob.
func quote(s string) string {
	if strings.Contains(s, `\`) {
		return "r'" + s + "'"
	}
	return "'" + s + "'"
}

func quoteList(ss []string) string {
	q := make([]string, len(ss))
	for i, s := range ss {
		q[i] = quote(s)
	}
	return "[" + strings.Join(q, ", ") + "]"
}

// isGPUResource is CEL true when the resource name in v is a GPU resource.
func (g gen) isGPUResource(v string) string {
	var alts []string
	for _, r := range g.s.GPUResources {
		if base, ok := strings.CutSuffix(r, "*"); ok {
			alts = append(alts, v+".startsWith("+quote(base)+")")
		} else {
			alts = append(alts, v+" == "+quote(r))
		}
	}
	return "(" + strings.Join(alts, " || ") + ")"
}

// limitsOf is the container's limits map, {} when it has none.
func limitsOf(c string) string { return c + ".?resources.?limits.orValue({})" }

// positive is CEL true when the limit of resource r in container c is > 0.
// Natively a string test: the API server's validation refuses negative
// quantities, and Quantity.String writes every zero as "0", whatever the
// input ("0m", "0Ki", "0e3"; test/integration/kube proves it on the
// server), so "!= '0'" is exactly "> 0" there.
func (g gen) positive(c, r string) string {
	q := "string(" + c + ".resources.limits[" + r + "])"
	if g.native {
		return q + " != '0'"
	}
	return "quantity(" + q + ").isGreaterThan(quantity('0'))"
}

// sameQuantity is CEL true when the quantities in strings a and b are
// equal. Natively equal strings answer first (the same string is the same
// quantity; the API server copies a missing request from its limit, so
// the common case is an equal string) and only different strings are
// parsed.
func (g gen) sameQuantity(a, b string) string {
	cmp := "quantity(" + a + ").compareTo(quantity(" + b + ")) == 0"
	if g.native {
		return "(" + a + " == " + b + " || " + cmp + ")"
	}
	return cmp
}

// hasGPULimit is CEL true when container c has a limit on a GPU
// resource (a positive one when positive is set).
func (g gen) hasGPULimit(c string, positive bool) string {
	cond := g.isGPUResource("r")
	if positive {
		cond += " && " + g.positive(c, "r")
	}
	return limitsOf(c) + ".exists(r, " + cond + ")"
}

// inAnyContainer is CEL true when pred (of container c) holds for one of
// the containers or init containers of the pod spec at path spec: the two
// lists are searched one after the other rather than joined, so that no
// list is built per request.
func inAnyContainer(spec, pred string) string {
	return spec + ".containers.exists(c, " + pred + ") || " + spec + ".?initContainers.orValue([]).exists(c, " + pred + ")"
}

// nsMatches is CEL true when the object's namespace matches one of the
// globs: a constant when a glob is all stars (every namespace: names
// hold no "/") or there are none, so that no regular expression runs per
// request.
func nsMatches(globs []string) string {
	if len(globs) == 0 {
		return "false"
	}
	for _, g := range globs {
		if strings.Trim(g, "*") == "" {
			return "true"
		}
	}
	return namespace + ".matches(" + quote(globRegexp(globs)) + ")"
}

// tolerates is CEL true when the toleration in t tolerates the GPU taint.
func (g gen) tolerates(t string) string {
	key := t + ".?key.orValue('') == " + quote(g.s.GPUTaint.Key)
	if v := g.s.GPUTaint.Value; v != "" {
		key = "(" + key + " && (" + t + ".?operator.orValue('') == 'Exists' || " + t + ".?value.orValue('') == " + quote(v) + "))"
	}
	blanket := "(" + t + ".?key.orValue('') == '' && " + t + ".?operator.orValue('') == 'Exists')"
	effect := t + ".?effect.orValue('') in ['', " + quote(g.s.GPUTaint.Effect) + "]"
	return effect + " && (" + blanket + " || " + key + ")"
}

// common are the variables every rule starts from.
func (g gen) common(sh shape) []Variable {
	return []Variable{
		{"spec", sh.spec},
		{"containers", "variables.spec.containers + variables.spec.?initContainers.orValue([])"},
		{"gpuContainers", "variables.containers.filter(c, " + g.hasGPULimit("c", true) + ")"},
		{"isGPU", "size(variables.gpuContainers) > 0"},
	}
}

// namespace is the admitted object's namespace (the API server fills it
// from the request before admission).
const namespace = "object.metadata.namespace"

func (g gen) program(r Rule, sh shape) program {
	switch r {
	case RuleNonGPUToleration:
		return g.nonGPUToleration(sh)
	case RuleLimits:
		return g.limits(sh)
	case RuleToleration:
		return g.toleration(sh)
	case RuleDevWholeGPU:
		return g.devWholeGPU(sh)
	case RuleLabels:
		return g.labels(sh)
	case RuleMaxGPUs:
		return g.maxGPUs(sh)
	}
	return program{}
}

func msg(r Rule, text string) string { return "gpuwise " + r.label() + ": " + text }

func (g gen) nonGPUToleration(sh shape) program {
	vars := append(g.common(sh), Variable{"tolerated", "variables.spec.?tolerations.orValue([]).exists(t, " + g.tolerates("t") + ")"})
	agent := "false"
	if sh.agent != "" {
		agent = fmt.Sprintf(sh.agent, quote(globRegexp(g.s.Agents)))
	}
	vars = append(vars, Variable{"agent", agent})
	r := RuleNonGPUToleration
	text := "pods that request no GPU must not tolerate the GPU taint " + g.s.GPUTaint.Key + " (it keeps them off GPU nodes); remove the toleration, or list the DaemonSet under agents"
	// A pod naming a ResourceClaim may hold its GPU through it (DRA):
	// admission cannot see the claim's class, so it is not refused here.
	vars = append(vars, Variable{"claims", "size(variables.spec.?resourceClaims.orValue([])) > 0"})
	return program{vars, []Validation{{
		Expression: "variables.isGPU || variables.agent || variables.claims || !variables.tolerated",
		Message:    msg(r, text),
	}}}
}

func (g gen) limits(sh shape) program {
	ok := "['cpu', 'memory'].all(r, r in c.resources.limits && (!(r in c.resources.?requests.orValue({})) || " +
		g.sameQuantity("string(c.resources.requests[r])", "string(c.resources.limits[r])") + "))"
	vars := append(g.common(sh), Variable{"badLimits", "variables.gpuContainers.filter(c, !" + ok + ")"})
	r := RuleLimits
	tail := " must set CPU and memory limits equal to their requests (Guaranteed QoS)"
	return program{vars, []Validation{{
		Expression:        "size(variables.badLimits) == 0",
		Message:           msg(r, "GPU containers"+tail),
		MessageExpression: quote(msg(r, "GPU container(s) ")) + " + variables.badLimits.map(c, c.name).join(', ') + " + quote(tail),
	}}}
}

func (g gen) toleration(sh shape) program {
	vars := append(g.common(sh), Variable{"tolerated", "variables.spec.?tolerations.orValue([]).exists(t, " + g.tolerates("t") + ")"})
	t := g.s.GPUTaint
	text := fmt.Sprintf("GPU pods must tolerate the GPU taint: add tolerations: [{key: %s, operator: Exists, effect: %s}]", t.Key, t.Effect)
	return program{vars, []Validation{{Expression: "!variables.isGPU || variables.tolerated", Message: msg(RuleToleration, text)}}}
}

func (g gen) devWholeGPU(sh shape) program {
	whole := "variables.containers.filter(c, " + limitsOf("c") + ".exists(r, r in " + quoteList(g.s.WholeGPUResources) + " && " + g.positive("c", "r") + "))"
	vars := []Variable{
		{"spec", sh.spec},
		{"containers", "variables.spec.containers + variables.spec.?initContainers.orValue([])"},
		{"devNamespace", nsMatches(g.s.DevNamespaces)},
		{"wholeGPUContainers", whole},
	}
	r := RuleDevWholeGPU
	what := strings.Join(g.s.WholeGPUResources, ", ")
	tail := " in a dev namespace; request a shared GPU (nvidia.com/gpu.shared, time-slicing) or a MIG slice"
	return program{vars, []Validation{{
		Expression:        "!variables.devNamespace || size(variables.wholeGPUContainers) == 0",
		Message:           msg(r, "whole GPUs ("+what+")"+tail),
		MessageExpression: quote(msg(r, "container(s) ")) + " + variables.wholeGPUContainers.map(c, c.name).join(', ') + " + quote(" request whole GPUs ("+what+") in namespace ") + " + " + namespace + " + " + quote(strings.TrimPrefix(tail, " in a dev namespace")),
		nativeMessage:     quote(msg(r, "whole GPUs ("+what+") in namespace ")) + " + " + namespace + " + " + quote(strings.TrimPrefix(tail, " in a dev namespace")),
	}}}
}

// labelGroups is the required labels as a CEL list of alternatives.
func (g gen) labelGroups() string {
	groups := make([]string, len(g.s.RequiredLabels))
	for i, grp := range g.s.RequiredLabels {
		groups[i] = quoteList(strings.Split(grp, "|"))
	}
	return "[" + strings.Join(groups, ", ") + "]"
}

func (g gen) labels(sh shape) program {
	vars := append(g.common(sh),
		Variable{"labels", sh.meta + ".?labels.orValue({})"},
		Variable{"missingLabels", g.labelGroups() + ".filter(g, !g.exists(k, variables.labels[?k].orValue('') != ''))"})
	r := RuleLabels
	want := strings.ReplaceAll(strings.Join(g.s.RequiredLabels, ", "), "|", " or ")
	return program{vars, []Validation{{
		Expression:        "!variables.isGPU || size(variables.missingLabels) == 0",
		Message:           msg(r, "GPU pods need the cost-allocation labels "+want),
		MessageExpression: quote(msg(r, "GPU pods need the cost-allocation label(s) ")) + " + variables.missingLabels.map(g, g.join(' or ')).join(', ')",
	}}}
}

// units is CEL for the GPU units a container requests.
func (g gen) units(c string) string {
	return "([0] + " + limitsOf(c) + ".filter(r, " + g.isGPUResource("r") + ").map(r, quantity(string(" + c + ".resources.limits[r])).asInteger())).sum()"
}

// nativeUnits is gpuUnits for the API server: without init containers
// (most pods) the units are counted over the GPU containers already found
// (the others hold no positive GPU limit), and the general count is
// evaluated only for pods with init containers.
func (g gen) nativeUnits(general string) string {
	fast := "([0] + variables.gpuContainers.map(c, " + g.units("c") + ")).sum()"
	return "size(variables.spec.?initContainers.orValue([])) == 0 ? " + fast + " : (" + general + ")"
}

// maxGPUs counts a pod's GPU units as the scheduler would, bounded above:
// app containers plus sidecars (init containers with restartPolicy
// Always), or the largest other init container if that is more.
func (g gen) maxGPUs(sh shape) program {
	inits := "variables.spec.?initContainers.orValue([])"
	app := Variable{"appUnits", "([0] + variables.spec.containers.map(c, " + g.units("c") + ")).sum() + ([0] + " + inits +
		".filter(c, c.?restartPolicy.orValue('') == 'Always').map(c, " + g.units("c") + ")).sum()"}
	init := Variable{"initUnits", "([0] + " + inits + ".filter(c, c.?restartPolicy.orValue('') != 'Always').map(c, " + g.units("c") + ")).max()"}
	units := Variable{"gpuUnits", "variables.initUnits > variables.appUnits ? variables.initUnits : variables.appUnits"}
	table := g.limitTable()
	vars := []Variable{{"spec", sh.spec}, app, init, units, {"maxGPUs", table}}
	if g.native {
		units.Expression = g.nativeUnits(units.Expression)
		vars = append(g.common(sh), app, init, units, Variable{"maxGPUs", table})
	}
	r := RuleMaxGPUs
	check := "variables.maxGPUs < 0 || variables.gpuUnits <= variables.maxGPUs"
	if n, err := strconv.Atoi(table); err == nil && n >= 0 {
		check = "variables.gpuUnits <= variables.maxGPUs" // one cap for every namespace
	}
	return program{vars, []Validation{{
		Expression: check,
		Message:    msg(r, "the pod requests more GPU units than its namespace allows"),
		MessageExpression: quote(msg(r, "the pod requests ")) + " + string(variables.gpuUnits) + " +
			quote(" GPU units; namespace ") + " + " + namespace + " + " + quote(" allows at most ") + " + string(variables.maxGPUs) + " + quote(" per pod"),
		nativeMessage: quote(msg(r, "the pod requests more GPU units than namespace ")) + " + " + namespace + " + " +
			quote(" allows (at most ") + " + string(variables.maxGPUs) + " + quote(" per pod)"),
	}}}
}

// limitTable is CEL for the namespace's cap: the first matching entry's
// max, -1 when none matches. An entry for every namespace ends the table
// (the default, "*": a constant), one for none is left out.
func (g gen) limitTable() string {
	var ms, caps []string
	for _, l := range g.s.MaxGPUsPerPod {
		m := nsMatches(l.Namespaces)
		if m == "false" {
			continue
		}
		ms, caps = append(ms, m), append(caps, strconv.Itoa(l.Max))
		if m == "true" {
			break
		}
	}
	out := "-1"
	if n := len(ms); n > 0 && ms[n-1] == "true" {
		out, ms, caps = caps[n-1], ms[:n-1], caps[:n-1]
	}
	for i := len(ms) - 1; i >= 0; i-- {
		out = ms[i] + " ? " + caps[i] + " : " + out
		if i > 0 {
			out = "(" + out + ")"
		}
	}
	return out
}
