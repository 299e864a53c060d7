package policy

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/gpuwise/gpuwise/internal/cluster"
)

func installedPolicy(name, rule, shape string) InstalledPolicy {
	return InstalledPolicy{Name: name, Labels: map[string]string{LabelManagedBy: ManagedBy, LabelRule: rule, LabelShape: shape}}
}

func TestEnforceReadsEachRuleFromItsPodPolicy(t *testing.T) {
	t.Parallel()
	inst := &Installed{
		Policies: []InstalledPolicy{
			installedPolicy("gpuwise-gw003-gpu-container-limits", RuleLimits.Name, ShapePods),
			installedPolicy("gpuwise-gw003-gpu-container-limits-workloads", RuleLimits.Name, ShapeWorkloads),
			installedPolicy("gpuwise-gw002-non-gpu-pod-tolerates-gpu-taint", RuleNonGPUToleration.Name, ShapePods),
			installedPolicy("gpuwise-gw004-gpu-pod-toleration", RuleToleration.Name, ShapePods),
			// Only the workload policy: the pods are not covered.
			installedPolicy("gpuwise-gw006-whole-gpu-in-dev-namespace-workloads", RuleDevWholeGPU.Name, ShapeWorkloads),
			// Someone else's policy with gpuwise's rule label is not ours.
			{Name: "team-labels", Labels: map[string]string{LabelRule: RuleLabels.Name}},
			installedPolicy("gpuwise-max-gpus-per-pod", RuleMaxGPUs.Name, ShapePods),
		},
		Bindings: []InstalledBinding{
			{Name: "a", PolicyName: "gpuwise-gw003-gpu-container-limits", Actions: []string{"Warn", "Audit"}},
			{Name: "b", PolicyName: "gpuwise-gw003-gpu-container-limits", Actions: []string{"Deny"}},
			{Name: "c", PolicyName: "gpuwise-gw002-non-gpu-pod-tolerates-gpu-taint", Actions: []string{"Warn", "Audit"}},
			{Name: "d", PolicyName: "gpuwise-gw004-gpu-pod-toleration", Actions: []string{"Audit"}},
			{Name: "e", PolicyName: "gpuwise-gw006-whole-gpu-in-dev-namespace-workloads", Actions: []string{"Deny"}},
		},
	}
	blocked := map[string]*Blocked{RuleLimits.Name: {Pods: 3, Workloads: []string{"ml/Deployment/a"}}}
	e := Enforce(inst, blocked)
	type row struct {
		Rule     string
		Status   Status
		Enforced bool
		Policies []string
		Actions  []string
		Blocked  *Blocked
	}
	var got []row
	for _, r := range e.Rules {
		got = append(got, row{r.Rule, r.Status, r.Enforced, r.Policies, r.Actions, r.WouldBlock})
	}
	want := []row{
		{RuleNonGPUToleration.Name, StatusWarn, false, []string{"gpuwise-gw002-non-gpu-pod-tolerates-gpu-taint"}, []string{"Audit", "Warn"}, nil},
		{RuleLimits.Name, StatusDeny, true, []string{"gpuwise-gw003-gpu-container-limits", "gpuwise-gw003-gpu-container-limits-workloads"},
			[]string{"Audit", "Deny", "Warn"}, blocked[RuleLimits.Name]},
		{RuleToleration.Name, StatusAudit, false, []string{"gpuwise-gw004-gpu-pod-toleration"}, []string{"Audit"}, nil},
		{RuleDevWholeGPU.Name, StatusAbsent, false, []string{"gpuwise-gw006-whole-gpu-in-dev-namespace-workloads"}, nil, nil},
		{RuleLabels.Name, StatusAbsent, false, nil, nil, nil},
		{RuleMaxGPUs.Name, StatusUnbound, false, []string{"gpuwise-max-gpus-per-pod"}, nil, nil},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("rule states (-want +got):\n%s", diff)
	}
}

func TestEnforceWithoutTheClusterIsUnknown(t *testing.T) {
	t.Parallel()
	for _, r := range Enforce(nil, nil).Rules {
		if r.Status != StatusUnknown || r.Enforced {
			t.Errorf("%s: %s, enforced %v", r.Rule, r.Status, r.Enforced)
		}
	}
}

