package gpurule_test

import (
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/gpuwise/gpuwise/internal/audit"
	"github.com/gpuwise/gpuwise/internal/cluster"
	"github.com/gpuwise/gpuwise/internal/cluster/clustertest"
	"github.com/gpuwise/gpuwise/internal/policy"
)

// sharedRules are the rules both engines decide per pod, by audit ID:
// GPU containers' limits, the GPU toleration, whole GPUs in dev
// namespaces. (GW002 is two rules under one ID: the audit finds pods that
// need no GPU on GPU nodes, the policy refuses such pods that tolerate
// the GPU taint; the GPU pod definition they share is tested here
// through the others.)
var sharedRules = []string{audit.RuleLimits, audit.RuleNoToleration, audit.RuleDevWholeGPU}

var gpuTaint = cluster.Taint{Key: "nvidia.com/gpu", Value: "present", Effect: "NoSchedule"}

// pod is a running pod in ns with one container: its GPU requests, CPU
// and memory request and limit, and tolerations.
func pod(ns, name string, gpus map[string]int64, cpuReq, cpuLim int64, memReq, memLim int64, tols ...cluster.Toleration) cluster.Pod {
	p := clustertest.Pod(ns, name).Obj()
	p.Containers[0] = cluster.Container{Name: "main", GPURequests: gpus, CPURequestMilli: cpuReq, CPULimitMilli: cpuLim,
		MemoryRequest: memReq, MemoryLimit: memLim}
	p.Tolerations = tols
	return p
}

var (
	exists  = cluster.Toleration{Key: "nvidia.com/gpu", Operator: "Exists", Effect: "NoSchedule"}
	whole   = map[string]int64{"nvidia.com/gpu": 1}
	gi      = int64(1) << 30
	guarded = func(ns, name string, gpus map[string]int64, tols ...cluster.Toleration) cluster.Pod {
		return pod(ns, name, gpus, 1000, 1000, gi, gi, tols...)
	}
)

