package config

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/gpuwise/gpuwise/internal/policy"
)

func TestParseAdmissionGood(t *testing.T) {
	t.Parallel()
	full := policy.Settings{
		GPUResources:      []string{"nvidia.com/gpu", "nvidia.com/gpu.shared", "nvidia.com/mig-*", "amd.com/gpu"},
		WholeGPUResources: []string{"nvidia.com/gpu", "amd.com/gpu"},
		GPUTaint:          policy.Taint{Key: "gpu.example.com/pool", Value: "dedicated", Effect: "NoExecute"},
		Agents:            []string{"monitoring/node-exporter*", "kube-system/*"},
		DevNamespaces:     []string{"dev-*", "*-sandbox"},
		RequiredLabels:    []string{"team", "cost-center|budget"},
		MaxGPUsPerPod:     []policy.NamespaceLimit{{Namespaces: []string{"dev-*"}, Max: 1}, {Namespaces: []string{"*"}, Max: 16}},
		ExemptNamespaces:  []string{"kube-system", "gpu-operator", "monitoring"},
		Mode:              policy.Deny,
		Rules:             map[string]policy.RuleSettings{"gpu-pod-cost-labels": {Mode: policy.Warn}, "max-gpus-per-pod": {Disabled: true}},
	}
	cm := policy.Defaults()
	cm.Mode = policy.Deny
	cm.ExemptNamespaces = []string{"kube-system", "gpu-operator", "nvidia-gpu-operator", "ray-system"}
	for file, want := range map[string]policy.Settings{"full.yaml": full, "configmap.yaml": cm, "empty.yaml": policy.Defaults()} {
		got, err := ParseAdmission(file, readFile(t, filepath.Join("testdata/admission/good", file)), policy.Defaults())
		if err != nil {
			t.Errorf("%s: %v", file, err)
			continue
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("%s (-want +got):\n%s", file, diff)
		}
	}
}

// Each bad file's every problem is listed with its field path; the
// expected message is the file's .err golden (go test -update rewrites).
func TestParseAdmissionBad(t *testing.T) {
	t.Parallel()
	files, err := filepath.Glob("testdata/admission/bad/*.yaml")
	if err != nil || len(files) < 6 {
		t.Fatalf("bad fixtures: %v %v", files, err)
	}
	for _, path := range files {
		_, err := ParseAdmission(filepath.Base(path), readFile(t, path), policy.Defaults())
		if err == nil {
			t.Errorf("%s: accepted", path)
			continue
		}
		got := err.Error() + "\n"
		if *update {
			if err := os.WriteFile(path+".err", []byte(got), 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		if diff := cmp.Diff(string(readFile(t, path+".err")), got); diff != "" {
			t.Errorf("%s (-want +got):\n%s", path, diff)
		}
	}
}

// Any input either gives settings that validate and generate policies for
// every engine, or an error listing its problems; nothing panics.
func FuzzParseAdmission(f *testing.F) {
	for _, dir := range []string{"testdata/admission/good", "testdata/admission/bad"} {
		files, _ := filepath.Glob(filepath.Join(dir, "*.yaml"))
		for _, p := range files {
			f.Add(readFile(f, p))
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		s, err := ParseAdmission("fuzz.yaml", data, policy.Defaults())
		if err != nil {
			var pe *PolicyError
			if !asPolicyError(err, &pe) || len(pe.Problems) == 0 {
				t.Fatalf("error without problems: %v", err)
			}
			return
		}
		// One engine per execution, picked by the input, so that every
		// engine is exercised across the run: generating all three each
		// time tripled the cost and held the target under 10k executions
		// in 30 s (issue 31).
		engines := []policy.Engine{policy.Native, policy.Kyverno, policy.Gatekeeper}
		e := engines[len(data)%len(engines)]
		if _, err := policy.Generate(s, policy.Options{Engine: e}); err != nil {
			t.Fatalf("accepted settings that do not generate for %s: %v", e, err)
		}
	})
}
