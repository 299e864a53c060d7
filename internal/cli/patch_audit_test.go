package cli

import (
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/api/resource"
	"sigs.k8s.io/yaml"

	"github.com/gpuwise/gpuwise/internal/audit"
	"github.com/gpuwise/gpuwise/internal/cluster"
	"github.com/gpuwise/gpuwise/internal/pricing"
	"github.com/gpuwise/gpuwise/internal/sim"
)

// patchDoc is the part of a generated resource patch this test applies.
type patchDoc struct {
	Kind     string
	Metadata struct{ Name, Namespace string }
	Spec     struct {
		Template    podTemplate
		JobTemplate struct {
			Spec struct{ Template podTemplate }
		} `json:"jobTemplate"`
	}
}

type podTemplate struct {
	Spec struct {
		Containers []struct {
			Name      string
			Resources struct{ Requests, Limits map[string]*string }
		}
	}
}

// The tool's own advice must agree with itself: after applying every patch
// `generate resources` writes to the objects of the snapshot it came from,
// audit rule GW003 (GPU containers need CPU and memory limits equal to their
// requests) must not fire for any patched container. Before the fix the
// patches set no CPU limit, so GW003 kept firing on every one of them.
func TestGeneratedPatchesSatisfyTheAudit(t *testing.T) {
	out, errOut, code := run(t, "generate", "resources", "--demo")
	if code != ExitOK {
		t.Fatalf("generate resources: exit %d: %s", code, errOut)
	}
	before := gw003(t, demoSnapshot(t))
	snap := demoSnapshot(t)
	patched := applyPatches(t, snap, out)
	fixed := 0
	for obj := range patched {
		if before[obj] {
			fixed++
		}
	}
	if fixed == 0 {
		t.Fatal("GW003 fired for none of the patched workloads before the patches: the test would prove nothing")
	}
	for obj := range gw003(t, snap) {
		if patched[obj] {
			t.Errorf("GW003 still fires for %s after its patch", obj)
		}
	}
	t.Logf("%d workloads patched, %d of them flagged by GW003 before, none after", len(patched), fixed)
}

func demoSnapshot(t *testing.T) *cluster.Snapshot {
	t.Helper()
	snap, err := sim.Generate(sim.DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	return snap
}

// gw003 is the set of workloads audit rule GW003 flags.
func gw003(t *testing.T, snap *cluster.Snapshot) map[string]bool {
	t.Helper()
	prep, err := cluster.Prepare(snap)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]bool{}
	for _, f := range audit.Run(prep, pricing.Embedded(), audit.DefaultOptions()).Findings {
		if f.Rule == audit.RuleLimits {
			out[f.Object] = true
		}
	}
	return out
}

// applyPatches sets every patched container's requests and limits on the
// pods of its workload and returns the patched workloads, as audit names
// them ("CronJob batch/nightly").
func applyPatches(t *testing.T, snap *cluster.Snapshot, stream string) map[string]bool {
	t.Helper()
	patched := map[string]bool{}
	for _, doc := range strings.Split(stream, "\n---\n") {
		var p patchDoc
		if err := yaml.Unmarshal([]byte(doc), &p); err != nil {
			t.Fatalf("patch does not parse: %v\n%s", err, doc)
		}
		tmpl := p.Spec.Template
		if p.Kind == "CronJob" {
			tmpl = p.Spec.JobTemplate.Spec.Template
		}
		for i := range snap.Pods {
			pod := &snap.Pods[i]
			if pod.Namespace != p.Metadata.Namespace || pod.Owner.Kind != p.Kind || pod.Owner.Name != p.Metadata.Name {
				continue
			}
			patched[p.Kind+" "+pod.Namespace+"/"+pod.Owner.Name] = true
			for _, c := range tmpl.Spec.Containers {
				setResources(t, pod, c.Name, c.Resources.Requests, c.Resources.Limits)
			}
		}
	}
	return patched
}

func setResources(t *testing.T, pod *cluster.Pod, name string, requests, limits map[string]*string) {
	t.Helper()
	q := func(m map[string]*string, key string, milli bool, dst *int64) {
		v, ok := m[key]
		if !ok {
			return
		}
		if v == nil { // null deletes the value
			*dst = 0
			return
		}
		parsed := resource.MustParse(*v)
		if milli {
			*dst = parsed.MilliValue()
		} else {
			*dst = parsed.Value()
		}
	}
	for i := range pod.Containers {
		c := &pod.Containers[i]
		if c.Name != name {
			continue
		}
		q(requests, "cpu", true, &c.CPURequestMilli)
		q(limits, "cpu", true, &c.CPULimitMilli)
		q(requests, "memory", false, &c.MemoryRequest)
		q(limits, "memory", false, &c.MemoryLimit)
	}
}
