package policy

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/gpuwise/gpuwise/internal/cluster"
)

// What the claim policies refuse, decided in Go on a snapshot's claims
// and templates as the CEL decides it on the API server (the kube tier's
// checkClaims has the same cases): a whole-GPU class in a dev namespace,
// more GPU devices than the namespace's cap (All: more than any), other
// classes and exempt namespaces never.
func TestEvaluateClaims(t *testing.T) {
	t.Parallel()
	req := func(class string, n int64) cluster.DeviceRequest {
		return cluster.DeviceRequest{Name: "r", DeviceClass: class, Count: n}
	}
	dra := &cluster.DRAInfo{
		Claims: []cluster.ResourceClaim{
			{Namespace: "dev-x", Name: "nb", Requests: []cluster.DeviceRequest{req(cluster.DRAGPUClass, 1)}},
			{Namespace: "dev-x", Name: "mig", Requests: []cluster.DeviceRequest{req(cluster.DRAMIGClass, 1)}},
			{Namespace: "ml", Name: "big", Requests: []cluster.DeviceRequest{req(cluster.DRAGPUClass, 5), req(cluster.DRAMIGClass, 4)}},
			{Namespace: "ml", Name: "eight", Requests: []cluster.DeviceRequest{req(cluster.DRAGPUClass, 8)}},
			{Namespace: "ml", Name: "all", Requests: []cluster.DeviceRequest{{Name: "r", DeviceClass: cluster.DRAGPUClass, All: true}}},
			{Namespace: "ml", Name: "nic", Requests: []cluster.DeviceRequest{req("nic.example.com", 20)}},
			{Namespace: "kube-system", Name: "sys", Requests: []cluster.DeviceRequest{req(cluster.DRAGPUClass, 20)}},
		},
		Templates: []cluster.ClaimTemplate{{Namespace: "dev-x", Name: "tmpl", Requests: []cluster.DeviceRequest{req(cluster.DRAGPUClass, 1)}}},
	}
	got := Defaults().EvaluateClaims(dra)
	want := map[string][]string{
		RuleDevWholeGPU.Name: {"ResourceClaim dev-x/nb", "ResourceClaimTemplate dev-x/tmpl"},
		RuleMaxGPUs.Name:     {"ResourceClaim ml/all", "ResourceClaim ml/big"},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("refused (-want +got):\n%s", diff)
	}
	s := Defaults()
	s.Rules = map[string]RuleSettings{RuleMaxGPUs.Name: {Disabled: true}}
	if got := s.EvaluateClaims(dra); len(got[RuleMaxGPUs.Name]) != 0 {
		t.Errorf("a disabled rule refuses %v", got[RuleMaxGPUs.Name])
	}
	notes := Preview(Defaults(), &cluster.Snapshot{DRA: dra})
	if len(notes) != 2 || !strings.Contains(notes[0], "would refuse 2 ResourceClaim(s) or template(s)") {
		t.Errorf("preview %q", notes)
	}
}

