package policy

import (
	"errors"
	"fmt"
	"path"
	"regexp"
	"slices"
	"strings"

	"github.com/gpuwise/gpuwise/internal/cluster"
	"github.com/gpuwise/gpuwise/internal/gpurule"
)

// Mode is a rule's rollout stage.
type Mode string

// Rollout modes: warn first (admitted, with an API warning and an audit
// annotation), deny once the warnings have stopped.
const (
	Warn Mode = "warn"
	Deny Mode = "deny"
)

// Settings are the admission rules' parameters (docs/policy.md); the field
// names in Validate's messages are the settings file's.
type Settings struct {
	// GPUResources are the extended resources that make a pod a GPU pod:
	// exact names, or a prefix ending in "*" ("nvidia.com/mig-*").
	GPUResources []string
	// WholeGPUResources are the resources that are a whole GPU each, refused
	// in dev namespaces (GW006).
	WholeGPUResources []string
	// GPUTaint is the taint that keeps non-GPU pods off GPU nodes.
	GPUTaint Taint
	// Agents are namespace/name globs of DaemonSets allowed to tolerate the
	// GPU taint without requesting a GPU (GW002).
	Agents []string
	// WholeGPUDeviceClasses are the DRA device classes of whole GPUs, which
	// a ResourceClaim may not ask for in a dev namespace (GW006); nil:
	// NVIDIA's gpu.nvidia.com.
	WholeGPUDeviceClasses []string
	// GPUDeviceClasses are the DRA device classes whose devices count
	// towards maxGPUsPerPod in a ResourceClaim; nil: gpu.nvidia.com and
	// mig.nvidia.com.
	GPUDeviceClasses []string
	// DevNamespaces are namespace globs where whole GPUs are refused (GW006).
	DevNamespaces []string
	// RequiredLabels must be on every GPU pod (or its template); an entry
	// "team|cost-center" is satisfied by either label.
	RequiredLabels []string
	// MaxGPUsPerPod caps the GPU units (whole, MIG, shared) one pod may
	// request; the first entry whose glob matches the namespace applies.
	MaxGPUsPerPod []NamespaceLimit
	// ExemptNamespaces are never matched by any policy.
	ExemptNamespaces []string
	// Mode is every rule's rollout mode unless Rules sets its own.
	Mode Mode
	// Rules turns single rules off or gives them their own mode.
	Rules map[string]RuleSettings
	// Mutate adds a MutatingAdmissionPolicy that gives GPU pods the GPU
	// toleration (Kubernetes ≥ 1.36 serves it without flags).
	Mutate bool
	// Workloads adds policies on Deployments, StatefulSets, DaemonSets, Jobs
	// and CronJobs, so `kubectl apply` is refused or warned at once instead
	// of in the ReplicaSet's events (native engine; Kyverno generates its
	// own).
	Workloads bool
}

// Taint is the GPU nodes' taint. An empty Value means any value of Key: a
// toleration of the key with operator Equal is accepted whatever its value.
type Taint struct {
	Key    string
	Value  string
	Effect string
}

// NamespaceLimit is the most GPU units per pod in the namespaces matching
// Namespaces (globs).
type NamespaceLimit struct {
	Namespaces []string
	Max        int
}

// RuleSettings override one rule.
type RuleSettings struct {
	Disabled bool
	// Mode is the rule's own mode; empty means Settings.Mode.
	Mode Mode
}

// DefaultGPUOperatorNamespaces are the GPU Operator's usual namespaces
// (Helm install; OpenShift OperatorHub).
var DefaultGPUOperatorNamespaces = []string{"gpu-operator", "nvidia-gpu-operator"}

// Defaults returns the documented defaults: NVIDIA's resource names, the
// device plugin's example taint, the audit's node agents and dev
// namespaces, a team or cost-center label, at most 8 GPUs per pod, and
// kube-system and the GPU Operator exempt, all in warn mode.
func Defaults() Settings {
	return Settings{
		GPUResources:      []string{"nvidia.com/gpu", "nvidia.com/gpu.shared", "nvidia.com/mig-*"},
		WholeGPUResources: []string{"nvidia.com/gpu"},
		GPUTaint:          Taint{Key: "nvidia.com/gpu", Effect: "NoSchedule"},
		Agents:            slices.Clone(cluster.DefaultNodeAgents),
		DevNamespaces:     slices.Clone(cluster.DefaultDevNamespaces),
		RequiredLabels:    []string{"team|cost-center"},
		MaxGPUsPerPod:     []NamespaceLimit{{Namespaces: []string{"*"}, Max: 8}},
		ExemptNamespaces:  append([]string{"kube-system"}, DefaultGPUOperatorNamespaces...),
		Mode:              Warn,
		Mutate:            true,
		Workloads:         true,
	}
}

