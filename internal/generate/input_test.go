package generate

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"sigs.k8s.io/yaml"
)

func TestPatchesBadInput(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		in      []ResourcePatch
		wantErr []string
	}{
		{
			name: "workload without a name or kind, no containers",
			in:   []ResourcePatch{{Workload: Workload{Kind: "Pod", Namespace: "ml"}}},
			wantErr: []string{
				`patch Pod ml/: kind "Pod" is not one of`,
				`patch Pod ml/: name is empty`,
				`patch Pod ml/: no containers to change`,
			},
		},
		{
			name: "negative and inverted quantities name the container",
			in: []ResourcePatch{{
				Workload: Workload{Kind: Deployment, Namespace: "ml", Name: "web"},
				Containers: []ContainerResources{
					{Name: "app", CPURequestMilli: -5, MemoryRequestBytes: 2 * gi, MemoryLimitBytes: gi},
					{Name: "app", CPURequestMilli: 500, CPULimitMilli: 200, RemoveCPULimit: true},
					{Name: ""},
				},
			}},
			wantErr: []string{
				`patch Deployment ml/web container "app": CPU request -5 is negative`,
				`container "app": memory request 2147483648 is above its limit 1073741824`,
				`container "app": listed twice`,
				`container "app": CPU request 500m is above its limit 200m`,
				`container "app": RemoveCPULimit and a CPU limit of 200m both set`,
				`container "": name is empty`,
				`container "": nothing to change`,
			},
		},
		{
			name: "bad GPU change",
			in: []ResourcePatch{{
				Workload: Workload{Kind: StatefulSet, Namespace: "ml", Name: "train"},
				Containers: []ContainerResources{{Name: "t", GPU: &GPUChange{
					Resource: "gpu", Count: 0, Remove: []string{"nvidia.com/gpu", "nvidia.com/gpu", "gpu"},
				}}},
			}},
			wantErr: []string{
				`GPU resource "gpu" is not a domain-qualified extended resource`,
				`GPU count 0 for gpu must be at least 1`,
				`nvidia.com/gpu listed twice in Remove`,
				`GPU resource to remove "gpu" is not a domain-qualified`,
				`gpu is both added and removed`,
			},
		},
		{
			name: "a bare Job cannot be patched (spec.template is immutable)",
			in: []ResourcePatch{{Workload: Workload{Kind: Job, Namespace: "ml", Name: "train"},
				Containers: []ContainerResources{{Name: "t", CPURequestMilli: 100}}}},
			wantErr: []string{`patch Job ml/train: a Job's spec.template is immutable once the Job exists`},
		},
		{
			name: "the same workload twice",
			in: []ResourcePatch{
				{Workload: Workload{Kind: Deployment, Namespace: "ml", Name: "web"}, Containers: []ContainerResources{{Name: "a", CPURequestMilli: 1}}},
				{Workload: Workload{Kind: Deployment, Namespace: "ml", Name: "web"}, Containers: []ContainerResources{{Name: "b", CPURequestMilli: 1}}},
			},
			wantErr: []string{`patch Deployment ml/web: workload listed twice`},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			files, err := Patches(tt.in)
			if files != nil {
				t.Errorf("files returned with an error: %v", files)
			}
			checkProblems(t, err, tt.wantErr)
		})
	}
}

func TestVPAsBadInput(t *testing.T) {
	t.Parallel()
	_, err := VPAs([]VPA{
		{Workload: Workload{Kind: Deployment, Namespace: "Bad_NS", Name: "web"}, MinCPUMilli: -1, MinMemoryBytes: -1, Containers: []string{"a", "a"}},
		{Workload: Workload{Kind: Deployment, Namespace: "ml", Name: "web"}},
		{Workload: Workload{Kind: StatefulSet, Namespace: "ml", Name: "web"}},
	})
	checkProblems(t, err, []string{
		`VPA for Deployment Bad_NS/web: namespace "Bad_NS" is invalid`,
		`VPA for Deployment Bad_NS/web: minimum CPU -1m is negative`,
		`VPA for Deployment Bad_NS/web: minimum memory -1 is negative`,
		`VPA for Deployment Bad_NS/web: container "a" listed twice`,
		`VPA ml/web-vpa: two VPAs with this name; set Name`,
	})
}

