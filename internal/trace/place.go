package trace

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/gpuwise/gpuwise/internal/cluster"
	"github.com/gpuwise/gpuwise/internal/usage"
)

// GenAINamespace is the namespace every trace pod is placed in.
const GenAINamespace = "genai"

// ownerPrefixLen is how much of a container_ip hash names its Deployment.
const ownerPrefixLen = 8

// build assembles the snapshot: the window, nodes of opts' shape, and one
// pod per duty-cycle series, placed GPUsPerNode per node in order of first
// sample.
func build(dir string, opts GenAIOptions, duty, mem *series, activity map[string]*usage.Activity, framebuffer map[string]*usage.Gauge) *cluster.Snapshot {
	c := clock{origin: duty.start}
	s := &cluster.Snapshot{
		Window:         cluster.Window{Start: c.at(duty.start), End: c.at(duty.end + duty.step)},
		Source:         "GenAI-2026 trace " + dir,
		ActivityMetric: GenAIActivityMetric,
	}
	nodes := (len(duty.order) + opts.GPUsPerNode - 1) / opts.GPUsPerNode
	for i := range nodes {
		s.Nodes = append(s.Nodes, node(fmt.Sprintf("genai-node-%02d", i), opts))
	}
	for i, ip := range duty.order {
		n := &s.Nodes[i/opts.GPUsPerNode]
		unit := n.GPUs[i%opts.GPUsPerNode].Units[0].ID
		p := pod(ip, n.Name, unit, duty.pods[ip], c, duty.step)
		p.GPUs[0].Activity, p.GPUs[0].FramebufferMiB = activity[ip], framebuffer[ip]
		if duty.pods[ip].last == duty.end {
			p.Phase = "Running"
		}
		s.Pods = append(s.Pods, p)
	}
	s.Notes = notes(opts, duty, mem, len(s.Nodes))
	return s
}

func node(name string, o GenAIOptions) cluster.Node {
	n := cluster.Node{
		Name: name,
		Labels: map[string]string{
			"node.kubernetes.io/instance-type": o.InstanceType,
			"topology.kubernetes.io/region":    o.Region,
			"karpenter.sh/capacity-type":       o.Capacity,
			"nvidia.com/gpu.count":             strconv.Itoa(o.GPUsPerNode),
		},
		Cloud: o.Cloud, Region: o.Region, InstanceType: o.InstanceType, Capacity: o.Capacity,
		CPUMilli: o.CPUCores * 1000, MemoryBytes: o.MemoryGiB << 30, GPUModel: o.GPUModel,
	}
	for g := range o.GPUsPerNode {
		n.GPUs = append(n.GPUs, cluster.GPU{
			Index: g, Model: o.GPUModel, MemoryMiB: o.GPUMemoryMiB, Sharing: cluster.Exclusive, Replicas: 1,
			Units: []cluster.Unit{{ID: fmt.Sprintf("%s/gpu%d", name, g), Kind: cluster.WholeGPU, Fraction: 1}},
		})
	}
	return n
}

// pod is the pod of one container_ip: it runs from its first sample until
// one step after its last and holds one whole GPU.
func pod(ip, nodeName, unit string, sp *span, c clock, step float64) cluster.Pod {
	owner := GenAINamespace + "-" + ip[:min(ownerPrefixLen, len(ip))]
	return cluster.Pod{
		Namespace: GenAINamespace,
		Name:      ip,
		UID:       ip,
		Labels:    map[string]string{"app": owner},
		Owner:     cluster.Owner{Kind: "Deployment", Name: owner},
		Node:      nodeName,
		Start:     c.at(sp.first),
		End:       c.at(sp.last + step),
		Containers: []cluster.Container{{
			Name:        "server",
			GPURequests: map[string]int64{"nvidia.com/gpu": 1},
		}},
		GPUs: []cluster.Holding{{UnitID: unit}},
	}
}

// notes states every assumption the snapshot rests on.
func notes(o GenAIOptions, duty, mem *series, nodes int) []string {
	out := []string{
		fmt.Sprintf("GenAI-2026 trace (Alibaba cluster-trace-v2026-GenAI): anonymized timestamps are seconds, "+
			"sampled every %g s (median); timestamp t maps to %s + (t - %.0f) s, so the window [%.0f, %.0f + %g) is %s to %s",
			duty.step, GenAIEpoch.Format(time.RFC3339), duty.start, duty.start, duty.end, duty.step,
			GenAIEpoch.Format(time.RFC3339), clock{duty.start}.at(duty.end+duty.step).Format(time.RFC3339)),
		fmt.Sprintf("each container_ip is one pod holding one whole GPU: %d pods in namespace %s, each its own Deployment "+
			"named after its hash prefix, placed %d per node in order of first sample on %d %s %s %s %s nodes "+
			"(%d x %s, %d vCPU, %d GiB), assumed provisioned for the whole window",
			len(duty.order), GenAINamespace, o.GPUsPerNode, nodes, o.Cloud, o.InstanceType, o.Region, o.Capacity,
			o.GPUsPerNode, o.GPUModel, o.CPUCores, o.MemoryGiB),
		fmt.Sprintf("a duty-cycle sample stands for the gap to its pod's next sample, capped at 2 x %g s, so longer gaps "+
			"are unmeasured, not idle; a pod runs from its first sample to one step after its last", duty.step),
		"GPU memory used is read as DCGM_FI_DEV_FB_USED (framebuffer MiB); the trace has no CPU or memory requests " +
			"or usage, so pods carry no CPU or memory cost and the nodes' CPU and memory cost is unallocated",
	}
	var skipped []string
	var samples int
	for _, ip := range mem.order {
		if duty.pods[ip] == nil {
			skipped = append(skipped, ip)
			samples += mem.pods[ip].samples
		}
	}
	if len(skipped) > 0 {
		out = append(out, fmt.Sprintf("%d memory-used sample(s) of %d container_ip(s) without a duty-cycle series were skipped: %s",
			samples, len(skipped), strings.Join(skipped[:min(3, len(skipped))], ", ")))
	}
	return out
}
