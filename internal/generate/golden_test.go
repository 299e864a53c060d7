package generate

import (
	"bytes"
	"flag"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"

	"github.com/gpuwise/gpuwise/internal/policy"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/")

func TestGolden(t *testing.T) {
	tests := []struct {
		name     string
		golden   string
		generate func() ([]File, error)
	}{
		{
			name: "patches for a GPU swap, a CronJob and a StatefulSet", golden: "patches.golden",
			generate: func() ([]File, error) { return Patches(samplePatches()) },
		},
		{
			name: "a VPA in Off mode per workload", golden: "vpa.golden",
			generate: func() ([]File, error) { return VPAs(sampleVPAs()) },
		},
		{
			name: "time-slicing with two configs over three nodes", golden: "time-slicing.golden",
			generate: func() ([]File, error) { return TimeSlicingConfig(sampleTimeSlicing()) },
		},
		{
			name: "mig-parted with a heterogeneous A100 node and an H100 node", golden: "mig-parted.golden",
			generate: func() ([]File, error) { return MIGPartedConfig(sampleMIGParted()) },
		},
		{
			name: "native admission policies, warn mode, defaults", golden: "policy-native.golden",
			generate: func() ([]File, error) { return samplePolicies(policy.Options{Engine: policy.Native}, policy.Warn) },
		},
		{
			name: "native admission policies, deny mode", golden: "policy-native-deny.golden",
			generate: func() ([]File, error) { return samplePolicies(policy.Options{Engine: policy.Native}, policy.Deny) },
		},
		{
			name: "Kyverno ValidatingPolicies", golden: "policy-kyverno.golden",
			generate: func() ([]File, error) { return samplePolicies(policy.Options{Engine: policy.Kyverno}, policy.Warn) },
		},
		{
			name: "Kyverno ClusterPolicies (legacy)", golden: "policy-kyverno-legacy.golden",
			generate: func() ([]File, error) {
				return samplePolicies(policy.Options{Engine: policy.Kyverno, KyvernoLegacy: true}, policy.Warn)
			},
		},
		{
			name: "Gatekeeper templates and constraints", golden: "policy-gatekeeper.golden",
			generate: func() ([]File, error) { return samplePolicies(policy.Options{Engine: policy.Gatekeeper}, policy.Deny) },
		},
		{
			name: "GPU quotas, one priced and one not", golden: "quota.golden",
			generate: func() ([]File, error) { return Quotas(sampleQuota()) },
		},
		{
			name: "Kueue queues for two teams over two flavors, a MIG resource", golden: "kueue.golden",
			generate: func() ([]File, error) { return Kueue(sampleKueue()) },
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			files, err := tt.generate()
			if err != nil {
				t.Fatalf("generate: %v", err)
			}
			again, _ := tt.generate()
			if diff := cmp.Diff(files, again); diff != "" {
				t.Errorf("output differs between two runs (-first +second):\n%s", diff)
			}
			var got bytes.Buffer
			if err := WriteStream(&got, files); err != nil {
				t.Fatalf("WriteStream: %v", err)
			}
			checkGolden(t, filepath.Join("testdata", tt.golden), got.Bytes())
			checkShellSyntax(t, files)
			checkStreamParses(t, got.Bytes())
		})
	}
}

// checkStreamParses reads the stream back document by document, as
// kubectl apply -f - would.
func checkStreamParses(t *testing.T, stream []byte) {
	t.Helper()
	dec := utilyaml.NewYAMLOrJSONDecoder(bytes.NewReader(stream), 4096)
	for {
		var doc map[string]any
		err := dec.Decode(&doc)
		if err == io.EOF {
			return
		}
		if err != nil {
			t.Fatalf("stream is not valid multi-document YAML: %v", err)
		}
	}
}

// checkShellSyntax parses every command file with sh -n, where sh exists.
func checkShellSyntax(t *testing.T, files []File) {
	t.Helper()
	sh, err := exec.LookPath("sh")
	if err != nil {
		return
	}
	for _, f := range files {
		if !strings.HasSuffix(f.Path, ".sh") {
			continue
		}
		cmd := exec.Command(sh, "-n")
		cmd.Stdin = bytes.NewReader(f.Data)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Errorf("%s is not valid shell: %v\n%s", f.Path, err, out)
		}
	}
}

func checkGolden(t *testing.T, path string, got []byte) {
	t.Helper()
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("reading golden file (run go test ./internal/generate -update): %v", err)
	}
	if diff := cmp.Diff(string(want), string(got)); diff != "" {
		t.Errorf("%s mismatch (-want +got):\n%s", path, diff)
	}
}