// One table feeds both engines: for every pod, the audit's findings and
// the admission policies' refusals (in Go, as the generated CEL decides
// them) name the same shared rules — the ones the case expects.
func TestAuditAndPolicyAgree(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name string
		pod  cluster.Pod
		// taintValue is the policy settings' GPU taint value ("": any).
		taintValue string
		want       []string
	}{
		{name: "a compliant GPU pod", pod: guarded("ml", "ok", whole, exists)},
		{name: "no limits", pod: pod("ml", "nolim", whole, 1000, 0, gi, 0, exists), want: []string{audit.RuleLimits}},
		{name: "CPU request below its limit", pod: pod("ml", "below", whole, 500, 1000, gi, gi, exists), want: []string{audit.RuleLimits}},
		{name: "memory request below its limit", pod: pod("ml", "membelow", whole, 1000, 1000, gi/2, gi, exists), want: []string{audit.RuleLimits}},
		{name: "limits alone (the request defaults to them)", pod: pod("ml", "limonly", whole, 0, 1000, 0, gi, exists)},
		{name: "a zero GPU request is no GPU container", pod: pod("ml", "zero", map[string]int64{"nvidia.com/gpu": 0}, 0, 0, 0, 0)},
		{name: "another extended resource is no GPU", pod: pod("ml", "fpga", map[string]int64{"example.com/fpga": 1}, 0, 0, 0, 0)},
		{name: "a MIG slice without the toleration", pod: guarded("ml", "mig", map[string]int64{"nvidia.com/mig-1g.10gb": 1}), want: []string{audit.RuleNoToleration}},
		{name: "a shared GPU without limits or toleration", pod: pod("ml", "shared", map[string]int64{"nvidia.com/gpu.shared": 1}, 0, 0, 0, 0),
			want: []string{audit.RuleLimits, audit.RuleNoToleration}},
		{name: "NoExecute tolerated, not NoSchedule", pod: guarded("ml", "noexec", whole, cluster.Toleration{Key: "nvidia.com/gpu", Operator: "Exists", Effect: "NoExecute"}),
			want: []string{audit.RuleNoToleration}},
		{name: "a blanket toleration", pod: guarded("ml", "blanket", whole, cluster.Toleration{Operator: "Exists"})},
		{name: "Equal with the taint's value", pod: guarded("ml", "equal", whole, cluster.Toleration{Key: "nvidia.com/gpu", Operator: "Equal", Value: "present"}), taintValue: "present"},
		{name: "the default operator with the taint's value", pod: guarded("ml", "default-op", whole, cluster.Toleration{Key: "nvidia.com/gpu", Value: "present"}), taintValue: "present"},
		{name: "Equal with another value", pod: guarded("ml", "other", whole, cluster.Toleration{Key: "nvidia.com/gpu", Operator: "Equal", Value: "other"}), taintValue: "present",
			want: []string{audit.RuleNoToleration}},
		{name: "another key", pod: guarded("ml", "key", whole, cluster.Toleration{Key: "gpu", Operator: "Exists"}), want: []string{audit.RuleNoToleration}},
		{name: "a whole GPU in a dev namespace", pod: guarded("dev", "nb", whole, exists), want: []string{audit.RuleDevWholeGPU}},
		{name: "two whole GPUs in a notebook namespace", pod: guarded("notebooks", "nb2", map[string]int64{"nvidia.com/gpu": 2}, exists), want: []string{audit.RuleDevWholeGPU}},
		{name: "a shared GPU in a dev namespace", pod: guarded("dev", "ts", map[string]int64{"nvidia.com/gpu.shared": 1}, exists)},
		{name: "a MIG slice in a dev namespace", pod: guarded("dev", "mig", map[string]int64{"nvidia.com/mig-1g.10gb": 1}, exists)},
		{name: "a web pod", pod: pod("web", "api", nil, 500, 0, gi, 0)},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			s := policy.Defaults()
			s.GPUTaint.Value = tc.taintValue
			pol := map[string]bool{}
			for _, name := range s.Refusals(&tc.pod) {
				if r, _ := policy.RuleByName(name); slices.Contains(sharedRules, r.Audit) {
					pol[r.Audit] = true
				}
			}
			node := clustertest.Node("gpu-1").GPUs(1, "A100-80GB").Obj()
			node.Taints = []cluster.Taint{gpuTaint}
			// Unbound, as admission sees a pod: the audit judges it by its
			// requests too (TestABoundPodIsJudgedByWhatItHolds).
			p := tc.pod
			snap := clustertest.Prepare(t, &cluster.Snapshot{Window: clustertest.Window(1), Nodes: []cluster.Node{node}, Pods: []cluster.Pod{p}})
			aud := map[string]bool{}
			for _, f := range audit.Run(snap, nil, audit.DefaultOptions()).Findings {
				if slices.Contains(sharedRules, f.Rule) {
					aud[f.Rule] = true
				}
			}
			want := map[string]bool{}
			for _, r := range tc.want {
				want[r] = true
			}
			if d := cmp.Diff(want, pol); d != "" {
				t.Errorf("the policies refuse (-want +got):\n%s", d)
			}
			if d := cmp.Diff(want, aud); d != "" {
				t.Errorf("the audit finds (-want +got):\n%s", d)
			}
		})
	}
}

// The one place the two may part, by design: a bound pod in a snapshot
// is judged by the audit on what it holds. On a device plugin without
// renameByDefault a time-slice is requested as nvidia.com/gpu: admission
// can only see the request and refuses it (set wholeGPUResources in the
// admission settings for such clusters), the audit sees the time-slice
// unit and finds nothing.
func TestABoundPodIsJudgedByWhatItHolds(t *testing.T) {
	t.Parallel()
	ts := clustertest.Node("t1").TimeSliced("L4", 4).Obj()
	p := clustertest.Pod("dev", "ts").On("t1").Holds("t1/gpu0/ts-0", -1, 0).Obj()
	snap := clustertest.Prepare(t, &cluster.Snapshot{Window: clustertest.Window(1), Nodes: []cluster.Node{ts}, Pods: []cluster.Pod{p}})
	for _, f := range audit.Run(snap, nil, audit.DefaultOptions()).Findings {
		if f.Rule == audit.RuleDevWholeGPU {
			t.Errorf("the audit finds a whole GPU in %s", f.Object)
		}
	}
	if !slices.Contains(policy.Defaults().Refusals(&p), policy.RuleDevWholeGPU.Name) {
		t.Error("admission, which sees nvidia.com/gpu requested, does not refuse it")
	}
	p.Node, p.GPUs = "", nil
	snap = clustertest.Prepare(t, &cluster.Snapshot{Window: clustertest.Window(1), Nodes: []cluster.Node{ts}, Pods: []cluster.Pod{p}})
	found := false
	for _, f := range audit.Run(snap, nil, audit.DefaultOptions()).Findings {
		found = found || f.Rule == audit.RuleDevWholeGPU
	}
	if !found {
		t.Error("unbound, the audit does not judge the pod by its requests as admission does")
	}
}
