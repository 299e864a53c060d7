package kube

import (
	"slices"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/gpuwise/gpuwise/internal/audit"
	"github.com/gpuwise/gpuwise/internal/cluster"
	"github.com/gpuwise/gpuwise/internal/cluster/clustertest"
	"github.com/gpuwise/gpuwise/internal/policy"
)

// The audit agrees with the admission policies on the shared pod
// fixtures, which the real API server decides too (test/integration/kube
// checks it against the same annotations): for every rule both decide
// per pod (package gpurule: GPU containers' limits, the GPU toleration,
// whole GPUs in dev namespaces), a fixture pod is an audit finding
// exactly when the policies refuse it. The pods are judged as admission
// sees them, unbound, beside a GPU node carrying the GPU taint. Pods in
// the namespaces the policies exempt (kube-system, the GPU Operator's)
// are left out: the audit still reports them, by design.
func TestAuditAgreesWithThePoliciesOnTheSharedPodFixtures(t *testing.T) {
	t.Parallel()
	s := fixtureSettings(t)
	shared := map[string]string{} // audit ID → rule name
	for _, r := range policy.Rules {
		if slices.Contains([]string{audit.RuleLimits, audit.RuleNoToleration, audit.RuleDevWholeGPU}, r.Audit) {
			shared[r.Audit] = r.Name
		}
	}
	if len(shared) != 3 {
		t.Fatalf("shared rules %v", shared)
	}
	node := clustertest.Node("gpu-1").GPUs(1, "A100-80GB").Obj()
	node.Taints = []cluster.Taint{{Key: "nvidia.com/gpu", Value: "present", Effect: "NoSchedule"}}
	own := newOwners(nil, nil)
	checked, refusing := 0, 0
	for _, p := range fixturePods(t) {
		want := p.Annotations["gpuwise.test/refused"]
		if w, ok := p.Annotations["gpuwise.test/refused-in-snapshot"]; ok {
			want = w
		}
		cp := convertPod(&p, own.of(&p), time.Unix(0, 0))
		if slices.Contains(s.ExemptNamespaces, cp.Namespace) {
			continue
		}
		cp.Node, cp.Phase, cp.Start, cp.End = "", "Pending", time.Time{}, time.Time{}
		snap := clustertest.Prepare(t, &cluster.Snapshot{Window: clustertest.Window(1), Nodes: []cluster.Node{node}, Pods: []cluster.Pod{cp}})
		found := map[string]bool{}
		for _, f := range audit.Run(snap, nil, audit.DefaultOptions()).Findings {
			if name, ok := shared[f.Rule]; ok {
				found[name] = true
			}
		}
		refused := map[string]bool{}
		for _, name := range splitRules(want) {
			if slices.Contains([]string{shared[audit.RuleLimits], shared[audit.RuleNoToleration], shared[audit.RuleDevWholeGPU]}, name) {
				refused[name] = true
			}
		}
		if d := cmp.Diff(refused, found); d != "" {
			t.Errorf("pod %s/%s: the audit's findings differ from the policies' refusals (-refused +found):\n%s", p.Namespace, p.Name, d)
		}
		checked++
		if len(refused) > 0 {
			refusing++
		}
	}
	// Both answers must be tested: pods refused (found) and pods let in.
	if checked < 20 || refusing < 6 {
		t.Errorf("%d fixture pods checked, %d refused by a shared rule", checked, refusing)
	}
}
