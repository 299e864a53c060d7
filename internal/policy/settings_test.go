package policy

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestDefaultsAreValid(t *testing.T) {
	t.Parallel()
	if err := Defaults().Validate(); err != nil {
		t.Fatal(err)
	}
}

// Every bad setting is reported with its field, all at once.
func TestValidateNamesEveryBadField(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		edit func(*Settings)
		want []string
	}{
		{"resource without a domain", func(s *Settings) { s.GPUResources = []string{"gpu"} },
			[]string{`gpuResources[0]: "gpu" is not an extended resource name`, `wholeGPUResources[0]: "nvidia.com/gpu" is not one of gpuResources`}},
		{"star in the middle", func(s *Settings) { s.GPUResources = append(s.GPUResources, "nvidia.com/*-x") },
			[]string{`gpuResources[3]: "nvidia.com/*-x": * is allowed only at the end`}},
		{"prefix where exact names are needed", func(s *Settings) { s.WholeGPUResources = []string{"nvidia.com/mig-*"} },
			[]string{`wholeGPUResources[0]: "nvidia.com/mig-*": a prefix (*) is not allowed here`}},
		{"bad taint", func(s *Settings) { s.GPUTaint = Taint{Key: "", Value: "a b", Effect: "NoRun"} },
			[]string{`gpuTaint.key: "" is not a taint key`, `gpuTaint.value: "a b" is not a label value`, `gpuTaint.effect: "NoRun" is not`}},
		{"agent glob without namespace", func(s *Settings) { s.Agents = []string{"node-exporter"} },
			[]string{`agents[0]: "node-exporter": want namespace/name`}},
		{"malformed glob", func(s *Settings) { s.DevNamespaces = []string{"dev-[a"} },
			[]string{`devNamespaces[0]: "dev-[a" is not a valid glob`}},
		{"quote in a glob", func(s *Settings) { s.DevNamespaces = []string{"dev'"} },
			[]string{`devNamespaces[0]: "dev'": names are lower-case letters`}},
		{"bad label key", func(s *Settings) { s.RequiredLabels = []string{"team|cost center"} },
			[]string{`requiredLabels[0]: "cost center" is not a label key`}},
		{"cap of zero", func(s *Settings) { s.MaxGPUsPerPod = []NamespaceLimit{{Namespaces: []string{"*"}, Max: 0}} },
			[]string{`maxGPUsPerPod[0].max: 0 is outside 1..1024`}},
		{"cap without namespaces", func(s *Settings) { s.MaxGPUsPerPod = []NamespaceLimit{{Max: 2}} },
			[]string{`maxGPUsPerPod[0].namespaces: empty`}},
		{"glob in exempt namespaces", func(s *Settings) { s.ExemptNamespaces = []string{"kube-system", "gpu-*"} },
			[]string{`exemptNamespaces[1]: "gpu-*" is not a namespace name`}},
		{"kube-system not exempt", func(s *Settings) { s.ExemptNamespaces = []string{"gpu-operator"} },
			[]string{`exemptNamespaces: must include kube-system`}},
		{"unknown mode", func(s *Settings) { s.Mode = "block" }, []string{`mode: "block" is not warn or deny`}},
		{"unknown rule", func(s *Settings) { s.Rules = map[string]RuleSettings{"gw003": {Mode: Deny}} },
			[]string{`rules.gw003: unknown rule (known: non-gpu-pod-tolerates-gpu-taint, gpu-container-limits`}},
		{"disabled with a mode", func(s *Settings) {
			s.Rules = map[string]RuleSettings{"gpu-container-limits": {Disabled: true, Mode: Deny}}
		},
			[]string{`rules.gpu-container-limits: disabled and given a mode`}},
		{"rule without its parameters", func(s *Settings) { s.RequiredLabels = nil },
			[]string{`requiredLabels: empty while rule gpu-pod-cost-labels is enabled`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			s := Defaults()
			tc.edit(&s)
			err := s.Validate()
			if err == nil {
				t.Fatal("no error")
			}
			lines := strings.Split(err.Error(), "\n")
			if len(lines) != len(tc.want) {
				t.Errorf("%d problems, want %d:\n%s", len(lines), len(tc.want), err)
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("problems do not name %q:\n%s", w, err)
				}
			}
		})
	}
}

func TestDisabledRuleNeedsNoParameters(t *testing.T) {
	t.Parallel()
	s := Defaults()
	s.MaxGPUsPerPod = nil
	s.Rules = map[string]RuleSettings{RuleMaxGPUs.Name: {Disabled: true}}
	if err := s.Validate(); err != nil {
		t.Fatal(err)
	}
	out, err := Generate(s, Options{Engine: Native})
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, a := range out.Artefacts {
		names = append(names, a.Name)
		for _, o := range a.Objects {
			if strings.Contains(o.Metadata.Annotations[annotationRules], RuleMaxGPUs.Name) || o.Metadata.Labels[RuleLabel(RuleMaxGPUs.Name)] != "" {
				t.Errorf("%s %s still lists the disabled rule", o.Kind, o.Metadata.Name)
			}
		}
	}
	want := []string{"gpuwise-pods", "gpuwise-workloads", "gpuwise-cronjobs", "gpuwise-resourceclaims", "gpuwise-resourceclaimtemplates", MutationName}
	if diff := cmp.Diff(want, names); diff != "" {
		t.Errorf("artefacts (-want +got):\n%s", diff)
	}
	out, err = Generate(s, Options{Engine: Gatekeeper})
	if err != nil || len(out.Artefacts) != 6 {
		t.Errorf("gatekeeper: %v, %d artefacts; want 5 rules and the mutating policy", err, len(out.Artefacts))
	}
}
