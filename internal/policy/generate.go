package policy

import (
	"fmt"
	"strings"
)

// Engine is the admission engine policies are written for.
type Engine string

// Engines.
const (
	Native     Engine = "native"
	Kyverno    Engine = "kyverno"
	Gatekeeper Engine = "gatekeeper"
)

// ParseEngine reads native, kyverno or gatekeeper.
func ParseEngine(s string) (Engine, error) {
	switch e := Engine(s); e {
	case Native, Kyverno, Gatekeeper:
		return e, nil
	}
	return "", fmt.Errorf("engine %q is not native, kyverno or gatekeeper", s)
}

// Options choose the engine and its flavour.
type Options struct {
	Engine Engine
	// KyvernoLegacy writes kyverno.io/v1 ClusterPolicies (deprecated in
	// Kyverno 1.19) instead of policies.kyverno.io ValidatingPolicies.
	KyvernoLegacy bool
}

// Output is the generated policies: one artefact per rule (in Rules
// order; native: one per object shape holding every rule), the mutating policy when enabled, and the rollout commands.
type Output struct {
	Artefacts []Artefact
	// Rollout is a shell script of comments and commands: how to apply,
	// watch and flip the mode.
	Rollout string
	Notes   []string
}

// Generate builds every enabled rule's policy objects for the engine.
func Generate(s Settings, o Options) (*Output, error) {
	if err := s.Validate(); err != nil {
		return nil, err
	}
	if o.KyvernoLegacy && o.Engine != Kyverno {
		return nil, fmt.Errorf("kyverno-legacy: only with engine kyverno (got %s)", o.Engine)
	}
	out := &Output{}
	switch o.Engine {
	case Native:
		out.Artefacts = s.nativeArtefacts()
	case Kyverno:
		out.Artefacts = s.perRule(func(r Rule) Artefact { return s.kyverno(r, o.KyvernoLegacy) })
	case Gatekeeper:
		out.Artefacts = s.perRule(s.gatekeeper)
	default:
		return nil, fmt.Errorf("engine %q is not native, kyverno or gatekeeper", o.Engine)
	}
	if s.Mutate {
		out.Artefacts = append(out.Artefacts, s.mutation())
		if o.Engine != Native {
			out.Notes = append(out.Notes, "the toleration is added by the API server's own MutatingAdmissionPolicy (Kubernetes >= 1.36), written beside the "+string(o.Engine)+" policies")
		}
	}
	out.Rollout = s.rollout(o)
	return out, nil
}

// perRule is one artefact per enabled rule, in Rules order.
func (s Settings) perRule(build func(Rule) Artefact) []Artefact {
	var out []Artefact
	for _, r := range Rules {
		if s.Enabled(r.Name) {
			out = append(out, build(r))
		}
	}
	return out
}

// rolloutWords is what one engine's rollout commands need.
type rolloutWords struct {
	engine, resource, patchType, toDeny, toWarn string
}

func (s Settings) words(o Options) rolloutWords {
	switch {
	case o.Engine == Kyverno && o.KyvernoLegacy:
		p := `[{"op":"replace","path":"/spec/rules/0/validate/failureAction","value":"%s"}]`
		return rolloutWords{"Kyverno ClusterPolicy (kyverno.io/v1)", "clusterpolicies.kyverno.io", "json", fmt.Sprintf(p, "Enforce"), fmt.Sprintf(p, "Audit")}
	case o.Engine == Kyverno:
		p := `{"spec":{"validationActions":%s}}`
		return rolloutWords{"Kyverno ValidatingPolicy (policies.kyverno.io/v1)", "validatingpolicies.policies.kyverno.io", "merge",
			fmt.Sprintf(p, fmtActions(vpolActions(Deny))), fmt.Sprintf(p, fmtActions(vpolActions(Warn)))}
	default: // Gatekeeper; the native engine writes its own (nativeRollout)
		p := `{"spec":{"enforcementAction":"%s"}}`
		return rolloutWords{"Gatekeeper ConstraintTemplate and constraint (K8sNativeValidation CEL)", "constraints", "merge",
			fmt.Sprintf(p, "deny"), fmt.Sprintf(p, "warn")}
	}
}

// command is the kubectl pipeline that patches every object of the
// engine's resource matching the label selector.
func (w rolloutWords) command(selector, patch string) string {
	return fmt.Sprintf("kubectl get %s -l %s -o name | xargs -r -n1 kubectl patch --type=%s -p '%s'", w.resource, selector, w.patchType, patch)
}

