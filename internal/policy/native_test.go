package policy

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// Rules sharing a variable name (spec, containers, gpuContainers,
// tolerated…) define it alike, so the merged native policy may keep one.
func TestMergedVariablesAgree(t *testing.T) {
	t.Parallel()
	for _, native := range []bool{false, true} {
		for _, sh := range []shape{podShape, workloadShape, cronJobShape} {
			if c := (gen{s: Defaults(), native: native}).variableClashes(sh); len(c) > 0 {
				t.Errorf("%s (native %v): variables defined differently: %v", sh.name(), native, c)
			}
		}
	}
}

// The pods policy holds every enabled rule once, each validation guarded
// by its rule's label on the binding (its params) and its message naming the
// rule; each variable is defined once.
func TestNativePodPolicyHoldsEveryRule(t *testing.T) {
	t.Parallel()
	s := Defaults()
	vars, vals := gen{s: s, native: true}.merged(podShape, s.nativeRules(podShape))
	if len(vals) != len(Rules) {
		t.Fatalf("%d validations, want %d", len(vals), len(Rules))
	}
	for i, r := range Rules {
		guard := "!('" + RuleLabelPrefix + r.Name + "' in variables.rules) || ("
		if !strings.HasPrefix(vals[i].Expression, guard) || !strings.HasPrefix(vals[i].Message, "gpuwise "+r.label()+":") {
			t.Errorf("validation %d: %q / %q; want guarded by and naming %s", i, vals[i].Expression, vals[i].Message, r.label())
		}
	}
	// The API server evaluates every messageExpression on every admitted
	// request: the native ones derive nothing from the containers.
	for _, v := range vals {
		rest := strings.ReplaceAll(v.MessageExpression, "variables.maxGPUs", "")
		if strings.Contains(rest, "variables.") || strings.Contains(rest, "object.spec") {
			t.Errorf("messageExpression %q derives from the containers", v.MessageExpression)
		}
	}
	seen := map[string]bool{}
	for _, v := range vars {
		if seen[v.Name] {
			t.Errorf("variable %s defined twice", v.Name)
		}
		seen[v.Name] = true
	}
}

// Each binding is its own params and carries the labels of the rules in
// its mode, the same on every shape's binding of that mode; no ConfigMap
// is generated.
func TestNativeModesAndBindings(t *testing.T) {
	t.Parallel()
	s := Defaults()
	s.Rules = map[string]RuleSettings{RuleLimits.Name: {Mode: Deny}, RuleLabels.Name: {Disabled: true}}
	out, err := Generate(s, Options{Engine: Native})
	if err != nil {
		t.Fatal(err)
	}
	bindings := map[string]string{}
	for _, a := range out.Artefacts {
		for _, o := range a.Objects {
			switch o.Kind {
			case "ConfigMap":
				t.Errorf("ConfigMap %s generated", o.Metadata.Name)
			case "ValidatingAdmissionPolicy":
				if pk := o.Spec.(vapSpec).ParamKind; pk == nil || *pk != (paramKind{admissionV1, "ValidatingAdmissionPolicyBinding"}) {
					t.Errorf("%s: paramKind %v, want the bindings", o.Metadata.Name, pk)
				}
			case "ValidatingAdmissionPolicyBinding":
				spec := o.Spec.(vapBindingSpec)
				var rules []string
				for k, v := range o.Metadata.Labels {
					if r, ok := strings.CutPrefix(k, RuleLabelPrefix); ok && v == "true" {
						rules = append(rules, r)
					}
				}
				slices.Sort(rules)
				bindings[o.Metadata.Name] = spec.ParamRef.Namespace + "/" + spec.ParamRef.Name + " " + o.Metadata.Labels[LabelMode] + " " +
					strings.Join(spec.ValidationActions, ",") + " " + strings.Join(rules, ",")
			}
		}
	}
	warn := []string{RuleToleration.Name, RuleMaxGPUs.Name, RuleNonGPUToleration.Name, RuleDevWholeGPU.Name}
	slices.Sort(warn)
	wantB := map[string]string{}
	for _, sh := range []string{"pods", "workloads", "cronjobs", ShapeClaims, ShapeClaimTemplates} {
		wantB["gpuwise-"+sh+"-warn"] = "/gpuwise-" + sh + "-warn warn Warn,Audit " + strings.Join(warn, ",")
		wantB["gpuwise-"+sh+"-deny"] = "/gpuwise-" + sh + "-deny deny Deny " + RuleLimits.Name
	}
	if diff := cmp.Diff(wantB, bindings); diff != "" {
		t.Errorf("bindings: paramRef mode actions rules (-want +got):\n%s", diff)
	}
}

// rollout.sh moves rule labels between the modes' bindings: added to the
// new mode's first, then removed from the old one's; an unknown rule is
// refused before any kubectl call.
func TestNativeRolloutScript(t *testing.T) {
	t.Parallel()
	out, err := Generate(Defaults(), Options{Engine: Native})
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	script := filepath.Join(dir, "rollout.sh")
	log := filepath.Join(dir, "calls")
	fake := "#!/bin/sh\nfor a in \"$@\"; do printf '%s|' \"$a\" >> " + log + "; done\necho >> " + log + "\n"
	if err := os.WriteFile(script, []byte(out.Rollout), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "kubectl"), []byte(fake), 0o755); err != nil {
		t.Fatal(err)
	}
	run := func(args ...string) (string, error) {
		os.Remove(log)
		cmd := exec.Command("sh", append([]string{script}, args...)...)
		cmd.Env = append(os.Environ(), "PATH="+dir+":"+os.Getenv("PATH"))
		if b, err := cmd.CombinedOutput(); err != nil {
			return string(b), err
		}
		b, _ := os.ReadFile(log)
		return string(b), nil
	}
	got, err := run("deny", "gpu-container-limits")
	if err != nil {
		t.Fatalf("rollout.sh deny gpu-container-limits: %v: %s", err, got)
	}
	sel := "validatingadmissionpolicybindings|-l|app.kubernetes.io/managed-by=gpuwise,gpuwise.io/mode="
	want := "label|" + sel + "deny|--overwrite|rules.gpuwise.io/gpu-container-limits=true|\n" +
		"label|" + sel + "warn|rules.gpuwise.io/gpu-container-limits-|\n"
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("kubectl calls (-want +got):\n%s", diff)
	}
	got, err = run("warn")
	if err != nil || strings.Count(got, "\n") != 2 ||
		!strings.HasPrefix(got, "label|"+sel+"warn|--overwrite|rules.gpuwise.io/non-gpu-pod-tolerates-gpu-taint=true|rules.gpuwise.io/gpu-container-limits=true|") ||
		!strings.Contains(got, "\nlabel|"+sel+"deny|rules.gpuwise.io/non-gpu-pod-tolerates-gpu-taint-|") || !strings.Contains(got, "|rules.gpuwise.io/max-gpus-per-pod-|\n") {
		t.Errorf("rollout.sh warn: %v; calls:\n%s", err, got)
	}
	if got, err := run("deny", "no-such-rule"); err == nil || !strings.Contains(got, "no rule no-such-rule") {
		t.Errorf("unknown rule: %v, %q; want refused", err, got)
	}
}
