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
// order), the mutating policy when enabled, and the rollout commands.
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
	var build func(Rule) Artefact
	switch o.Engine {
	case Native:
		build = s.native
	case Kyverno:
		build = func(r Rule) Artefact { return s.kyverno(r, o.KyvernoLegacy) }
	case Gatekeeper:
		build = s.gatekeeper
	default:
		return nil, fmt.Errorf("engine %q is not native, kyverno or gatekeeper", o.Engine)
	}
	out := &Output{}
	for _, r := range Rules {
		if s.Enabled(r.Name) {
			out.Artefacts = append(out.Artefacts, build(r))
		}
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
	case o.Engine == Gatekeeper:
		p := `{"spec":{"enforcementAction":"%s"}}`
		return rolloutWords{"Gatekeeper ConstraintTemplate and constraint (K8sNativeValidation CEL)", "constraints", "merge",
			fmt.Sprintf(p, "deny"), fmt.Sprintf(p, "warn")}
	}
	p := `{"spec":{"validationActions":%s}}`
	return rolloutWords{"ValidatingAdmissionPolicy (admissionregistration.k8s.io/v1)", "validatingadmissionpolicybindings", "merge",
		fmt.Sprintf(p, fmtActions(bindingActions(Deny))), fmt.Sprintf(p, fmtActions(bindingActions(Warn)))}
}

// command is the kubectl pipeline that patches every object of the
// engine's resource matching the label selector.
func (w rolloutWords) command(selector, patch string) string {
	return fmt.Sprintf("kubectl get %s -l %s -o name | xargs -r -n1 kubectl patch --type=%s -p '%s'", w.resource, selector, w.patchType, patch)
}

// rollout writes rollout.sh: the commands that flip the rules' mode, as a
// script (`sh rollout.sh deny [RULE]`) and, per rule, as comments.
func (s Settings) rollout(o Options) string {
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