// rollout writes rollout.sh: the commands that flip the rules' mode, as a
// script (`sh rollout.sh deny [RULE]`) and, per rule, as comments.
func (s Settings) rollout(o Options) string {
	if o.Engine == Native {
		return s.nativeRollout()
	}
	w := s.words(o)
	var b strings.Builder
	fmt.Fprintf(&b, "#!/bin/sh\n# gpuwise admission policies: %s.\n", w.engine)
	b.WriteString("# Roll out in warn mode first: violating objects are admitted with a warning (and an audit\n" +
		"# record); `gpuwise audit` shows what each rule would have blocked. Flip a rule to deny once\n" +
		"# its warnings have stopped. Never covered: " + strings.Join(s.ExemptNamespaces, ", ") + ".\n#\n")
	b.WriteString("# Apply: kubectl apply -f DIR (files from -d), or gpuwise generate policy … | kubectl apply -f -\n")
	b.WriteString("# Flip:  sh rollout.sh deny [RULE]   (every gpuwise rule, or one)\n#        sh rollout.sh warn [RULE]   (back to warn)\n#\n")
	b.WriteString("# The same, one rule at a time:\n")
	for _, r := range Rules {
		if !s.Enabled(r.Name) {
			continue
		}
		sel := LabelRule + "=" + r.Name
		fmt.Fprintf(&b, "#   %s (now %s):\n#     %s\n", r.label(), s.ModeOf(r.Name), w.command(sel, w.toDeny))
	}
	fmt.Fprintf(&b, "set -eu\nsel=%s\n", LabelManagedBy+"="+ManagedBy)
	fmt.Fprintf(&b, "if [ $# -gt 1 ]; then sel=%s=$2; fi\n", LabelRule)
	fmt.Fprintf(&b, "case ${1:-} in\ndeny) patch='%s' ;;\nwarn) patch='%s' ;;\n*) echo \"usage: sh rollout.sh deny|warn [RULE]\" >&2; exit 2 ;;\nesac\n", w.toDeny, w.toWarn)
	fmt.Fprintf(&b, "kubectl get %s -l \"$sel\" -o name | xargs -r -n1 kubectl patch --type=%s -p \"$patch\"\n", w.resource, w.patchType)
	return b.String()
}

// flipCommand is the native engine's command that moves rules (label
// arguments) into mode to: the bindings of mode to are labelled first, then
// those of the other mode unlabelled, so that no rule is unchecked in
// between.
func flipCommand(to Mode, add, remove string) string {
	return "kubectl label " + bindingsOf(to) + " --overwrite " + add + " && kubectl label " + bindingsOf(other(to)) + " " + remove
}

// bindingsOf selects gpuwise's native bindings of mode m (a kubectl
// resource and label selector).
func bindingsOf(m Mode) string {
	return "validatingadmissionpolicybindings -l " + LabelManagedBy + "=" + ManagedBy + "," + LabelMode + "=" + string(m)
}

// other is the mode a flip into m leaves.
func other(m Mode) Mode {
	if m == Warn {
		return Deny
	}
	return Warn
}

// nativeRollout writes the native rollout.sh: a rule's mode is which
// mode's bindings carry its label (native.go).
func (s Settings) nativeRollout() string {
	var b strings.Builder
	b.WriteString("#!/bin/sh\n# gpuwise admission policies: ValidatingAdmissionPolicy (admissionregistration.k8s.io/v1).\n")
	b.WriteString("# Roll out in warn mode first: violating objects are admitted with a warning (and an audit\n" +
		"# record); `gpuwise audit` shows what each rule would have blocked. Flip a rule to deny once\n" +
		"# its warnings have stopped. Never covered: " + strings.Join(s.ExemptNamespaces, ", ") + ".\n#\n")
	fmt.Fprintf(&b, "# One policy per object shape holds every rule; it is bound twice, gpuwise-SHAPE-warn\n"+
		"# (validationActions Warn, Audit) and gpuwise-SHAPE-deny (Deny). Each binding is its own\n"+
		"# params and checks the rules labelled on it (%sRULE); %s says its mode.\n#\n", RuleLabelPrefix, LabelMode)
	b.WriteString("# Apply: kubectl apply -f DIR (files from -d), or gpuwise generate policy … | kubectl apply -f -\n")
	b.WriteString("# Flip:  sh rollout.sh deny [RULE]   (every gpuwise rule, or one)\n#        sh rollout.sh warn [RULE]   (back to warn)\n#\n")
	b.WriteString("# The same, one rule at a time:\n")
	var names []string
	for _, r := range Rules {
		if !s.Enabled(r.Name) {
			continue
		}
		names = append(names, r.Name)
		fmt.Fprintf(&b, "#   %s (now %s):\n#     %s\n", r.label(), s.ModeOf(r.Name),
			flipCommand(Deny, RuleLabel(r.Name)+"="+ruleOn, RuleLabel(r.Name)+"-"))
	}
	fmt.Fprintf(&b, "set -eu\nall='%s'\nrules=$all\n", strings.Join(names, " "))
	b.WriteString("case ${1:-} in\ndeny) to=deny from=warn ;;\nwarn) to=warn from=deny ;;\n*) echo \"usage: sh rollout.sh deny|warn [RULE]\" >&2; exit 2 ;;\nesac\n")
	b.WriteString("if [ $# -gt 1 ]; then\n  case \" $all \" in *\" $2 \"*) rules=$2 ;; *) echo \"rollout.sh: no rule $2 (rules: $all)\" >&2; exit 2 ;; esac\nfi\n")
	fmt.Fprintf(&b, "add= remove=\nfor r in $rules; do add=\"$add %s$r=%s\" remove=\"$remove %s$r-\"; done\n", RuleLabelPrefix, ruleOn, RuleLabelPrefix)
	sel := "validatingadmissionpolicybindings -l " + LabelManagedBy + "=" + ManagedBy + "," + LabelMode + "="
	fmt.Fprintf(&b, "kubectl label %s$to --overwrite $add\n", sel)
	fmt.Fprintf(&b, "kubectl label %s$from $remove\n", sel)
	return b.String()
}