func TestTaintTolerates(t *testing.T) {
	t.Parallel()
	anyValue := Taint{Key: "nvidia.com/gpu", Effect: "NoSchedule"}
	present := Taint{Key: "nvidia.com/gpu", Value: "present", Effect: "NoSchedule"}
	for _, tc := range []struct {
		name     string
		taint    Taint
		tol      cluster.Toleration
		tolerate bool
	}{
		{"exists on the key", anyValue, cluster.Toleration{Key: "nvidia.com/gpu", Operator: "Exists", Effect: "NoSchedule"}, true},
		{"any effect", anyValue, cluster.Toleration{Key: "nvidia.com/gpu", Operator: "Exists"}, true},
		{"another effect", anyValue, cluster.Toleration{Key: "nvidia.com/gpu", Operator: "Exists", Effect: "NoExecute"}, false},
		{"blanket", anyValue, cluster.Toleration{Operator: "Exists"}, true},
		{"empty key needs Exists", anyValue, cluster.Toleration{Operator: "Equal"}, false},
		{"another key", anyValue, cluster.Toleration{Key: "dedicated", Operator: "Exists"}, false},
		{"equal, any value accepted", anyValue, cluster.Toleration{Key: "nvidia.com/gpu", Value: "true"}, true},
		{"equal, the value", present, cluster.Toleration{Key: "nvidia.com/gpu", Operator: "Equal", Value: "present"}, true},
		{"equal, another value", present, cluster.Toleration{Key: "nvidia.com/gpu", Operator: "Equal", Value: "true"}, false},
		{"exists, any value", present, cluster.Toleration{Key: "nvidia.com/gpu", Operator: "Exists"}, true},
	} {
		if got := tc.taint.Tolerates(tc.tol); got != tc.tolerate {
			t.Errorf("%s: tolerates %v, want %v", tc.name, got, tc.tolerate)
		}
	}
}

// The native policy holding every rule: a rule's status is the actions of
// the bindings that are their own params and carry its label; a binding
// whose params are another object (an older install's ConfigMap) leaves
// the rules unknown, with a note naming it.
func TestEnforceReadsTheBindingLabels(t *testing.T) {
	t.Parallel()
	all := strings.Join(RuleNames(), ",")
	pods := InstalledPolicy{Name: "gpuwise-pods", Labels: map[string]string{LabelManagedBy: ManagedBy, LabelShape: ShapePods},
		Annotations: map[string]string{annotationRules: all}}
	work := InstalledPolicy{Name: "gpuwise-workloads", Labels: map[string]string{LabelManagedBy: ManagedBy, LabelShape: ShapeWorkloads},
		Annotations: map[string]string{annotationRules: all}}
	on := func(rules ...Rule) map[string]string {
		m := map[string]string{LabelManagedBy: ManagedBy}
		for _, r := range rules {
			m[RuleLabel(r.Name)] = "true"
		}
		return m
	}
	self := func(n string) *ParamRef { return &ParamRef{Name: n} }
	inst := &Installed{
		Policies: []InstalledPolicy{work, pods, {Name: "other", Labels: map[string]string{}}},
		Bindings: []InstalledBinding{
			{Name: "gpuwise-pods-warn", PolicyName: "gpuwise-pods", Actions: []string{"Warn", "Audit"}, Params: self("gpuwise-pods-warn"),
				Labels: on(RuleNonGPUToleration, RuleLimits)},
			{Name: "gpuwise-pods-deny", PolicyName: "gpuwise-pods", Actions: []string{"Deny"}, Params: self("gpuwise-pods-deny"),
				Labels: on(RuleLimits, RuleToleration)},
			{Name: "gpuwise-workloads-deny", PolicyName: "gpuwise-workloads", Actions: []string{"Deny"}, Params: self("gpuwise-workloads-deny"),
				Labels: on(RuleLimits, RuleToleration)},
			{Name: "other", PolicyName: "other", Actions: []string{"Deny"}, Params: &ParamRef{"team", "secret-params"}},
		},
	}
	statuses := func() (map[string]Status, []string) {
		got := map[string]Status{}
		e := Enforce(inst, nil)
		for _, r := range e.Rules {
			got[r.Rule] = r.Status
			if r.Status != StatusAbsent && (len(r.Policies) != 2 || r.Policies[0] != "gpuwise-pods") {
				t.Errorf("%s: policies %v, want the pods policy first", r.Rule, r.Policies)
			}
		}
		return got, e.Notes
	}
	got, notes := statuses()
	want := map[string]Status{RuleNonGPUToleration.Name: StatusWarn, RuleLimits.Name: StatusDeny, RuleToleration.Name: StatusDeny,
		RuleDevWholeGPU.Name: StatusUnbound, RuleLabels.Name: StatusUnbound, RuleMaxGPUs.Name: StatusUnbound}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("statuses (-want +got):\n%s", diff)
	}
	if len(notes) != 0 {
		t.Errorf("notes %v, want none (the other policy's params are not gpuwise's)", notes)
	}
	// The warn binding of an older install reads a ConfigMap: unknown
	// unless another binding denies already.
	inst.Bindings[0].Params, inst.Bindings[0].Labels = &ParamRef{"kube-system", "gpuwise-rules-warn"}, nil
	got, notes = statuses()
	if got[RuleLimits.Name] != StatusDeny || got[RuleNonGPUToleration.Name] != StatusUnknown {
		t.Errorf("with the warn binding reading a ConfigMap: %v", got)
	}
	if len(notes) != 1 || !strings.Contains(notes[0], "binding gpuwise-pods-warn reads its rules from kube-system/gpuwise-rules-warn") {
		t.Errorf("notes %v, want one naming the binding and its ConfigMap", notes)
	}
}
