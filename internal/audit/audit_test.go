package audit

import (
	"math"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/gpuwise/gpuwise/internal/cluster"
	"github.com/gpuwise/gpuwise/internal/cluster/clustertest"
	"github.com/gpuwise/gpuwise/internal/pricing"
)

var gpuTaint = cluster.Taint{Key: GPUTaintKey, Value: "present", Effect: "NoSchedule"}
var gpuToleration = cluster.Toleration{Key: GPUTaintKey, Operator: "Exists", Effect: "NoSchedule"}

// h100 is a priced p5.48xlarge: 8 H100-80GB, 192 cores, 2 TiB.
func h100(name string, tainted bool) cluster.Node {
	n := clustertest.Node(name).Resources(192, 2048).Instance("p5.48xlarge", cluster.OnDemand).GPUs(8, "H100-80GB").Obj()
	n.Cloud, n.Region = "aws", "us-east-1"
	n.Labels = map[string]string{"nvidia.com/gpu.product": "NVIDIA-H100-80GB-HBM3"}
	if tainted {
		n.Taints = []cluster.Taint{gpuTaint}
	}
	return n
}

func l4(name string, tainted bool) cluster.Node {
	n := clustertest.Node(name).Resources(48, 192).Instance("g6.12xlarge", cluster.OnDemand).GPUs(4, "L4").Obj()
	n.Cloud, n.Region = "aws", "us-east-1"
	n.Labels = map[string]string{"nvidia.com/gpu.product": "NVIDIA-L4"}
	if tainted {
		n.Taints = []cluster.Taint{gpuTaint}
	}
	return n
}

// gpuPod is a tolerating, model-pinned, Guaranteed GPU pod holding unit.
func gpuPod(ns, name, node, unit string) cluster.Pod {
	p := clustertest.Pod(ns, name).On(node).Holds(unit, -1, 0).Obj()
	p.Tolerations = []cluster.Toleration{gpuToleration}
	p.NodeSelector = map[string][]string{"nvidia.com/gpu.product": {"NVIDIA-H100-80GB-HBM3"}}
	c := &p.Containers[0]
	c.CPURequestMilli, c.CPULimitMilli, c.MemoryRequest, c.MemoryLimit = 3500, 3500, 30500<<20, 30500<<20
	return p
}

type got struct {
	Severity Severity
	Object   string
	USD      float64
}

func runRule(t *testing.T, rule string, s *cluster.Snapshot) []got {
	t.Helper()
	if s.Window.End.IsZero() {
		s.Window = clustertest.Window(24)
	}
	r := Run(clustertest.Prepare(t, s), pricing.Embedded(), DefaultOptions())
	var out []got
	for _, f := range r.Findings {
		if f.Rule != rule {
			continue
		}
		if f.Remediation == "" || len(f.Evidence) == 0 || f.Message == "" {
			t.Errorf("%s %s: empty message, evidence or remediation: %+v", f.Rule, f.Object, f)
		}
		out = append(out, got{f.Severity, f.Object, math.Round(valueOr(f.MonthlyUSD)*100) / 100})
	}
	return out
}

