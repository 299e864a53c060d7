package audit

import (
	"fmt"
	"sort"
	"strings"

	"github.com/gpuwise/gpuwise/internal/cluster"
	"github.com/gpuwise/gpuwise/internal/gpurule"
	"github.com/gpuwise/gpuwise/internal/pricing"
)

func (a *auditor) podRules() []Finding {
	var fs []Finding
	fs = append(fs, group(RuleNonGPUPod, a.eachPod(a.nonGPUPod))...)
	fs = append(fs, group(RuleLimits, a.eachPod(a.limits))...)
	fs = append(fs, group(RuleNoToleration, a.eachPod(a.noToleration))...)
	fs = append(fs, group(RuleNoModelAffinity, a.eachPod(a.noModelAffinity))...)
	fs = append(fs, group(RuleDevWholeGPU, a.eachPod(a.devWholeGPU))...)
	fs = append(fs, group(RuleRoundRequests, a.eachPod(a.roundRequests))...)
	return fs
}

// eachPod runs check over live pods (not terminated) and collects hits.
func (a *auditor) eachPod(check func(*cluster.Pod) *hit) []hit {
	var hits []hit
	for i := range a.s.Pods() {
		p := &a.s.Pods()[i]
		if !p.End.IsZero() || p.Phase == "Succeeded" || p.Phase == "Failed" {
			continue
		}
		if h := check(p); h != nil {
			h.pod = p
			hits = append(hits, *h)
		}
	}
	return hits
}

func (a *auditor) isAgent(p *cluster.Pod) bool {
	return cluster.MatchAny(a.o.NodeAgents, p.Namespace+"/"+p.Owner.Name) || cluster.MatchAny(a.o.NodeAgents, p.Key())
}

func (a *auditor) nonGPUPod(p *cluster.Pod) *hit {
	n := a.s.Index().Nodes[p.Node]
	// A pod holding a GPU through a DRA ResourceClaim asks no
	// nvidia.com/gpu: it is a GPU pod all the same.
	if n == nil || !n.HasGPUs() || isGPUPod(p) || isAcceleratorPod(p) || len(p.Claims) > 0 || a.isAgent(p) {
		return nil
	}
	cores, gib := p.CPURequestCores(), float64(p.MemoryRequestBytes())/(1<<30)
	share := 0.0
	if n.CPUMilli > 0 {
		share = cores / n.CPUCores()
	}
	if n.MemoryBytes > 0 {
		share = max(share, gib/n.MemoryGiB())
	}
	h := &hit{severity: Warning,
		message: fmt.Sprintf("pods that request no GPU run on GPU node %s", n.Name),
		evidence: []string{fmt.Sprintf("node %s: %d %s GPUs", n.Name, len(n.GPUs), n.GPUModel),
			fmt.Sprintf("requests %.3g CPU and %.3g GiB: %.1f%% of the node", cores, gib, share*100)},
		fix: patchCommand(p, map[string]any{"affinity": map[string]any{"nodeAffinity": map[string]any{
			"requiredDuringSchedulingIgnoredDuringExecution": map[string]any{"nodeSelectorTerms": []any{
				map[string]any{"matchExpressions": []any{map[string]any{"key": "nvidia.com/gpu.present", "operator": "DoesNotExist"}}}}}}}}) +
			fmt.Sprintf("\n# and keep others off: kubectl taint nodes %s %s", n.Name, GPUTaint),
	}
	if p.Owner.Kind == "DaemonSet" {
		h.severity = Info
		h.evidence = append(h.evidence, "a DaemonSet: add it to --allow-agent if it must run on GPU nodes")
	}
	if price := a.price(n); price != nil {
		h.usd = usd((cores*price.CPUUSDPerCoreHour + gib*price.MemoryUSDPerGiBHour) * pricing.HoursPerMonth)
	}
	return h
}

func (a *auditor) limits(p *cluster.Pod) *hit {
	var ev []string
	limits := map[string]any{}
	var containers []any
	for _, c := range p.Containers {
		if !gpurule.GPUResources.Container(&c) {
			continue
		}
		probs := gpurule.LimitProblems(&c, bytesText)
		if len(probs) == 0 {
			continue
		}
		ev = append(ev, fmt.Sprintf("container %s: %s", c.Name, strings.Join(probs, ", ")))
		limits = map[string]any{}
		if c.CPURequestMilli > 0 {
			limits["cpu"] = fmt.Sprintf("%dm", c.CPURequestMilli)
		}
		if c.MemoryRequest > 0 {
			limits["memory"] = bytesText(c.MemoryRequest)
		}
		containers = append(containers, map[string]any{"name": c.Name, "resources": map[string]any{"limits": limits}})
	}
	if len(ev) == 0 {
		return nil
	}
	fix := patchCommand(p, map[string]any{"containers": containers})
	if len(limits) == 0 {
		fix = "# set CPU and memory requests from measured usage, then limits equal to them\n" + fix
	}
	return &hit{severity: Warning,
		message:  "GPU containers without CPU/memory limits equal to their requests (not Guaranteed QoS; evictions and noisy neighbours idle the GPU)",
		evidence: ev, fix: fix}
}

