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
	// Params is the binding's paramRef (a gpuwise mode ConfigMap), nil
	// without one.
	Params *ParamRef
}

// ParamRef names a binding's parameter object.
type ParamRef struct{ Namespace, Name string }

func (p ParamRef) String() string { return p.Namespace + "/" + p.Name }

// Installed is the cluster's validating admission policies and bindings,
// and the keys of the mode ConfigMaps their gpuwise bindings read.
type Installed struct {
	Policies []InstalledPolicy
	Bindings []InstalledBinding
	// Params holds, per ParamRef.String(), the keys of the ConfigMap (its
	// rules); a ref absent from the map was not found or not read.
	Params map[string][]string
	// Unread are the refs whose ConfigMap could not be read (RBAC): the
	// rules that depend on them have an unknown status.
	Unread []string
}

// ParamRefs are the parameter objects the gpuwise policies' bindings
// read, sorted and unique: what the audit must get to know each rule's
// mode.
func (inst *Installed) ParamRefs() []ParamRef {
	ours := map[string]bool{}
	for _, p := range inst.Policies {
		if p.Labels[LabelManagedBy] == ManagedBy {
			ours[p.Name] = true
		}
	}
	var out []ParamRef
	for _, b := range inst.Bindings {
		if b.Params != nil && ours[b.PolicyName] && !slices.Contains(out, *b.Params) {
			out = append(out, *b.Params)
		}
	}
	slices.SortFunc(out, func(a, b ParamRef) int { return strings.Compare(a.String(), b.String()) })
	return out
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
// check the rule: every binding without params, and those whose mode
// ConfigMap lists it. unread: a binding's ConfigMap could not be read.
func (inst *Installed) actions(policy string, r Rule) (actions []string, unread bool) {
	for _, b := range inst.Bindings {
		if b.PolicyName != policy {
			continue
		}
		if b.Params != nil {
			ref := b.Params.String()
			if slices.Contains(inst.Unread, ref) {
				unread = true
				continue
			}
			if !slices.Contains(inst.Params[ref], r.Name) {
				continue
			}
		}
		actions = append(actions, b.Actions...)
	}
	slices.Sort(actions)
	return slices.Compact(actions), unread
}
