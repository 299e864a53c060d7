package audit

import (
	"fmt"
	"strings"

	"github.com/gpuwise/gpuwise/internal/cluster"
	"github.com/gpuwise/gpuwise/internal/pricing"
)

// Node labels the rules read (gpu-formats.md §1.6, §2.2).
const (
	labelProduct  = "nvidia.com/gpu.product"
	labelReplicas = "nvidia.com/gpu.replicas"
	labelSharing  = "nvidia.com/gpu.sharing-strategy"
	labelStrategy = "nvidia.com/mig.strategy"
	labelMIGState = "nvidia.com/mig.config.state"
	labelMIGConf  = "nvidia.com/mig.config"
)

func (a *auditor) nodeRules() []Finding {
	var fs []Finding
	for i := range a.s.Nodes() {
		n := &a.s.Nodes()[i]
		fs = append(fs, a.untainted(n)...)
		fs = append(fs, a.migSingleInvalid(n)...)
		fs = append(fs, a.migFailed(n)...)
		fs = append(fs, a.replicasBelow2(n)...)
	}
	return fs
}

func (a *auditor) untainted(n *cluster.Node) []Finding {
	if !n.HasGPUs() || hasGPUTaint(n) {
		return nil
	}
	var foreign int
	for i := range a.s.Pods() {
		p := &a.s.Pods()[i]
		if p.Node == n.Name && p.End.IsZero() && !isGPUPod(p) && !isAcceleratorPod(p) && !a.isAgent(p) {
			foreign++
		}
	}
	// The taint is the vendor's own resource name (amd.com/gpu,
	// aws.amazon.com/neuron, habana.ai/gaudi), as EKS and AKS taint
	// accelerator node groups.
	key := cluster.WholeResource(n.Vendor())
	taint := key + "=" + GPUTaintValue + ":NoSchedule"
	ev := []string{fmt.Sprintf("%d %s GPUs, taints: %s", len(n.GPUs), n.GPUModel, taintList(n)),
		fmt.Sprintf("%d non-GPU pods (not node agents) run on it now", foreign)}
	return []Finding{{
		Rule: RuleNodeUntainted, Severity: Warning, Object: "node/" + n.Name,
		Message:  fmt.Sprintf("GPU node %s has no NoSchedule GPU taint, so pods that need no GPU can be scheduled onto it", n.Name),
		Evidence: ev,
		Remediation: fmt.Sprintf("kubectl taint nodes %s %s\n"+
			"# and give GPU workloads the toleration first:\n"+
			"# tolerations: [{key: %s, operator: Exists, effect: NoSchedule}]\n"+
			"# (Karpenter/managed node groups: set the taint on the NodePool or node group so new nodes get it)",
			n.Name, taint, key),
	}}
}

func taintList(n *cluster.Node) string {
	if len(n.Taints) == 0 {
		return "none"
	}
	var ts []string
	for _, t := range n.Taints {
		ts = append(ts, t.Key+":"+t.Effect)
	}
	return strings.Join(ts, ", ")
}

// migSingleInvalid: GFD labels a single-strategy node whose GPUs are not
// all MIG-enabled with one profile as "<model>-MIG-INVALID".
func (a *auditor) migSingleInvalid(n *cluster.Node) []Finding {
	product := n.Labels[labelProduct]
	if n.Labels[labelStrategy] != "single" || !strings.HasSuffix(product, "-MIG-INVALID") {
		return nil
	}
	f := Finding{
		Rule: RuleMIGSingleInvalid, Severity: Critical, Object: "node/" + n.Name,
		Message: fmt.Sprintf("node %s runs the MIG single strategy with a mixed or partial layout; "+
			"the device plugin advertises no usable GPUs", n.Name),
		Evidence: []string{labelStrategy + "=single", labelProduct + "=" + product,
			labelMIGConf + "=" + orNone(n.Labels[labelMIGConf])},
		Remediation: fmt.Sprintf("# either apply a uniform layout:\nkubectl label node %s %s=all-1g.10gb --overwrite\n"+
			"# or switch the GPU Operator to the mixed strategy:\n"+
			"kubectl patch clusterpolicies.nvidia.com/cluster-policy --type merge -p '{\"spec\":{\"mig\":{\"strategy\":\"mixed\"}}}'",
			n.Name, labelMIGConf),
	}
	f.MonthlyUSD = a.wholeNodeGPUs(n)
	return []Finding{f}
}

func (a *auditor) migFailed(n *cluster.Node) []Finding {
	if n.Labels[labelMIGState] != "failed" {
		return nil
	}
	wanted := orNone(n.Labels[labelMIGConf])
	f := Finding{
		Rule: RuleMIGConfigFailed, Severity: Critical, Object: "node/" + n.Name,
		Message:  fmt.Sprintf("MIG reconfiguration failed on node %s; its GPUs are not in the wanted layout %s", n.Name, wanted),
		Evidence: []string{labelMIGState + "=failed", labelMIGConf + "=" + wanted},
		Remediation: fmt.Sprintf("kubectl cordon %s\n"+
			"kubectl -n gpu-operator logs -l app=nvidia-mig-manager --tail=100   # find the cause\n"+
			"# drain GPU pods, then re-apply the config and wait for success:\n"+
			"kubectl label node %s %s=%s --overwrite\nkubectl uncordon %s", n.Name, n.Name, labelMIGConf, wanted, n.Name),
	}
	f.MonthlyUSD = a.wholeNodeGPUs(n)
	return []Finding{f}
}

func (a *auditor) replicasBelow2(n *cluster.Node) []Finding {
	if n.Labels[labelSharing] != "time-slicing" {
		return nil
	}
	replicas := n.Labels[labelReplicas]
	low := replicas == "0" || replicas == "1"
	for _, g := range n.GPUs {
		if g.Sharing == cluster.TimeSlicing && g.Replicas < 2 {
			low = true
		}
	}
	if !low {
		return nil
	}
	return []Finding{{
		Rule: RuleReplicasBelow2, Severity: Warning, Object: "node/" + n.Name,
		Message:  fmt.Sprintf("node %s has time-slicing on with fewer than 2 replicas: pods still get whole GPUs", n.Name),
		Evidence: []string{labelSharing + "=time-slicing", labelReplicas + "=" + orNone(replicas)},
		Remediation: "# device-plugin config (ConfigMap key selected by nvidia.com/device-plugin.config); replicas must be >= 2\n" +
			"version: v1\nsharing:\n  timeSlicing:\n    renameByDefault: true\n    failRequestsGreaterThanOne: true\n" +
			"    resources:\n    - name: nvidia.com/gpu\n      replicas: 4\n",
	}}
}

// wholeNodeGPUs prices all of a node's GPUs for a month.
func (a *auditor) wholeNodeGPUs(n *cluster.Node) *float64 {
	p := a.price(n)
	if p == nil || len(n.GPUs) == 0 {
		return nil
	}
	return usd(p.GPUUSDPerHour * float64(len(n.GPUs)) * pricing.HoursPerMonth)
}

func orNone(s string) string {
	if s == "" {
		return "(unset)"
	}
	return s
}