func TestTimeSlicingBadInput(t *testing.T) {
	t.Parallel()
	_, err := TimeSlicingConfig(TimeSlicing{
		Default: "ts-9",
		Configs: []SharingConfig{
			{Name: "ts-1", Resources: []SharedResource{{Name: "nvidia.com/gpu", Replicas: 1}}},
			{Name: "exclusive"},
			{Name: "mig", MIGStrategy: "single", Resources: []SharedResource{{Name: "nvidia.com/mig-1g.10gb", Replicas: 2}, {Name: "amd.com/gpu", Replicas: 2}}},
			{Name: "bad name!", MIGStrategy: "some"},
		},
		Nodes: []NodeConfig{{Node: "n1", Config: "ts-1"}, {Node: "n1", Config: "ts-2"}, {Node: "", Config: "mig"}},
	})
	checkProblems(t, err, []string{
		`device-plugin config "ts-1" resource "nvidia.com/gpu": replicas 1 must be at least 2`,
		`device-plugin config "exclusive": defined twice`,
		`device-plugin config "mig" resource "nvidia.com/mig-1g.10gb": MIG resources can be time-sliced only with MIG strategy mixed`,
		`device-plugin config "mig" resource "amd.com/gpu": name must be nvidia.com/gpu`,
		`device-plugin config "bad name!": name "bad name!" is invalid`,
		`device-plugin config "bad name!": MIG strategy "some"`,
		`time-slicing default config "ts-9": no such config`,
		`time-slicing node "n1": config "ts-2" is not defined`,
		`time-slicing node "n1": assigned twice`,
		`time-slicing node name is empty`,
	})
}

func TestMIGPartedBadInput(t *testing.T) {
	t.Parallel()
	_, err := MIGPartedConfig(MIGParted{Nodes: []MIGNode{
		{Node: "a100-1", Config: "plan", Groups: []MIGDeviceGroup{
			{Model: "A100-80GB", Devices: []int{0, 1}, Layout: map[string]int{"3g.40gb": 2, "1g.10gb": 1}},
			{Model: "A100-80GB", Devices: []int{1, 2}, Layout: map[string]int{"7g.80gb": 1}},
			{Model: "A100-80GB", Devices: []int{3}, Layout: map[string]int{"1g.10gb": 0}},
			{Devices: []int{4}, Layout: map[string]int{"1g.10gb": 7}},
			{Model: "Z100", Devices: []int{5}, Layout: map[string]int{"1g.10gb": 7}},
		}},
		{Node: "a100-2", Config: "plan2", Groups: []MIGDeviceGroup{{Model: "A100-80GB", Layout: map[string]int{"1g.10gb": 7}}}},
		{Node: "a100-3", Config: "plan2", Groups: []MIGDeviceGroup{{Model: "A100-80GB", Layout: map[string]int{"2g.20gb": 3}}}},
		{Node: "a100-4", Config: AllDisabledConfig, Groups: []MIGDeviceGroup{{}}},
		{Node: "a100-5", Config: "empty"},
	}})
	checkProblems(t, err, []string{
		`mig-parted node "a100-1" GPUs 0-1 layout 2x3g.40gb+1g.10gb: does not fit one A100-80GB GPU`,
		`mig-parted node "a100-1" GPUs 1-2: GPU 1 is in more than one group`,
		`mig-parted node "a100-1" GPU 3 layout empty: every count is zero`,
		`mig-parted node "a100-1" GPU 4 layout 7x1g.10gb: GPU model is empty`,
		`mig-parted node "a100-1" GPU 5 layout 7x1g.10gb: unknown GPU model "Z100"`,
		`mig-parted config "plan2": nodes "a100-2" and "a100-3" give it different layouts`,
		`mig-parted node "a100-4": config "all-disabled" is predefined`,
		`mig-parted node "a100-5": no device groups`,
	})
}

