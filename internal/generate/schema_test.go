package generate

import (
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/yaml"
)

// TestGeneratedConfigMaps decodes each generated ConfigMap strictly into
// the upstream core/v1 type and every config it carries into the schema
// mirrors.
func TestGeneratedConfigMaps(t *testing.T) {
	t.Parallel()
	ts, err := TimeSlicingConfig(sampleTimeSlicing())
	if err != nil {
		t.Fatal(err)
	}
	cm := decodeConfigMap(t, ts, "time-slicing/configmap.yaml")
	if cm.Name != DefaultDevicePluginConfigMap || cm.Namespace != DefaultNamespace {
		t.Errorf("time-slicing ConfigMap %s/%s, want defaults", cm.Namespace, cm.Name)
	}
	for _, key := range []string{ExclusiveConfig, "ts-4", "mig-mixed-ts-2"} {
		text, ok := cm.Data[key]
		if !ok {
			t.Errorf("time-slicing ConfigMap has no key %q", key)
			continue
		}
		var c dpConfig
		if err := yaml.UnmarshalStrict([]byte(text), &c); err != nil {
			t.Errorf("key %q does not decode strictly: %v", key, err)
		}
		if err := ValidateDevicePluginConfig([]byte(text)); err != nil {
			t.Errorf("key %q: %v", key, err)
		}
	}

	mp, err := MIGPartedConfig(sampleMIGParted())
	if err != nil {
		t.Fatal(err)
	}
	cm = decodeConfigMap(t, mp, "mig-parted/configmap.yaml")
	if len(cm.Data) != 1 {
		t.Errorf("mig-parted ConfigMap keys %v, want only config.yaml", cm.Data)
	}
	var spec mpSpec
	if err := yaml.UnmarshalStrict([]byte(cm.Data["config.yaml"]), &spec); err != nil {
		t.Fatalf("config.yaml does not decode strictly: %v", err)
	}
	if err := ValidateMIGPartedConfig([]byte(cm.Data["config.yaml"])); err != nil {
		t.Error(err)
	}
	for _, name := range []string{AllDisabledConfig, "gpuwise-a100-80gb-plan-7", "gpuwise-h100-80gb-3g"} {
		if len(spec.MigConfigs[name]) == 0 {
			t.Errorf("mig-configs has no %q", name)
		}
	}
}

func decodeConfigMap(t *testing.T, files []File, path string) corev1.ConfigMap {
	t.Helper()
	for _, f := range files {
		if f.Path == path {
			var cm corev1.ConfigMap
			if err := yaml.UnmarshalStrict(f.Data, &cm); err != nil {
				t.Fatalf("%s does not decode strictly into a ConfigMap: %v", path, err)
			}
			return cm
		}
	}
	t.Fatalf("no file %s", path)
	return corev1.ConfigMap{}
}

func TestValidateDevicePluginConfig(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		config  string
		wantErr []string // substrings, one per expected problem; none means valid
	}{
		{name: "minimal time-slicing", config: `
version: v1
flags: {migStrategy: none}
sharing: {timeSlicing: {renameByDefault: true, resources: [{name: nvidia.com/gpu, replicas: 4}]}}`},
		{name: "mixed MIG time-slicing with an attribute profile", config: `
version: v1
flags: {migStrategy: mixed}
sharing: {timeSlicing: {resources: [{name: nvidia.com/mig-1g.10gb.me, replicas: 2}, {name: nvidia.com/gpu, replicas: 3}]}}`},
		{name: "upstream plugin flags are accepted", config: `
version: v1
flags: {migStrategy: single, failOnInitError: true, plugin: {deviceListStrategy: [envvar, cdi-annotations], deviceIDStrategy: uuid}, gfd: {oneshot: false}}`},
		{name: "no version", config: `flags: {migStrategy: none}`, wantErr: []string{`version "": must be "v1"`}},
		{name: "wrong version", config: `version: v2`, wantErr: []string{`version "v2"`}},
		{name: "unknown key", config: "version: v1\nsharing: {timeSlicing: {resources: [{name: nvidia.com/gpu, replicas: 2, weight: 3}]}}", wantErr: []string{`unknown field "weight"`}},
		{name: "unknown top-level key", config: "version: v1\ntimeSlicing: {}", wantErr: []string{`unknown field "timeSlicing"`}},
		{name: "every problem listed", config: `
version: v1
flags: {migStrategy: partial}
sharing:
  timeSlicing: {resources: [{name: nvidia.com/gpu, replicas: 1}, {name: amd.com/gpu, replicas: 2}, {name: nvidia.com/gpu, replicas: 2}]}
  mps: {resources: []}`, wantErr: []string{
			`flags.migStrategy "partial"`,
			`timeSlicing and mps are mutually exclusive`,
			`resources[0].replicas 1: must be >= 2`,
			`resources[1].name "amd.com/gpu"`,
			`resources[2].name "nvidia.com/gpu": listed twice`,
			`sharing.mps.resources: at least one resource is required`,
		}},
		{name: "MIG resource without mixed strategy", config: `
version: v1
sharing: {timeSlicing: {resources: [{name: nvidia.com/mig-1g.10gb, replicas: 2}]}}`,
			wantErr: []string{"only with flags.migStrategy mixed"}},
		{name: "empty time-slicing", config: "version: v1\nsharing: {timeSlicing: {renameByDefault: true}}", wantErr: []string{"at least one resource"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			checkProblems(t, ValidateDevicePluginConfig([]byte(tt.config)), tt.wantErr)
		})
	}
}

