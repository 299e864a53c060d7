//go:build integration && kyverno

package kube

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// The kyverno CLI (built from a copy of its Go module by `make
// verify-kyverno`; too heavy for every CI run) decides the shared pod
// fixtures as their annotations say, with each form gpuwise writes:
// ValidatingPolicy, the legacy ClusterPolicy, and the native
// ValidatingAdmissionPolicy holding every rule, with its bindings (each its
// own params, the rules of its mode as labels) as params (pods only: the CLI applies every policy to
// every resource, whatever its matchConstraints, and it cannot read the
// namespace labels the exempt-namespace selector needs, so the kube-system
// fixture is left to the real API server there).
func TestKyvernoCLIOnTheSharedFixtures(t *testing.T) {
	kyverno := kyvernoCLI(t)
	settings := podsOnlySettings(t)
	for _, f := range kyvernoForms {
		t.Run(f.name, func(t *testing.T) {
			out := kyvernoApply(t, kyverno, f, settings, fixturePodsFile, func(string) bool { return true })
			checkFixtureVerdicts(t, "kyverno "+f.name, kyvernoFailures(t, out, "Pod"), f.native)
		})
	}
}

// The kyverno CLI decides the shared ResourceClaim and
// ResourceClaimTemplate fixtures as their annotations say (the verdicts
// gator and the real API server give), with each form gpuwise writes; the
// native form's claim policies only, and without the kube-system claims
// (the exempt-namespace selector reads namespace labels the CLI lacks).
// Before the claim CEL wrapped a request's count in int(), every GPU claim
// was an evaluation error here: the CLI reads the claim as untyped JSON.
func TestKyvernoCLIOnTheSharedClaimFixtures(t *testing.T) {
	kyverno := kyvernoCLI(t)
	for _, f := range kyvernoForms {
		t.Run(f.name, func(t *testing.T) {
			// Kyverno's policies of a rule share its file, each matching
			// its kind; the native form has a policy a shape, and the
			// CLI would apply the pods' to the claims too.
			keep := func(file string) bool { return !f.native || strings.Contains(filepath.Base(file), "resourceclaim") }
			out := kyvernoApply(t, kyverno, f, fixtureSettings, fixtureClaimsFile, keep)
			got := map[string][]string{}
			for _, kind := range []string{"ResourceClaim", "ResourceClaimTemplate"} {
				for k, rules := range kyvernoFailures(t, out, kind) {
					ns, _, _ := strings.Cut(k, "/")
					if f.native && ns == "kube-system" {
						continue
					}
					got[kind+" "+k] = rules
				}
			}
			want := fixtureClaims(t)
			if f.native {
				want = slices.DeleteFunc(want, func(o *unstructured.Unstructured) bool { return o.GetNamespace() == "kube-system" })
			}
			checkClaimVerdictsOf(t, "kyverno "+f.name, want, got)
		})
	}
}

// kyvernoForm is one form of policy gpuwise writes for Kyverno's CLI.
type kyvernoForm struct {
	name   string
	args   []string
	native bool // a ValidatingAdmissionPolicy: its bindings are its params
}

var kyvernoForms = []kyvernoForm{
	{"ValidatingPolicy", []string{"--engine", "kyverno"}, false},
	{"ClusterPolicy", []string{"--engine", "kyverno", "--kyverno-legacy"}, false},
	{"ValidatingAdmissionPolicy", []string{"--engine", "native"}, true},
}

// kyvernoCLI is the CLI `make verify-kyverno` built.
func kyvernoCLI(t *testing.T) string {
	t.Helper()
	kyverno := os.Getenv("GPUWISE_KYVERNO")
	if kyverno == "" {
		t.Fatal("GPUWISE_KYVERNO is unset: run `make verify-kyverno`, which builds the kyverno CLI")
	}
	return kyverno
}

