package config

import (
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/gpuwise/gpuwise/internal/capacity"
	"github.com/gpuwise/gpuwise/internal/rightsize"
)

var update = flag.Bool("update", false, "rewrite the .err golden files")

func TestParsePolicyGood(t *testing.T) {
	t.Parallel()
	full := rightsize.Policy{
		CPU:     rightsize.CPUPolicy{Percentile: 0.9, Headroom: 0.1, MinMilli: 25, StarvedThrottled: 0.3, StarvedAtLimit: 0.95},
		Memory:  rightsize.MemoryPolicy{Percentile: 1, Headroom: 0.3, MinBytes: 128 << 20, OOMBump: 0.25},
		History: rightsize.HistoryPolicy{MinObserved: 72 * time.Hour, MinCoverage: 0.8},
		GPU: rightsize.GPUPolicy{MemoryHeadroom: 0.25, ActivityPercentile: 0.99, ComputeHeadroom: 0.3,
			DevNamespaces: []string{"dev", "team-*-sandbox"}, MinReplicas: 2, MaxReplicas: 4},
	}
	partial := rightsize.DefaultPolicy()
	partial.Memory.Headroom = 0.5
	partial.History.MinObserved = 36 * time.Hour
	cases := map[string]rightsize.Policy{
		"full.yaml":    full,
		"partial.json": partial,
		"empty.yaml":   rightsize.DefaultPolicy(),
		// the capacity sections are capacity's (TestParsePoliciesAutoscaling,
		// TestParsePoliciesCapacity)
		"autoscaling.yaml": rightsize.DefaultPolicy(),
		"capacity.yaml":    rightsize.DefaultPolicy(),
	}
	for file, want := range cases {
		got, err := ParsePolicy(file, readFile(t, filepath.Join("testdata/policy/good", file)))
		if err != nil {
			t.Errorf("%s: %v", file, err)
			continue
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("%s (-want +got):\n%s", file, diff)
		}
	}
}

// Each bad file's every problem is listed with its field; the expected
// message is the file's .err golden.
func TestParsePolicyBad(t *testing.T) {
	t.Parallel()
	files, err := filepath.Glob("testdata/policy/bad/*.yaml")
	if err != nil || len(files) == 0 {
		t.Fatalf("no bad fixtures: %v", err)
	}
	for _, path := range files {
		_, err := ParsePolicy(filepath.Base(path), readFile(t, path))
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

func TestParsePolicyListsEveryField(t *testing.T) {
	t.Parallel()
	_, err := ParsePolicy("ranges.yaml", readFile(t, "testdata/policy/bad/ranges.yaml"))
	for _, field := range []string{"cpu.percentile", "cpu.headroom", "cpu.min", "memory.percentile", "memory.headroom",
		"memory.min", "memory.oomBump", "history.minObserved", "history.minCoverage", "gpu.memoryHeadroom",
		"gpu.activityPercentile", "gpu.computeHeadroom", "gpu.devNamespaces[0]", "gpu.devNamespaces[1]",
		"gpu.timeSlice.minReplicas", "gpu.timeSlice.maxReplicas"} {
		if err == nil || !strings.Contains(err.Error(), "\t"+field+": ") {
			t.Errorf("no problem reported for %s in:\n%v", field, err)
		}
	}
}

func FuzzParsePolicy(f *testing.F) {
	for _, dir := range []string{"testdata/policy/good", "testdata/policy/bad"} {
		files, _ := filepath.Glob(filepath.Join(dir, "*"))
		for _, p := range files {
			if !strings.HasSuffix(p, ".err") {
				f.Add(readFile(f, p))
			}
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		p, err := ParsePolicy("fuzz.yaml", data)
		if err != nil {
			var pe *PolicyError
			if !asPolicyError(err, &pe) || len(pe.Problems) == 0 {
				t.Fatalf("error without problems: %v", err)
			}
			return
		}
		if verr := p.Validate(); verr != nil {
			t.Fatalf("accepted a policy that does not validate: %v", verr)
		}
	})
}

func asPolicyError(err error, pe **PolicyError) bool {
	e, ok := err.(*PolicyError)
	*pe = e
	return ok
}

func readFile(t testing.TB, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestParsePoliciesAutoscaling: the autoscaling section decodes over its
// defaults and leaves the recommendation policy at its own.
func TestParsePoliciesAutoscaling(t *testing.T) {
	t.Parallel()
	got, err := ParsePolicies("autoscaling.yaml", readFile(t, "testdata/policy/good/autoscaling.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	want := DefaultPolicies()
	want.Autoscale = capacity.AutoscalePolicy{TargetActivity: 0.7, MinReplicas: 2, MaxReplicas: 8, Stabilization: 10 * time.Minute, Startup: 5 * time.Minute}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("policies (-want +got):\n%s", diff)
	}
}

// TestParsePoliciesCapacity: the commitments and reclaim sections decode
// over their defaults (a negotiated discount, a team's notebook
// namespaces) and leave every other section at its own.
func TestParsePoliciesCapacity(t *testing.T) {
	t.Parallel()
	got, err := ParsePolicies("capacity.yaml", readFile(t, "testdata/policy/good/capacity.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	want := DefaultPolicies()
	want.Commit = capacity.CommitPolicy{Discount1Y: 0.38, Discount3Y: 0.55, CapOfMean: 0.6}
	want.Reclaim = capacity.ReclaimPolicy{MaxActivity: 0.02, MinIdleHours: 8, Namespaces: []string{"jupyter-*", "sandbox"}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("policies (-want +got):\n%s", diff)
	}
}
