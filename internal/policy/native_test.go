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
	for _, sh := range []shape{podShape, workloadShape, cronJobShape} {
		if c := (gen{Defaults()}).variableClashes(sh); len(c) > 0 {
			t.Errorf("%s: variables defined differently: %v", sh.name(), c)
		}
	}
}

// The pods policy holds every enabled rule once, each validation guarded
// by its rule's key in the binding's ConfigMap and its message naming the
// rule; each variable is defined once.
func TestNativePodPolicyHoldsEveryRule(t *testing.T) {
	t.Parallel()
	s := Defaults()
	vars, vals := gen{s}.merged(podShape, s.nativeRules(podShape))
	if len(vals) != len(Rules) {
		t.Fatalf("%d validations, want %d", len(vals), len(Rules))
	}
	for i, r := range Rules {
		guard := "!('" + r.Name + "' in variables.rules) || ("
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

// Each rule sits in the ConfigMap of its mode, and both bindings of every
// shape read theirs.
func TestNativeModesAndBindings(t *testing.T) {
	t.Parallel()
	s := Defaults()
	s.Rules = map[string]RuleSettings{RuleLimits.Name: {Mode: Deny}, RuleLabels.Name: {Disabled: true}}
	out, err := Generate(s, Options{Engine: Native})
	if err != nil {
		t.Fatal(err)
	}
	keys := map[string][]string{}
	bindings := map[string]string{}
	for _, a := range out.Artefacts {
		for _, o := range a.Objects {
			switch o.Kind {
			case "ConfigMap":
				for k := range o.Data {
					keys[o.Metadata.Name] = append(keys[o.Metadata.Name], k)
				}
			case "ValidatingAdmissionPolicyBinding":
				spec := o.Spec.(vapBindingSpec)
				bindings[o.Metadata.Name] = spec.ParamRef.String() + " " + strings.Join(spec.ValidationActions, ",")
			}
		}
	}
	for _, v := range keys {
		slices.Sort(v)
	}
	want := map[string][]string{
		"gpuwise-rules-warn": {RuleToleration.Name, RuleMaxGPUs.Name, RuleNonGPUToleration.Name, RuleDevWholeGPU.Name},
		"gpuwise-rules-deny": {RuleLimits.Name},
	}
	for _, v := range want {
		slices.Sort(v)
	}
	if diff := cmp.Diff(want, keys); diff != "" {
		t.Errorf("mode ConfigMaps (-want +got):\n%s", diff)
	}
	wantB := map[string]string{}
	for _, sh := range []string{"pods", "workloads", "cronjobs"} {
		wantB["gpuwise-"+sh+"-warn"] = "kube-system/gpuwise-rules-warn Warn,Audit"
		wantB["gpuwise-"+sh+"-deny"] = "kube-system/gpuwise-rules-deny Deny"
	}
	if diff := cmp.Diff(wantB, bindings); diff != "" {
		t.Errorf("bindings (-want +got):\n%s", diff)
	}
}

func (p *paramRef) String() string { return p.Namespace + "/" + p.Name }

// rollout.sh moves rules between the mode ConfigMaps: added to the new
// mode's first, then removed from the old one's; an unknown rule is
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
	want := "-n|kube-system|patch|configmap|gpuwise-rules-deny|--type=merge|-p|{\"data\":{\"gpu-container-limits\":\"enabled\"}}|\n" +
		"-n|kube-system|patch|configmap|gpuwise-rules-warn|--type=merge|-p|{\"data\":{\"gpu-container-limits\":null}}|\n"
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("kubectl calls (-want +got):\n%s", diff)
	}
	got, err = run("warn")
	if err != nil || strings.Count(got, "\n") != 2 || !strings.Contains(got, "gpuwise-rules-warn|--type=merge|-p|{\"data\":{\"non-gpu-pod-tolerates-gpu-taint\":\"enabled\",\"gpu-container-limits\":\"enabled\",") ||
		!strings.Contains(got, "\"max-gpus-per-pod\":null}}") {
		t.Errorf("rollout.sh warn: %v; calls:\n%s", err, got)
	}
	if got, err := run("deny", "no-such-rule"); err == nil || !strings.Contains(got, "no rule no-such-rule") {
		t.Errorf("unknown rule: %v, %q; want refused", err, got)
	}
}
