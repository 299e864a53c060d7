package policy

import (
	"slices"
	"strings"
)

// InstalledPolicy is a ValidatingAdmissionPolicy found in the cluster.
type InstalledPolicy struct {
	Name        string
	Labels      map[string]string
	Annotations map[string]string
}

// InstalledBinding is a ValidatingAdmissionPolicyBinding found in the
// cluster.
type InstalledBinding struct {
	Name       string
	PolicyName string
	Actions    []string
	// Labels are its labels: a native gpuwise binding's rules
	// (RuleLabel).
	Labels map[string]string
	// Params is the binding's paramRef, nil without one; a native gpuwise
	// binding names itself.
	Params *ParamRef
}

// ParamRef names a binding's parameter object (Namespace "" for a
// cluster-scoped one).
type ParamRef struct{ Namespace, Name string }

func (p ParamRef) String() string {
	if p.Namespace == "" {
		return p.Name
	}
	return p.Namespace + "/" + p.Name
}

// self reports whether the binding is its own params (the native engine's
// bindings): its rules are its labels.
func (b InstalledBinding) self() bool {
	return b.Params != nil && b.Params.Namespace == "" && b.Params.Name == b.Name
}

// Installed is the cluster's validating admission policies and bindings.
type Installed struct {
	Policies []InstalledPolicy
	Bindings []InstalledBinding
}

// Status is how a rule is enforced in the cluster.
type Status string

// Statuses, from the bindings of the rule's pod policy.
const (
	// StatusDeny: a binding denies violating pods: the rule is enforced.
	StatusDeny Status = "deny"
	// StatusWarn: bindings warn (and may audit) but admit.
	StatusWarn Status = "warn"
	// StatusAudit: bindings only write audit annotations.
	StatusAudit Status = "audit"
	// StatusUnbound: the policy is installed without a binding: inert.
	StatusUnbound Status = "unbound"
	// StatusAbsent: no gpuwise policy for the rule.
	StatusAbsent Status = "absent"
	// StatusUnknown: the policies were not read (a snapshot or demo source,
	// or the reads were refused).
	StatusUnknown Status = "unknown"
)

// RuleState is one rule's enforcement and what enforcing it would block.
type RuleState struct {
	Rule      string `json:"rule"`
	AuditRule string `json:"audit_rule,omitempty"`
	Status    Status `json:"status"`
	// Enforced is Status == deny.
	Enforced bool `json:"enforced"`
	// Policies are the installed policies for the rule (pods first).
	Policies []string `json:"policies,omitempty"`
	// Actions are the validationActions of the pod policy's bindings.
	Actions []string `json:"validation_actions,omitempty"`
	// WouldBlock is what the rule refuses among the window's pods; nil
	// when the rule is disabled in the settings.
	WouldBlock *Blocked `json:"would_block,omitempty"`
}

// Enforcement is the admission section of the audit.
type Enforcement struct {
	Rules []RuleState `json:"rules"`
	Notes []string    `json:"notes,omitempty"`
}

// Enforce reports, per rule, the status of its gpuwise pod policy in inst
// (nil: unknown) beside what the rule would block.
func Enforce(inst *Installed, blocked map[string]*Blocked) *Enforcement {
	e := &Enforcement{}
	if inst != nil {
		e.Notes = inst.foreignParams()
	}
	for _, r := range Rules {
		st := RuleState{Rule: r.Name, AuditRule: r.Audit, Status: StatusUnknown, WouldBlock: blocked[r.Name]}
		if inst != nil {
			st.Policies, st.Actions, st.Status = inst.state(r)
		}
		st.Enforced = st.Status == StatusDeny
		e.Rules = append(e.Rules, st)
	}
	return e
}

// state reads one rule from the installed objects.
func (inst *Installed) state(r Rule) (policies, actions []string, st Status) {
	pod := ""
	for _, p := range inst.Policies {
		if p.Labels[LabelManagedBy] != ManagedBy || !holds(p, r) {
			continue
		}
		policies = append(policies, p.Name)
		if shape := p.Labels[LabelShape]; shape == ShapePods || shape == "" {
			pod = p.Name
		}
	}
	slices.SortFunc(policies, func(a, b string) int {
		switch {
		case a == pod:
			return -1
		case b == pod:
			return 1
		}
		return strings.Compare(a, b)
	})
	if pod == "" {
		return policies, nil, StatusAbsent
	}
	actions, unread := inst.actions(pod, r)
	switch {
	case slices.Contains(actions, "Deny"):
		st = StatusDeny
	case unread:
		st = StatusUnknown
	case slices.Contains(actions, "Warn"):
		st = StatusWarn
	case slices.Contains(actions, "Audit"):
		st = StatusAudit
	default: // no binding checks the rule (validationActions cannot be empty)
		st = StatusUnbound
	}
	return policies, actions, st
}

// holds reports whether a gpuwise policy checks the rule: a per-rule
// policy's label names it; a native policy holding every rule lists it
// in its annotation.
func holds(p InstalledPolicy, r Rule) bool {
	if p.Labels[LabelRule] == r.Name {
		return true
	}
	return slices.Contains(strings.Split(p.Annotations[annotationRules], ","), r.Name)
}

// actions are the sorted validationActions of the policy's bindings that
// check the rule: every binding without params, and those that are their
// own params and carry the rule's label. unread: a binding reads its
// rules from another object (a ConfigMap, as gpuwise bindings did before
// they were their own params), which the audit does not read.
func (inst *Installed) actions(policy string, r Rule) (actions []string, unread bool) {
	for _, b := range inst.Bindings {
		if b.PolicyName != policy {
			continue
		}
		if b.Params != nil && !b.self() {
			unread = true
			continue
		}
		if _, on := b.Labels[RuleLabel(r.Name)]; b.Params != nil && !on {
			continue
		}
		actions = append(actions, b.Actions...)
	}
	slices.Sort(actions)
	return slices.Compact(actions), unread
}

// foreignParams notes each binding of a gpuwise policy whose params are
// another object: the rules it decides read unknown.
func (inst *Installed) foreignParams() []string {
	ours := map[string]bool{}
	for _, p := range inst.Policies {
		ours[p.Name] = p.Labels[LabelManagedBy] == ManagedBy
	}
	var out []string
	for _, b := range inst.Bindings {
		if ours[b.PolicyName] && b.Params != nil && !b.self() {
			out = append(out, "binding "+b.Name+" reads its rules from "+b.Params.String()+
				", which the audit does not read: its rules' status is unknown; re-apply `gpuwise generate policy` (each binding is then its own params)")
		}
	}
	return out
}