func bytesText(b int64) string {
	if b%(1<<30) == 0 {
		return fmt.Sprintf("%dGi", b>>30)
	}
	if b%(1<<20) == 0 {
		return fmt.Sprintf("%dMi", b>>20)
	}
	return fmt.Sprintf("%d", b)
}

// gpuTaints are the distinct NoSchedule GPU taints on GPU nodes.
func (a *auditor) gpuTaints() []cluster.Taint {
	seen := map[cluster.Taint]bool{}
	var out []cluster.Taint
	for _, n := range a.gpuNodes() {
		for _, t := range n.Taints {
			if t.Effect == "NoSchedule" && hasGPUTaint(&cluster.Node{Taints: []cluster.Taint{t}}) && !seen[t] {
				seen[t] = true
				out = append(out, t)
			}
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Key+out[i].Value < out[j].Key+out[j].Value })
	return out
}

// isAcceleratorPod: a pod asking for an AMD GPU, a Neuron device or a
// Gaudi is no foreign pod on its node (GW001, GW002), though gpurule's
// NVIDIA rules do not apply to it.
func isAcceleratorPod(p *cluster.Pod) bool {
	for _, c := range p.Containers {
		for name, k := range c.GPURequests {
			if k > 0 && cluster.IsAcceleratorResource(name) {
				return true
			}
		}
	}
	return false
}

// isGPUPod is gpurule's GPU pod (the admission policies' default GPU
// resources).
func isGPUPod(p *cluster.Pod) bool { return gpurule.GPUResources.Pod(p) }

func (a *auditor) noToleration(p *cluster.Pod) *hit {
	taints := a.gpuTaints()
	if !isGPUPod(p) || len(taints) == 0 {
		return nil
	}
	var names []string
	for _, t := range taints {
		if gpurule.Tolerated(p.Tolerations, t, false) {
			return nil
		}
		names = append(names, t.Key+"="+t.Value+":"+t.Effect)
	}
	if a.undecided(RuleNoToleration, p) {
		return nil
	}
	h := &hit{severity: Warning,
		message:  "GPU pods without the GPU toleration: they can only land on untainted GPU nodes",
		evidence: []string{"GPU pool taints: " + strings.Join(names, ", "), "phase " + orNone(p.Phase) + ", node " + orNone(p.Node)},
		fix: patchCommand(p, map[string]any{"tolerations": []any{map[string]any{
			"key": taints[0].Key, "operator": "Exists", "effect": "NoSchedule"}}}),
	}
	if p.Node == "" {
		h.severity = Critical
		h.message = "GPU pods without the GPU toleration cannot be scheduled onto the tainted GPU pool"
	}
	return h
}

// modelKeys are node labels that pin a GPU model.
var modelKeys = []string{"nvidia.com/gpu.product", "nvidia.com/gpu.family", "node.kubernetes.io/instance-type",
	"beta.kubernetes.io/instance-type", "karpenter.k8s.aws/instance-gpu-name", "karpenter.k8s.aws/instance-family",
	"cloud.google.com/gke-accelerator", "accelerator", "gpu-model", "gpu-type"}

func (a *auditor) noModelAffinity(p *cluster.Pod) *hit {
	models := map[string]bool{}
	for _, n := range a.gpuNodes() {
		if n.GPUModel != "" {
			models[n.GPUModel] = true
		}
	}
	if len(models) < 2 || !isGPUPod(p) {
		return nil
	}
	for _, k := range modelKeys {
		if len(p.NodeSelector[k]) > 0 {
			return nil
		}
	}
	if a.undecided(RuleNoModelAffinity, p) {
		return nil
	}
	product := "<product>"
	if n := a.s.Index().Nodes[p.Node]; n != nil && n.Labels["nvidia.com/gpu.product"] != "" {
		product = n.Labels["nvidia.com/gpu.product"]
	}
	return &hit{severity: Warning,
		message: fmt.Sprintf("GPU pods without GPU-model affinity in a cluster with %d GPU models: the scheduler may put them on any model", len(models)),
		evidence: []string{"models: " + strings.Join(sortedSet(models), ", "),
			"runs on node " + orNone(p.Node)},
		fix: patchCommand(p, map[string]any{"nodeSelector": map[string]any{"nvidia.com/gpu.product": product}}),
	}
}

func sortedSet(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