// kyvernoApply generates a form's deny-mode policies with settings, keeps
// the files keep accepts, and runs `kyverno apply` of them on fixtures;
// an evaluation error fails the test (failurePolicy Fail would refuse the
// object).
func kyvernoApply(t *testing.T, kyverno string, f kyvernoForm, settings, fixtures string, keep func(string) bool) string {
	t.Helper()
	dir := filepath.Join(generatePolicies(t, append(f.args, "--mode", "deny", "--policy-settings", settings)...), "policy", f.args[1])
	files, _ := filepath.Glob(filepath.Join(dir, "*.yaml"))
	files = slices.DeleteFunc(files, func(f string) bool { return !keep(f) })
	if len(files) == 0 {
		t.Fatalf("no %s policy files under %s", f.name, dir)
	}
	args := append([]string{"apply"}, files...)
	if f.native {
		// The native bindings are their own params: the CLI matches a
		// paramRef by name among these objects.
		for _, f := range files {
			args = append(args, "--parameter-resource", f)
		}
	}
	args = append(args, "--resource", fixtures, "--continue-on-fail", "--remove-color")
	out, err := exec.Command(kyverno, args...).CombinedOutput()
	if ee, ok := err.(*exec.ExitError); err != nil && (!ok || ee.ExitCode() != 1) {
		t.Fatalf("kyverno apply: %v\n%s", err, out)
	}
	if !strings.Contains(string(out), "error: 0") {
		t.Errorf("kyverno reports evaluation errors:\n%s", out)
	}
	return string(out)
}

// kyvernoFailure is the CLI's line for a failed check (namespace, kind,
// name); kyvernoMessage the numbered lines after it, one per failed
// validation.
var (
	kyvernoFailure = regexp.MustCompile(`^policy (gpuwise-\S+) -> resource (\S+)/(\w+)/(\S+) failed:`)
	kyvernoMessage = regexp.MustCompile(`^\d+ - `)
)

// kyvernoFailures maps each refused object of a kind, "namespace/name", to
// its rules: a per-rule policy's from its name, the native policy holding
// every rule's from its messages.
func kyvernoFailures(t *testing.T, out, kind string) map[string][]string {
	t.Helper()
	got := map[string][]string{}
	pod, policy := "", ""
	for _, line := range strings.Split(out, "\n") {
		if m := kyvernoFailure.FindStringSubmatch(line); m != nil {
			pod, policy = "", ""
			if m[3] != kind {
				continue
			}
			pod, policy = m[2]+"/"+m[4], m[1]
			if !nativePolicies[policy] {
				got[pod] = append(got[pod], ruleOfPolicy(t, policy))
			}
			continue
		}
		if pod != "" && nativePolicies[policy] && kyvernoMessage.MatchString(line) {
			got[pod] = append(got[pod], rulesIn(line)...)
		}
	}
	return got
}

// nativePolicies are the native engine's policies, each holding every rule.
var nativePolicies = map[string]bool{"gpuwise-pods": true, "gpuwise-workloads": true, "gpuwise-cronjobs": true,
	"gpuwise-resourceclaims": true, "gpuwise-resourceclaimtemplates": true}

// ruleOfPolicy is the rule of a gpuwise policy name.
func ruleOfPolicy(t *testing.T, name string) string {
	// A claim rule's policies end in their shape.
	name = strings.TrimSuffix(strings.TrimSuffix(name, "-resourceclaimtemplates"), "-resourceclaims")
	for _, r := range []string{"non-gpu-pod-tolerates-gpu-taint", "gpu-container-limits", "gpu-pod-toleration",
		"whole-gpu-in-dev-namespace", "gpu-pod-cost-labels", "max-gpus-per-pod"} {
		if strings.HasSuffix(name, r) {
			return r
		}
	}
	t.Errorf("policy %s names no rule", name)
	return name
}

// podsOnlySettings is the fixtures' settings without the workload policies.
func podsOnlySettings(t *testing.T) string {
	t.Helper()
	b, err := os.ReadFile(fixtureSettings)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "settings.yaml")
	if err := os.WriteFile(path, append(b, []byte("workloads: false\n")...), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}