// ModeOf is a rule's effective mode.
func (s Settings) ModeOf(rule string) Mode {
	if m := s.Rules[rule].Mode; m != "" {
		return m
	}
	return s.Mode
}

// Enabled reports whether a rule is generated.
func (s Settings) Enabled(rule string) bool { return !s.Rules[rule].Disabled }

var (
	// globChars are what names (lower-case DNS labels and subdomains) and
	// path.Match syntax need; nothing else reaches the CEL string literals.
	globChars     = regexp.MustCompile(`^[a-z0-9.*?\[\]^\\/-]+$`)
	qualifiedName = regexp.MustCompile(`^([a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*/)?[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?$`)
	dnsLabel      = regexp.MustCompile(`^[a-z0-9]([-a-z0-9]*[a-z0-9])?$`)
	dnsSubdomain  = regexp.MustCompile(`^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$`)
)

// Validate returns every problem, each naming its field, joined into one
// error; nil when the settings are usable.
func (s Settings) Validate() error {
	var p checker
	p.resources("gpuResources", s.GPUResources, true)
	p.resources("wholeGPUResources", s.WholeGPUResources, false)
	for i, r := range s.WholeGPUResources {
		if !matchResource(s.GPUResources, r) {
			p.addf("wholeGPUResources[%d]: %q is not one of gpuResources, so no pod requesting it counts as a GPU pod", i, r)
		}
	}
	p.classes("wholeGPUDeviceClasses", s.WholeGPUDeviceClasses)
	p.classes("gpuDeviceClasses", s.GPUDeviceClasses)
	s.GPUTaint.validate(&p)
	p.globs("agents", s.Agents, true)
	p.globs("devNamespaces", s.DevNamespaces, false)
	s.validateLabels(&p)
	s.validateLimits(&p)
	s.validateExempt(&p)
	p.mode("mode", s.Mode)
	s.validateRules(&p)
	return p.err()
}

func (t Taint) validate(p *checker) {
	if t.Key == "" || !qualifiedName.MatchString(t.Key) || len(t.Key) > 316 {
		p.addf("gpuTaint.key: %q is not a taint key (a qualified name such as nvidia.com/gpu)", t.Key)
	}
	if len(t.Value) > 63 || (t.Value != "" && !qualifiedName.MatchString(t.Value)) || strings.Contains(t.Value, "/") {
		p.addf("gpuTaint.value: %q is not a label value", t.Value)
	}
	if t.Effect != "NoSchedule" && t.Effect != "PreferNoSchedule" && t.Effect != "NoExecute" {
		p.addf("gpuTaint.effect: %q is not NoSchedule, PreferNoSchedule or NoExecute", t.Effect)
	}
}

func (s Settings) validateLabels(p *checker) {
	for i, group := range s.RequiredLabels {
		for _, k := range strings.Split(group, "|") {
			if !qualifiedName.MatchString(k) || len(k) > 316 {
				p.addf("requiredLabels[%d]: %q is not a label key (alternatives are separated by |, e.g. team|cost-center)", i, k)
			}
		}
	}
}

func (s Settings) validateLimits(p *checker) {
	for i, l := range s.MaxGPUsPerPod {
		field := fmt.Sprintf("maxGPUsPerPod[%d]", i)
		if len(l.Namespaces) == 0 {
			p.addf("%s.namespaces: empty; use [\"*\"] for every namespace", field)
		}
		p.globs(field+".namespaces", l.Namespaces, false)
		if l.Max < 1 || l.Max > 1024 {
			p.addf("%s.max: %d is outside 1..1024 (to refuse GPUs in a namespace, use a ResourceQuota; to drop the cap, remove the entry)", field, l.Max)
		}
	}
}

func (s Settings) validateExempt(p *checker) {
	for i, ns := range s.ExemptNamespaces {
		if !dnsLabel.MatchString(ns) || len(ns) > 63 {
			p.addf("exemptNamespaces[%d]: %q is not a namespace name (exact names only; no globs)", i, ns)
		}
	}
	if !slices.Contains(s.ExemptNamespaces, "kube-system") {
		p.addf("exemptNamespaces: must include kube-system: policies never cover system namespaces")
	}
}