func TestValidateMIGPartedConfig(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		config  string
		wantErr []string
	}{
		{name: "reference example", config: `
version: v1
mig-configs:
  all-disabled:
  - {devices: all, mig-enabled: false}
  plan:
  - {devices: [0, 1, 2, 3], mig-enabled: true, mig-devices: {"1g.10gb": 7}}
  - {devices: [4, 5], mig-enabled: true, mig-devices: {"3g.40gb": 1, "2g.20gb": 1, "1g.10gb": 2}}
  - {devices: [6, 7], mig-enabled: false}
  filtered:
  - {device-filter: ["0x20B210DE", "0x233010DE"], devices: all, mig-enabled: true, mig-devices: {"1c.3g.40gb": 2, "1g.10gb+me": 1, "1g.24gb-me": 0}}
  - {device-filter: "0x20B010DE", devices: all, mig-enabled: false}`},
		{name: "unknown top-level key", config: "version: v1\nmig-configs: {a: [{devices: all, mig-enabled: false}]}\nextra: 1", wantErr: []string{`unknown field "extra"`}},
		{name: "unknown entry key", config: "version: v1\nmig-configs: {a: [{devices: all, mig-enabled: false, placement: 0}]}", wantErr: []string{`unknown field "placement"`}},
		{name: "bad devices", config: "version: v1\nmig-configs: {a: [{devices: some, mig-enabled: false}]}", wantErr: []string{`devices must be "all"`}},
		{name: "every problem listed", config: `
version: v0
mig-configs:
  empty: []
  bad:
  - {mig-enabled: true}
  - {devices: [-1], mig-enabled: false, mig-devices: {"1g.10gb": 1}}
  - {devices: [2], mig-devices: {"1g.10gb": 1}}
  - {devices: [3], mig-enabled: true, mig-devices: {"1g.10gb": 0, "big": -1}}
  - {devices: [4], device-filter: "20B2", mig-enabled: false}`, wantErr: []string{
			`version "v0"`,
			`mig-configs.empty: empty config`,
			`mig-configs.bad[0].devices: required`,
			`mig-configs.bad[0].mig-devices: required when mig-enabled is true`,
			`mig-configs.bad[1].devices: negative index -1`,
			`mig-configs.bad[1].mig-devices: must be empty when mig-enabled is false`,
			`mig-configs.bad[2].mig-enabled: required`,
			`mig-configs.bad[3].mig-devices: profile "big"`,
			`mig-configs.bad[3].mig-devices.big: count -1 is negative`,
			`mig-configs.bad[3].mig-devices: every count is zero`,
			`mig-configs.bad[4].device-filter: "20B2"`,
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			checkProblems(t, ValidateMIGPartedConfig([]byte(tt.config)), tt.wantErr)
		})
	}
}

// checkProblems wants err to mention every substring in want and to list
// exactly len(want) problems (one per line); no want means no error.
func checkProblems(t *testing.T, err error, want []string) {
	t.Helper()
	if len(want) == 0 {
		if err != nil {
			t.Fatalf("unexpected error: %v", err)
		}
		return
	}
	if err == nil {
		t.Fatalf("no error, want %q", want)
	}
	msg := err.Error()
	for _, w := range want {
		if !strings.Contains(msg, w) {
			t.Errorf("error does not mention %q:\n%s", w, msg)
		}
	}
	if lines := strings.Count(msg, "\n") + 1; lines != len(want) {
		t.Errorf("error has %d problems, want %d:\n%s", lines, len(want), msg)
	}
}