// Kyverno (both forms) and Gatekeeper get, for each rule that applies to
// claims and each claim shape, one policy holding exactly the claim CEL
// the native claim policies are built from (claimProgram: one source of
// each rule's CEL, the same with or without the native flag), matching
// that kind on CREATE outside the exempt namespaces, in the rule's mode,
// with Kyverno's autogen off; the other rules get none.
func TestEngineClaimPolicies(t *testing.T) {
	t.Parallel()
	s := Defaults()
	s.Rules = map[string]RuleSettings{RuleMaxGPUs.Name: {Mode: Deny}}
	exempt := s.exemptSelector().MatchExpressions[0].Values
	for _, sh := range claimShapes {
		for _, r := range claimRules {
			if diff := cmp.Diff((gen{s: s, native: true}).claimProgram(r, sh), (gen{s: s}).claimProgram(r, sh), cmp.AllowUnexported(program{}, Validation{})); diff != "" {
				t.Errorf("%s %s: native and engine claim CEL differ:\n%s", r.Name, sh.name(), diff)
			}
		}
	}
	type found struct {
		prog program
		obj  Object
		spec any
	}
	for _, o := range []Options{{Engine: Kyverno}, {Engine: Kyverno, KyvernoLegacy: true}, {Engine: Gatekeeper}} {
		out, err := Generate(s, o)
		if err != nil {
			t.Fatal(err)
		}
		got := map[string]found{} // "rule shape" -> policy
		for _, a := range out.Artefacts {
			for i, obj := range a.Objects {
				sh := obj.Metadata.Labels[LabelShape]
				if sh != ShapeClaims && sh != ShapeClaimTemplates || obj.Kind == "ConstraintTemplate" {
					continue
				}
				key := obj.Metadata.Labels[LabelRule] + " " + sh
				switch spec := obj.Spec.(type) {
				case vpolSpec:
					got[key] = found{program{spec.Variables, spec.Validations}, obj, spec}
				case clusterPolicySpec:
					cel := spec.Rules[0].Validate.CEL
					got[key] = found{program{cel.Variables, cel.Expressions}, obj, spec}
				case constraintSpec:
					src := a.Objects[i-1].Spec.(templateSpec).Targets[0].Code[0].Source
					got[key] = found{program{src.Variables, src.Validations}, obj, spec}
				}
			}
		}
		if len(got) != len(claimRules)*len(claimShapes) {
			t.Errorf("%+v: %d claim policies, want %d: %v", o, len(got), len(claimRules)*len(claimShapes), got)
		}
		for _, r := range claimRules {
			for _, sh := range claimShapes {
				f, ok := got[r.Name+" "+sh.name()]
				if !ok {
					t.Errorf("%+v: no %s policy for %s", o, sh.name(), r.Name)
					continue
				}
				if diff := cmp.Diff((gen{s: s}).claimProgram(r, sh), f.prog, cmp.AllowUnexported(program{}, Validation{})); diff != "" {
					t.Errorf("%+v %s %s: CEL (-native claim program +engine):\n%s", o, r.Name, sh.name(), diff)
				}
				deny := s.ModeOf(r.Name) == Deny
				_, kind := sh.kind()
				switch spec := f.spec.(type) {
				case vpolSpec:
					m := spec.MatchConstraints
					if !cmp.Equal(m.ResourceRules, []resourceRule{{APIGroups: []string{"resource.k8s.io"}, APIVersions: []string{"v1"}, Operations: []string{"CREATE"}, Resources: []string{sh.name()}}}) ||
						!cmp.Equal(m.NamespaceSelector.MatchExpressions[0].Values, exempt) {
						t.Errorf("%s %s: match %+v", r.Name, sh.name(), m)
					}
					if spec.Autogen == nil || len(spec.Autogen.PodControllers.Controllers) != 0 {
						t.Errorf("%s %s: autogen %+v, want no pod controllers", r.Name, sh.name(), spec.Autogen)
					}
					if deny != cmp.Equal(spec.ValidationActions, []string{"Deny"}) {
						t.Errorf("%s %s: actions %v in mode %s", r.Name, sh.name(), spec.ValidationActions, s.ModeOf(r.Name))
					}
				case clusterPolicySpec:
					kr := spec.Rules[0]
					if !cmp.Equal(kr.Match.Any[0].Resources, kyvernoResources{Kinds: []string{"resource.k8s.io/v1/" + kind}, Operations: []string{"CREATE"}}) ||
						!cmp.Equal(kr.Exclude.Any[0].Resources.Namespaces, exempt) {
						t.Errorf("%s %s: match %+v exclude %+v", r.Name, sh.name(), kr.Match, kr.Exclude)
					}
					if f.obj.Metadata.Annotations["pod-policies.kyverno.io/autogen-controllers"] != "none" {
						t.Errorf("%s %s: autogen on", r.Name, sh.name())
					}
					if deny != (kr.Validate.FailureAction == "Enforce") {
						t.Errorf("%s %s: failureAction %s in mode %s", r.Name, sh.name(), kr.Validate.FailureAction, s.ModeOf(r.Name))
					}
				case constraintSpec:
					if !cmp.Equal(spec.Match, constraintMatch{Kinds: []constraintKinds{{APIGroups: []string{"resource.k8s.io"}, Kinds: []string{kind}}}, ExcludedNamespaces: exempt}) {
						t.Errorf("%s %s: match %+v", r.Name, sh.name(), spec.Match)
					}
					if deny != (spec.EnforcementAction == "deny") {
						t.Errorf("%s %s: enforcementAction %s in mode %s", r.Name, sh.name(), spec.EnforcementAction, s.ModeOf(r.Name))
					}
				}
			}
		}
	}
	// A disabled claim rule has no claim policy; nor has a pod-only rule.
	s.Rules = map[string]RuleSettings{RuleDevWholeGPU.Name: {Disabled: true}}
	out, err := Generate(s, Options{Engine: Gatekeeper})
	if err != nil {
		t.Fatal(err)
	}
	for _, a := range out.Artefacts {
		for _, obj := range a.Objects {
			if sh := obj.Metadata.Labels[LabelShape]; sh != ShapePods && obj.Metadata.Labels[LabelRule] != RuleMaxGPUs.Name {
				t.Errorf("%s %s for rule %s on %s", obj.Kind, obj.Metadata.Name, obj.Metadata.Labels[LabelRule], sh)
			}
		}
	}
}