func (s Settings) validateRules(p *checker) {
	names := make([]string, 0, len(s.Rules))
	for name := range s.Rules {
		names = append(names, name)
	}
	slices.Sort(names)
	for _, name := range names {
		r := s.Rules[name]
		if _, ok := RuleByName(name); !ok {
			p.addf("rules.%s: unknown rule (known: %s)", name, strings.Join(RuleNames(), ", "))
			continue
		}
		if r.Mode != "" {
			p.mode("rules."+name+".mode", r.Mode)
		}
		if r.Disabled && r.Mode != "" {
			p.addf("rules.%s: disabled and given a mode; drop one of them", name)
		}
	}
	// A rule without its parameters would generate a policy that never
	// refuses anything: say so rather than ship it.
	for _, c := range []struct {
		rule, field string
		empty       bool
	}{
		{RuleDevWholeGPU.Name, "devNamespaces", len(s.DevNamespaces) == 0},
		{RuleLabels.Name, "requiredLabels", len(s.RequiredLabels) == 0},
		{RuleMaxGPUs.Name, "maxGPUsPerPod", len(s.MaxGPUsPerPod) == 0},
	} {
		if c.empty && s.Enabled(c.rule) {
			p.addf("%s: empty while rule %s is enabled; set it, or disable the rule (rules.%s.disabled: true)", c.field, c.rule, c.rule)
		}
	}
}

// checker collects problems.
type checker struct{ probs []string }

func (p *checker) addf(format string, args ...any) {
	p.probs = append(p.probs, fmt.Sprintf(format, args...))
}

func (p *checker) err() error {
	if len(p.probs) == 0 {
		return nil
	}
	return errors.New(strings.Join(p.probs, "\n"))
}

func (p *checker) mode(field string, m Mode) {
	if m != Warn && m != Deny {
		p.addf("%s: %q is not warn or deny", field, m)
	}
}

// resources checks resource names; prefix allows a trailing "*".
func (p *checker) resources(field string, names []string, prefix bool) {
	if len(names) == 0 {
		p.addf("%s: empty", field)
	}
	for i, n := range names {
		base, star := strings.CutSuffix(n, "*")
		switch {
		case star && !prefix:
			p.addf("%s[%d]: %q: a prefix (*) is not allowed here; list exact names", field, i, n)
		case strings.Contains(base, "*"):
			p.addf("%s[%d]: %q: * is allowed only at the end (a prefix such as nvidia.com/mig-*)", field, i, n)
		case !strings.Contains(base, "/") || (!star && !qualifiedName.MatchString(base)) || (star && !qualifiedName.MatchString(base+"x")):
			p.addf("%s[%d]: %q is not an extended resource name (domain/name, e.g. nvidia.com/gpu)", field, i, n)
		}
	}
}

// classes checks DRA device class names (DNS subdomains); nil is the
// default, an empty list refuses nothing.
func (p *checker) classes(field string, names []string) {
	for i, n := range names {
		if len(n) > 253 || !dnsSubdomain.MatchString(n) {
			p.addf("%s[%d]: %q is not a device class name (a DNS subdomain such as gpu.nvidia.com)", field, i, n)
		}
	}
}

// globs checks path.Match globs; slash says whether they are over
// namespace/name (one / required) or namespace names (none allowed).
func (p *checker) globs(field string, globs []string, slash bool) {
	for i, g := range globs {
		if _, err := path.Match(g, ""); err != nil || g == "" {
			p.addf("%s[%d]: %q is not a valid glob", field, i, g)
			continue
		}
		if !globChars.MatchString(g) {
			p.addf("%s[%d]: %q: names are lower-case letters, digits, - and .; globs add * ? [ ] ^ \\", field, i, g)
			continue
		}
		switch n := strings.Count(g, "/"); {
		case slash && n != 1:
			p.addf("%s[%d]: %q: want namespace/name, e.g. monitoring/node-exporter*", field, i, g)
		case !slash && n != 0:
			p.addf("%s[%d]: %q: namespace names contain no /", field, i, g)
		}
	}
}

// matchResource reports whether a resource name is one of the patterns
// (gpurule.Resources.Match).
func matchResource(patterns []string, name string) bool {
	return gpurule.Resources(patterns).Match(name)
}
