//go:build integration && kyverno

package kube

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
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
	kyverno := os.Getenv("GPUWISE_KYVERNO")
	if kyverno == "" {
		t.Fatal("GPUWISE_KYVERNO is unset: run `make verify-kyverno`, which builds the kyverno CLI")
	}
	settings := podsOnlySettings(t)
	for _, c := range []struct {
		name         string
		args         []string
		noNamespaces bool
	}{
		{"ValidatingPolicy", []string{"--engine", "kyverno"}, false},
		{"ClusterPolicy", []string{"--engine", "kyverno", "--kyverno-legacy"}, false},
		{"ValidatingAdmissionPolicy", []string{"--engine", "native"}, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := filepath.Join(generatePolicies(t, append(c.args, "--mode", "deny", "--policy-settings", settings)...), "policy", c.args[1])
			files, _ := filepath.Glob(filepath.Join(dir, "*.yaml"))
			args := append([]string{"apply"}, files...)
			if c.args[1] == "native" {
				// The native bindings are their own params: the CLI
				// matches a paramRef by name among these objects.
				for _, f := range files {
					args = append(args, "--parameter-resource", f)
				}
			}
			args = append(args, "--resource", fixturePodsFile, "--continue-on-fail", "--remove-color")
			out, err := exec.Command(kyverno, args...).CombinedOutput()
			if ee, ok := err.(*exec.ExitError); err != nil && (!ok || ee.ExitCode() != 1) {
				t.Fatalf("kyverno apply: %v\n%s", err, out)
			}
			if strings.Contains(string(out), "error: 0") == false {
				t.Errorf("kyverno reports evaluation errors:\n%s", out)
			}
			checkFixtureVerdicts(t, "kyverno "+c.name, kyvernoFailures(t, string(out)), c.noNamespaces)
		})
	}
}

// kyvernoFailure is the CLI's line for a failed check; kyvernoMessage
// the numbered lines after it, one per failed validation.
var (
	kyvernoFailure = regexp.MustCompile(`^policy (gpuwise-\S+) -> resource (\S+)/Pod/(\S+) failed:`)
	kyvernoMessage = regexp.MustCompile(`^\d+ - `)
)

// kyvernoFailures maps each refused pod to its rules: a per-rule policy's
// from its name, the native policy holding every rule's from its messages.
func kyvernoFailures(t *testing.T, out string) map[string][]string {
	t.Helper()
	got := map[string][]string{}
	pod, policy := "", ""
	for _, line := range strings.Split(out, "\n") {
		if m := kyvernoFailure.FindStringSubmatch(line); m != nil {
			pod, policy = m[2]+"/"+m[3], m[1]
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
var nativePolicies = map[string]bool{"gpuwise-pods": true, "gpuwise-workloads": true, "gpuwise-cronjobs": true}

// ruleOfPolicy is the rule of a gpuwise policy name.
func ruleOfPolicy(t *testing.T, name string) string {
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
