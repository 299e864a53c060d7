package audit

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/gpuwise/gpuwise/internal/cluster"
	"github.com/gpuwise/gpuwise/internal/cluster/clustertest"
	"github.com/gpuwise/gpuwise/internal/pricing"
)

// TestUndecidedRules (issue 26.1): a rule resting on a fact the source
// could not read is unknown for the pods it would flag: no finding, one
// undecided entry and a note; with the fact known, the same pods are
// findings.
func TestUndecidedRules(t *testing.T) {
	t.Parallel()
	loose := gpuPod("ml", "b", "h2", "h2/gpu0")
	loose.Tolerations, loose.NodeSelector = nil, nil
	pinned := gpuPod("ml", "a", "h1", "h1/gpu0") // tolerates, pinned: decided either way
	snap := func(unknown ...string) *cluster.Snapshot {
		return &cluster.Snapshot{Window: clustertest.Window(24), Unknown: unknown,
			Nodes: []cluster.Node{h100("h1", true), h100("h2", false), l4("l1", true)}, Pods: []cluster.Pod{pinned, loose}}
	}
	rules := func(r *Result) []string {
		var out []string
		for _, f := range r.Findings {
			if f.Rule == RuleNoToleration || f.Rule == RuleNoModelAffinity {
				out = append(out, f.Rule+" "+f.Object)
			}
		}
		return out
	}
	known := Run(clustertest.Prepare(t, snap()), pricing.Embedded(), DefaultOptions())
	if diff := cmp.Diff([]string{"GW004 Deployment ml/b", "GW005 Deployment ml/b"}, rules(known)); diff != "" || known.Undecided != nil {
		t.Fatalf("all facts known: findings (-want +got):\n%s undecided %+v", diff, known.Undecided)
	}
	r := Run(clustertest.Prepare(t, snap(cluster.FactNodeAffinity, cluster.FactTolerations)), pricing.Embedded(), DefaultOptions())
	if got := rules(r); len(got) != 0 {
		t.Errorf("tolerations and affinity unknown: findings %q, want none resting on them", got)
	}
	want := []Undecided{
		{Rule: RuleNoToleration, Name: "gpu-pod-without-toleration", Objects: 1, Facts: []string{cluster.FactTolerations}},
		{Rule: RuleNoModelAffinity, Name: "gpu-pod-without-model-affinity", Objects: 1, Facts: []string{cluster.FactNodeAffinity}},
	}
	if diff := cmp.Diff(want, r.Undecided); diff != "" {
		t.Errorf("undecided (-want +got):\n%s", diff)
	}
	if notes := strings.Join(r.Notes, "\n"); !strings.Contains(notes, "GW004 (gpu-pod-without-toleration) is unknown for 1 workload(s): it rests on tolerations") {
		t.Errorf("notes %q: want GW004 named unknown", notes)
	}
}