func TestRuleNodeUntainted(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		nodes []cluster.Node
		want  []got
	}{
		{"untainted GPU node", []cluster.Node{h100("h1", false)}, []got{{Warning, "node/h1", 0}}},
		{"tainted GPU node", []cluster.Node{h100("h1", true)}, nil},
		{"CPU node needs no taint", []cluster.Node{clustertest.Node("c1").Resources(8, 32).Obj()}, nil},
		{"any NoSchedule key naming a GPU counts", []cluster.Node{func() cluster.Node {
			n := h100("h1", false)
			n.Taints = []cluster.Taint{{Key: "gpu-pool", Effect: "NoSchedule"}}
			return n
		}()}, nil},
		{"PreferNoSchedule is not enough", []cluster.Node{func() cluster.Node {
			n := h100("h1", false)
			n.Taints = []cluster.Taint{{Key: GPUTaintKey, Effect: "PreferNoSchedule"}}
			return n
		}()}, []got{{Warning, "node/h1", 0}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := runRule(t, RuleNodeUntainted, &cluster.Snapshot{Nodes: tt.nodes})
			if diff := cmp.Diff(tt.want, g); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

func TestRuleNonGPUPod(t *testing.T) {
	t.Parallel()
	web := clustertest.Pod("shop", "web-1").Owner("Deployment", "web").On("h1").Requests(4000, 16).Obj()
	web2 := clustertest.Pod("shop", "web-2").Owner("Deployment", "web").On("h1").Requests(4000, 16).Obj()
	dcgm := clustertest.Pod("gpu-operator", "dcgm-exporter-x").Owner("DaemonSet", "nvidia-dcgm-exporter").On("h1").Obj()
	fluent := clustertest.Pod("logging", "fluent-bit-x").Owner("DaemonSet", "fluent-bit").On("h1").Obj()
	onCPU := clustertest.Pod("shop", "api-1").Owner("Deployment", "api").On("c1").Requests(1000, 1).Obj()
	done := clustertest.Pod("shop", "batch-1").Owner("Job", "batch").On("h1").Requests(1000, 1).Obj()
	done.Phase = "Succeeded"
	// A DRA pod asks no nvidia.com/gpu: its ResourceClaim makes it a GPU pod.
	dra := clustertest.Pod("ml", "train-1").Owner("Job", "train").On("h1").Requests(4000, 16).Obj()
	dra.Claims = []string{"ml/train-1-gpu"}
	nodes := []cluster.Node{h100("h1", true), clustertest.Node("c1").Resources(8, 32).Obj()}
	// p5.48xlarge CPU+memory rates: 2 pods × (4 cores, 16 GiB) at the node's split rates.
	tests := []struct {
		name string
		pods []cluster.Pod
		want []got
	}{
		{"two replicas grouped, priced", []cluster.Pod{web, web2}, []got{{Warning, "Deployment shop/web", webUSD()}}},
		{"allow-listed GPU agent", []cluster.Pod{dcgm}, nil},
		{"unknown DaemonSet is info", []cluster.Pod{fluent}, []got{{Info, "DaemonSet logging/fluent-bit", 0}}},
		{"pod on a CPU node", []cluster.Pod{onCPU}, nil},
		{"terminated pod", []cluster.Pod{done}, nil},
		{"DRA GPU pod", []cluster.Pod{dra}, nil},
		{"DRA GPU pod beside a non-GPU one", []cluster.Pod{dra, web}, []got{{Warning, "Deployment shop/web", webUSD() / 2}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := runRule(t, RuleNonGPUPod, &cluster.Snapshot{Nodes: nodes, Pods: tt.pods})
			if diff := cmp.Diff(tt.want, g); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

func webUSD() float64 {
	n := h100("h1", true)
	p, err := pricing.Embedded().Price(pricing.NodeSpec{Name: n.Name, Cloud: "aws", Region: "us-east-1",
		InstanceType: "p5.48xlarge", Capacity: pricing.OnDemand, GPUModel: "H100-80GB", GPUCount: 8, CPUCores: 192, MemoryGiB: 2048})
	if err != nil {
		panic(err)
	}
	return math.Round(2*(4*p.CPUUSDPerCoreHour+16*p.MemoryUSDPerGiBHour)*pricing.HoursPerMonth*100) / 100
}

func TestRuleLimits(t *testing.T) {
	t.Parallel()
	ok := gpuPod("ml", "ok", "h1", "h1/gpu0")
	noLimits := gpuPod("ml", "nolim", "h1", "h1/gpu1")
	noLimits.Containers[0].CPULimitMilli, noLimits.Containers[0].MemoryLimit = 0, 0
	burst := gpuPod("ml", "burst", "h1", "h1/gpu2")
	burst.Containers[0].MemoryLimit = 60 << 30
	cpuOnly := clustertest.Pod("ml", "cpu").On("h1").Requests(1000, 1).Obj()
	tests := []struct {
		name string
		pod  cluster.Pod
		want []got
	}{
		{"guaranteed GPU pod", ok, nil},
		{"no limits", noLimits, []got{{Warning, "Deployment ml/nolim", 0}}},
		{"memory request below limit", burst, []got{{Warning, "Deployment ml/burst", 0}}},
		{"non-GPU pod is out of scope", cpuOnly, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := runRule(t, RuleLimits, &cluster.Snapshot{Nodes: []cluster.Node{h100("h1", true)}, Pods: []cluster.Pod{tt.pod}})
			if diff := cmp.Diff(tt.want, g); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

func TestRuleNoToleration(t *testing.T) {
	t.Parallel()
	tolerating := gpuPod("ml", "a", "h1", "h1/gpu0")
	running := gpuPod("ml", "b", "h2", "h2/gpu0")
	running.Tolerations = nil
	pending := clustertest.Pod("ml", "c").Obj()
	pending.Phase, pending.Containers[0].GPURequests = "Pending", map[string]int64{"nvidia.com/gpu": 1}
	wildcard := gpuPod("ml", "d", "h1", "h1/gpu1")
	wildcard.Tolerations = []cluster.Toleration{{Operator: "Exists"}}
	wrongEffect := gpuPod("ml", "e", "h1", "h1/gpu2")
	wrongEffect.Tolerations = []cluster.Toleration{{Key: GPUTaintKey, Operator: "Exists", Effect: "NoExecute"}}
	nodes := []cluster.Node{h100("h1", true), h100("h2", false)}
	tests := []struct {
		name  string
		pod   cluster.Pod
		nodes []cluster.Node
		want  []got
	}{
		{"tolerates the taint", tolerating, nodes, nil},
		{"running on the untainted node", running, nodes, []got{{Warning, "Deployment ml/b", 0}}},
		{"pending: cannot schedule", pending, nodes, []got{{Critical, "Deployment ml/c", 0}}},
		{"wildcard toleration", wildcard, nodes, nil},
		{"toleration for another effect", wrongEffect, nodes, []got{{Warning, "Deployment ml/e", 0}}},
		{"no tainted pool, nothing to tolerate", running, []cluster.Node{h100("h2", false)}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := runRule(t, RuleNoToleration, &cluster.Snapshot{Nodes: tt.nodes, Pods: []cluster.Pod{tt.pod}})
			if diff := cmp.Diff(tt.want, g); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

func TestRuleNoModelAffinity(t *testing.T) {
	t.Parallel()
	pinned := gpuPod("ml", "a", "h1", "h1/gpu0")
	loose := gpuPod("ml", "b", "h1", "h1/gpu1")
	loose.NodeSelector = nil
	byInstance := gpuPod("ml", "c", "h1", "h1/gpu2")
	byInstance.NodeSelector = map[string][]string{"node.kubernetes.io/instance-type": {"p5.48xlarge"}}
	mixed := []cluster.Node{h100("h1", true), l4("l1", true)}
	tests := []struct {
		name  string
		pod   cluster.Pod
		nodes []cluster.Node
		want  []got
	}{
		{"pinned to a product", pinned, mixed, nil},
		{"no affinity in a mixed cluster", loose, mixed, []got{{Warning, "Deployment ml/b", 0}}},
		{"pinned by instance type", byInstance, mixed, nil},
		{"one model: nothing to choose", loose, []cluster.Node{h100("h1", true)}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := runRule(t, RuleNoModelAffinity, &cluster.Snapshot{Nodes: tt.nodes, Pods: []cluster.Pod{tt.pod}})
			if diff := cmp.Diff(tt.want, g); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

func TestRuleDevWholeGPU(t *testing.T) {
	t.Parallel()
	nb := gpuPod("team-notebooks", "nb-0", "h1", "h1/gpu0")
	nb.Owner = cluster.Owner{Kind: "StatefulSet", Name: "nb"}
	prod := gpuPod("inference", "srv", "h1", "h1/gpu1")
	sliced := clustertest.Pod("dev", "ts").On("t1").Holds("t1/gpu0/ts-0", -1, 0).Obj()
	ts := clustertest.Node("t1").Resources(16, 64).TimeSliced("L4", 4).Obj()
	gpuHour := webGPUHour()
	tests := []struct {
		name string
		pod  cluster.Pod
		want []got
	}{
		{"whole H100 in a notebook namespace", nb, []got{{Warning, "StatefulSet team-notebooks/nb", math.Round(gpuHour*0.75*pricing.HoursPerMonth*100) / 100}}},
		{"production namespace", prod, nil},
		{"time-slice in dev is fine", sliced, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := runRule(t, RuleDevWholeGPU, &cluster.Snapshot{Nodes: []cluster.Node{h100("h1", true), ts}, Pods: []cluster.Pod{tt.pod}})
			if diff := cmp.Diff(tt.want, g); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

func webGPUHour() float64 {
	p, _ := pricing.Embedded().Price(pricing.NodeSpec{Name: "h1", Cloud: "aws", Region: "us-east-1",
		InstanceType: "p5.48xlarge", Capacity: pricing.OnDemand, GPUModel: "H100-80GB", GPUCount: 8, CPUCores: 192, MemoryGiB: 2048})
	return p.GPUUSDPerHour
}

func TestNodeLabelRules(t *testing.T) {
	t.Parallel()
	with := func(n cluster.Node, kv ...string) cluster.Node {
		n.Labels = map[string]string{}
		for i := 0; i+1 < len(kv); i += 2 {
			n.Labels[kv[i]] = kv[i+1]
		}
		return n
	}
	gpuMonth := math.Round(webGPUHour()*8*pricing.HoursPerMonth*100) / 100
	tests := []struct {
		name string
		rule string
		node cluster.Node
		want []got
	}{
		{"MIG single invalid", RuleMIGSingleInvalid, with(h100("h1", true), labelStrategy, "single", labelProduct, "NVIDIA-H100-80GB-HBM3-MIG-INVALID"),
			[]got{{Critical, "node/h1", gpuMonth}}},
		{"MIG single valid", RuleMIGSingleInvalid, with(h100("h1", true), labelStrategy, "single", labelProduct, "NVIDIA-H100-80GB-HBM3-MIG-1g.10gb"), nil},
		{"MIG config failed", RuleMIGConfigFailed, with(h100("h1", true), labelMIGState, "failed", labelMIGConf, "all-1g.10gb"),
			[]got{{Critical, "node/h1", gpuMonth}}},
		{"MIG config success", RuleMIGConfigFailed, with(h100("h1", true), labelMIGState, "success"), nil},
		{"time-slicing with 1 replica", RuleReplicasBelow2, with(h100("h1", true), labelSharing, "time-slicing", labelReplicas, "1"),
			[]got{{Warning, "node/h1", 0}}},
		{"time-slicing with 4 replicas", RuleReplicasBelow2,
			with(clustertest.Node("t1").TimeSliced("L4", 4).Obj(), labelSharing, "time-slicing", labelReplicas, "4"), nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := runRule(t, tt.rule, &cluster.Snapshot{Nodes: []cluster.Node{tt.node}})
			if diff := cmp.Diff(tt.want, g); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

func TestRuleRoundRequests(t *testing.T) {
	t.Parallel()
	measured := gpuPod("ml", "a", "h1", "h1/gpu0")
	round := gpuPod("ml", "b", "h1", "h1/gpu1")
	round.Containers[0].CPURequestMilli, round.Containers[0].MemoryRequest = 8000, 64<<30
	round.Containers[0].CPULimitMilli, round.Containers[0].MemoryLimit = 8000, 64<<30 // a limit below the request is refused (Prepare)
	small := gpuPod("ml", "c", "h1", "h1/gpu2")
	small.Containers[0].CPURequestMilli, small.Containers[0].MemoryRequest = 1000, 2<<30
	tests := []struct {
		name string
		pod  cluster.Pod
		want []got
	}{
		{"measured-looking requests", measured, nil},
		{"8 cores and 64Gi", round, []got{{Info, "Deployment ml/b", 0}}},
		{"small round values are normal", small, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := runRule(t, RuleRoundRequests, &cluster.Snapshot{Nodes: []cluster.Node{h100("h1", true)}, Pods: []cluster.Pod{tt.pod}})
			if diff := cmp.Diff(tt.want, g); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

func TestRunOrderAndSummary(t *testing.T) {
	t.Parallel()
	n := h100("h1", false)
	n.Labels[labelMIGState] = "failed"
	s := &cluster.Snapshot{Window: clustertest.Window(1), Nodes: []cluster.Node{n}}
	r := Run(clustertest.Prepare(t, s), nil, DefaultOptions())
	var rules []string
	for _, f := range r.Findings {
		rules = append(rules, f.Rule)
	}
	if diff := cmp.Diff([]string{RuleMIGConfigFailed, RuleNodeUntainted}, rules); diff != "" {
		t.Errorf("order (-want +got):\n%s", diff)
	}
	want := Summary{Critical: 1, Warning: 1}
	if diff := cmp.Diff(want, r.Summary, cmpopts.EquateApprox(0, 1e-9)); diff != "" {
		t.Errorf("summary (-want +got):\n%s", diff)
	}
	if r.Worst() != Critical {
		t.Errorf("worst %v", r.Worst())
	}
}

func TestOptionsValidate(t *testing.T) {
	t.Parallel()
	if err := DefaultOptions().Validate(); err != nil {
		t.Errorf("defaults: %v", err)
	}
	o := DefaultOptions()
	o.NodeAgents = append(o.NodeAgents, "logging/[fluent")
	o.DevNamespaces = []string{"dev-[", "dev"}
	err := o.Validate()
	for _, want := range []string{`node agents: "logging/[fluent" is not a valid glob`, `dev namespaces: "dev-[" is not a valid glob`} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("Validate() = %v, want it to contain %q", err, want)
		}
	}
}

// A fix must be one the apiserver accepts: a Job's spec.template is
// immutable once the Job exists, so its remediation says to change the
// manifest for the next run instead of a kubectl patch that would be
// refused; a CronJob's is patched through its jobTemplate.
func TestRemediationForJobs(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		kind, want, never string
	}{
		{"Job", "# Job ml/train: its pod template is immutable once the Job exists (kubectl patch is refused); merge this into its manifest for the next run:", "kubectl -n ml patch job"},
		{"CronJob", `kubectl -n ml patch cronjob train --type strategic -p '{"spec":{"jobTemplate":{"spec":{"template":{"spec":`, "immutable"},
	} {
		p := gpuPod("ml", "train-x", "h1", "h1/gpu0")
		p.Owner = cluster.Owner{Kind: tt.kind, Name: "train"}
		p.Containers[0].CPULimitMilli = 0 // GW003 fires
		r := Run(clustertest.Prepare(t, &cluster.Snapshot{Window: clustertest.Window(24), Nodes: []cluster.Node{h100("h1", true)}, Pods: []cluster.Pod{p}}),
			pricing.Embedded(), DefaultOptions())
		var fix string
		for _, f := range r.Findings {
			if f.Rule == RuleLimits {
				fix = f.Remediation
			}
		}
		if !strings.Contains(fix, tt.want) || strings.Contains(fix, tt.never) {
			t.Errorf("%s: remediation %q, want %q and not %q", tt.kind, fix, tt.want, tt.never)
		}
	}
}

func TestParseSeverity(t *testing.T) {
	t.Parallel()
	for _, s := range []string{"info", "WARNING", "critical"} {
		if _, err := ParseSeverity(s); err != nil {
			t.Errorf("%s: %v", s, err)
		}
	}
	if _, err := ParseSeverity("high"); err == nil {
		t.Error("high: no error")
	}
}
