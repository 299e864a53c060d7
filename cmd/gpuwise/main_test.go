package main

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"

	"sigs.k8s.io/yaml"
)

// binDir holds the binary the tests build once.
var binDir string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "gpuwise-bin-")
	if err != nil {
		panic(err)
	}
	binDir = dir
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

var (
	buildOnce sync.Once
	buildErr  error
)

// build compiles this command once per test run and returns a copy of
// it in a directory of the test's own, so that tests may link it under
// other names.
func build(t *testing.T) string {
	t.Helper()
	built := filepath.Join(binDir, "gpuwise")
	buildOnce.Do(func() {
		if out, err := exec.Command("go", "build", "-o", built, ".").CombinedOutput(); err != nil {
			buildErr = fmt.Errorf("go build: %v\n%s", err, out)
		}
	})
	if buildErr != nil {
		t.Fatal(buildErr)
	}
	bin := filepath.Join(t.TempDir(), "gpuwise")
	if err := os.Link(built, bin); err != nil {
		t.Fatal(err)
	}
	return bin
}

func runBinary(t *testing.T, bin string, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	cmd := exec.Command(bin, args...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	if ee, ok := err.(*exec.ExitError); ok {
		return out.String(), errb.String(), ee.ExitCode()
	} else if err != nil {
		t.Fatalf("running %s: %v", bin, err)
	}
	return out.String(), errb.String(), 0
}

// The one binary answers to both names: as gpuwise, and as the kubectl
// plugin kubectl-gpuwise (what `make install` and krew put on PATH), whose
// help, usage lines and errors say "kubectl gpuwise". The name comes from
// argv[0], so a symlink is enough.
func TestBothNames(t *testing.T) {
	bin := build(t)
	plugin := filepath.Join(filepath.Dir(bin), "kubectl-gpuwise")
	if err := os.Symlink(bin, plugin); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		bin, name string
	}{{bin, "gpuwise"}, {plugin, "kubectl gpuwise"}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, errOut, code := runBinary(t, tt.bin, "inventory", "--help")
			if code != 0 || !strings.Contains(out, "Usage:\n  "+tt.name+" inventory [--from FILE") {
				t.Errorf("inventory --help: exit %d, %s\n%s", code, errOut, out)
			}
			_, errOut, code = runBinary(t, tt.bin, "nosuch")
			if want := tt.name + `: unknown command "nosuch" for ` + tt.name; code != 2 || !strings.HasPrefix(errOut, want) {
				t.Errorf("unknown command: exit %d, stderr %q; want 2 and %q", code, errOut, want)
			}
			out, errOut, code = runBinary(t, tt.bin, "inventory", "--demo", "-o", "csv")
			if code != 0 || !strings.HasPrefix(out, "node,gpu_model,") {
				t.Errorf("inventory --demo: exit %d, %s", code, errOut)
			}
		})
	}
}

// krewPlugin mirrors the krew manifest fields (krew's index/v1alpha2).
type krewPlugin struct {
	APIVersion string `json:"apiVersion"`
	Kind       string `json:"kind"`
	Metadata   struct {
		Name string `json:"name"`
	} `json:"metadata"`
	Spec struct {
		Version          string `json:"version"`
		Homepage         string `json:"homepage"`
		ShortDescription string `json:"shortDescription"`
		Description      string `json:"description"`
		Caveats          string `json:"caveats"`
		Platforms        []struct {
			Selector struct {
				MatchLabels map[string]string `json:"matchLabels"`
			} `json:"selector"`
			URI    string `json:"uri"`
			SHA256 string `json:"sha256"`
			Bin    string `json:"bin"`
			Files  []struct {
				From string `json:"from"`
				To   string `json:"to"`
			} `json:"files"`
		} `json:"platforms"`
	} `json:"spec"`
}

var addURIAndSha = regexp.MustCompile(`\{\{ addURIAndSha "([^"]+)" \.TagName \}\}`)

// The krew template, filled in as a release fills it, is a valid
// manifest: its name is the file's, every platform installs the binary
// it names, and the archive name carries the platform.
func TestKrewManifestTemplate(t *testing.T) {
	raw, err := os.ReadFile(filepath.Join("..", "..", "deploy", "krew", "gpuwise.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	filled := addURIAndSha.ReplaceAllString(string(raw), "uri: $1\n    sha256: "+strings.Repeat("ab", 32))
	filled = strings.ReplaceAll(filled, "{{ .TagName }}", "v1.2.3")
	var p krewPlugin
	if err := yaml.UnmarshalStrict([]byte(filled), &p); err != nil {
		t.Fatalf("filled template: %v\n%s", err, filled)
	}
	if p.APIVersion != "krew.googlecontainertools.github.com/v1alpha2" || p.Kind != "Plugin" || p.Metadata.Name != "gpuwise" ||
		p.Spec.Version != "v1.2.3" || len(p.Spec.ShortDescription) > 50 || p.Spec.Description == "" {
		t.Errorf("manifest header %+v", p)
	}
	if len(p.Spec.Platforms) != 5 {
		t.Errorf("%d platforms, want linux and darwin on amd64 and arm64, and windows", len(p.Spec.Platforms))
	}
	for _, pl := range p.Spec.Platforms {
		l := pl.Selector.MatchLabels
		ships := false
		for _, f := range pl.Files {
			ships = ships || f.From == pl.Bin
		}
		if !ships || !strings.Contains(pl.URI, "v1.2.3_"+l["os"]+"_"+l["arch"]) || len(pl.SHA256) != 64 {
			t.Errorf("platform %v: bin %q shipped %v, uri %q", l, pl.Bin, ships, pl.URI)
		}
	}
}