func TestMIGPartedSharedConfigWrittenOnce(t *testing.T) {
	t.Parallel()
	group := func(devs ...int) []MIGDeviceGroup {
		return []MIGDeviceGroup{
			{Model: "H100-80GB", Devices: []int{4, 5, 6, 7}},
			{Model: "H100-80GB", Devices: devs, Layout: map[string]int{"1g.10gb": 7}},
		}
	}
	files, err := MIGPartedConfig(MIGParted{ConfigMap: "plan", Namespace: "ops", Nodes: []MIGNode{
		{Node: "h1", Config: "half", Groups: group(0, 1, 2, 3)},
		{Node: "h2", Config: "half", Groups: group(3, 2, 1, 0)},
		{Node: "h3", Config: AllDisabledConfig},
	}})
	if err != nil {
		t.Fatal(err)
	}
	cm := decodeConfigMap(t, files, "mig-parted/configmap.yaml")
	var spec mpSpec
	if err := yaml.UnmarshalStrict([]byte(cm.Data["config.yaml"]), &spec); err != nil {
		t.Fatal(err)
	}
	if got := sortedKeys(spec.MigConfigs); !cmp.Equal(got, []string{AllDisabledConfig, "half"}) {
		t.Errorf("configs %v", got)
	}
	if first := spec.MigConfigs["half"][0].Devices.indices; !cmp.Equal(first, []int{0, 1, 2, 3}) {
		t.Errorf("groups not in index order: first devices %v", first)
	}
	script := string(files[0].Data)
	for _, want := range []string{
		`"name":"plan"`,
		"kubectl label node h2 nvidia.com/mig.config=half --overwrite",
		"kubectl label node h3 nvidia.com/mig.config=all-disabled --overwrite",
		"# node h3 -> all-disabled: MIG disabled on every GPU",
	} {
		if !strings.Contains(script, want) {
			t.Errorf("apply.sh lacks %q:\n%s", want, script)
		}
	}
}

func TestWriteDirAndStream(t *testing.T) {
	t.Parallel()
	files := []File{
		{Path: "a/x.yaml", Data: []byte("k: v\n")},
		{Path: "a/run.sh", Data: []byte("#!/bin/sh\nkubectl get nodes\n\necho ok")},
	}
	dir := t.TempDir()
	if err := WriteDir(dir, files); err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(filepath.Join(dir, "a", "x.yaml"))
	if err != nil || string(got) != "k: v\n" {
		t.Errorf("a/x.yaml = %q, %v", got, err)
	}
	if st, err := os.Stat(filepath.Join(dir, "a", "run.sh")); err != nil || st.Mode().Perm()&0o100 == 0 {
		t.Errorf("run.sh not executable: %v %v", st, err)
	}
	for _, bad := range []string{"../x.yaml", "/etc/x.yaml", ""} {
		if err := WriteDir(dir, []File{{Path: bad}}); err == nil {
			t.Errorf("WriteDir accepted path %q", bad)
		}
	}

	var b bytes.Buffer
	if err := WriteStream(&b, files); err != nil {
		t.Fatal(err)
	}
	want := "---\n# file: a/x.yaml\nk: v\n---\n# file: a/run.sh\n#!/bin/sh\n# kubectl get nodes\n#\n# echo ok\n"
	if diff := cmp.Diff(want, b.String()); diff != "" {
		t.Errorf("stream (-want +got):\n%s", diff)
	}
}

// TestZeroInputs: empty inputs give the minimal artefacts, never a panic.
func TestZeroInputs(t *testing.T) {
	t.Parallel()
	if files, err := Patches(nil); err != nil || len(files) != 0 {
		t.Errorf("Patches(nil) = %v, %v", files, err)
	}
	if files, err := VPAs(nil); err != nil || len(files) != 0 {
		t.Errorf("VPAs(nil) = %v, %v", files, err)
	}
	if _, err := TimeSlicingConfig(TimeSlicing{}); err != nil {
		t.Errorf("TimeSlicingConfig(zero): %v", err)
	}
	if _, err := MIGPartedConfig(MIGParted{}); err != nil {
		t.Errorf("MIGPartedConfig(zero): %v", err)
	}
	_, err := Patches([]ResourcePatch{{Containers: []ContainerResources{{GPU: &GPUChange{}}}}})
	if err == nil {
		t.Error("zero patch accepted")
	}
	_, err = MIGPartedConfig(MIGParted{Nodes: []MIGNode{{Groups: []MIGDeviceGroup{{Layout: map[string]int{}}}}}})
	if err == nil {
		t.Error("zero MIG node accepted")
	}
}
