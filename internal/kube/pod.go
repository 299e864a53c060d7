package kube

import (
	"sort"
	"time"

	corev1 "k8s.io/api/core/v1"

	"github.com/gpuwise/gpuwise/internal/cluster"
)

// convertPod maps a pod's spec and status; GPU holdings are assigned
// later, once every pod on the node is known.
func convertPod(p *corev1.Pod, owner cluster.Owner, now time.Time) cluster.Pod {
	out := cluster.Pod{
		Namespace:    p.Namespace,
		Name:         p.Name,
		UID:          string(p.UID),
		Labels:       p.Labels,
		Owner:        owner,
		Node:         p.Spec.NodeName,
		Phase:        string(p.Status.Phase),
		Start:        startOf(p),
		NodeSelector: selectorOf(&p.Spec),
	}
	for _, t := range p.Spec.Tolerations {
		out.Tolerations = append(out.Tolerations, cluster.Toleration{
			Key: t.Key, Operator: string(t.Operator), Value: t.Value, Effect: string(t.Effect)})
	}
	for i := range p.Spec.Containers {
		out.Containers = append(out.Containers, convertContainer(&p.Spec.Containers[i]))
	}
	if terminated(p) {
		out.End = endOf(p, out.Start, now)
		out.EndReason = endReason(p)
	}
	// An invalid hint is no hint: the spot decision then treats the job
	// as not checkpointed, the safe side.
	out.CheckpointSeconds, _ = cluster.CheckpointFrom(p.Labels, p.Annotations)
	return out
}

// endReason is why a terminated pod ended as the kubelet or the control
// plane recorded it: its status reason ("Evicted", "NodeLost") or, when
// none, the reason of its DisruptionTarget condition
// ("PreemptionByScheduler", "EvictionByEvictionAPI", …).
func endReason(p *corev1.Pod) string {
	if p.Status.Reason != "" {
		return p.Status.Reason
	}
	for _, c := range p.Status.Conditions {
		if c.Type == corev1.DisruptionTarget && c.Status == corev1.ConditionTrue {
			return c.Reason
		}
	}
	return ""
}

// startOf is status.startTime (when the kubelet accepted the pod), or
// the creation time for a pod that was never started.
func startOf(p *corev1.Pod) time.Time {
	if p.Status.StartTime != nil {
		return p.Status.StartTime.Time
	}
	return p.CreationTimestamp.Time
}

func terminated(p *corev1.Pod) bool {
	return p.Status.Phase == corev1.PodSucceeded || p.Status.Phase == corev1.PodFailed
}

// endOf is the last container finish time of a terminated pod, never
// before its start; now when the status records none.
func endOf(p *corev1.Pod, start, now time.Time) time.Time {
	var end time.Time
	for _, cs := range p.Status.ContainerStatuses {
		if t := cs.State.Terminated; t != nil && t.FinishedAt.After(end) {
			end = t.FinishedAt.Time
		}
	}
	if end.IsZero() {
		end = now
	}
	if end.Before(start) {
		end = start
	}
	return end
}

func convertContainer(c *corev1.Container) cluster.Container {
	req, lim := c.Resources.Requests, c.Resources.Limits
	out := cluster.Container{
		Name:            c.Name,
		CPURequestMilli: milli(req, corev1.ResourceCPU),
		CPULimitMilli:   milli(lim, corev1.ResourceCPU),
		MemoryRequest:   value(req, corev1.ResourceMemory),
		MemoryLimit:     value(lim, corev1.ResourceMemory),
	}
	// Extended resources have request == limit (the API enforces it), and
	// a limit alone defaults the request; read the limit first.
	for _, list := range []corev1.ResourceList{lim, req} {
		for name, q := range list {
			n, ok := q.AsInt64()
			if !IsGPUResource(string(name)) || !ok || n <= 0 {
				continue
			}
			if out.GPURequests == nil {
				out.GPURequests = map[string]int64{}
			}
			if _, seen := out.GPURequests[string(name)]; !seen {
				out.GPURequests[string(name)] = n
			}
		}
	}
	out.GPUCores = askOf(lim, req, resHAMiCores)
	out.GPUMemoryMiB = askOf(lim, req, resHAMiMem)
	out.GPUMemoryPercent = min(askOf(lim, req, resHAMiMemPercent), 100)
	return out
}

// askOf is a HAMi ask, its limit first (HAMi reads limits, then
// requests); 0 when absent or not a positive whole number.
func askOf(lim, req corev1.ResourceList, name corev1.ResourceName) int64 {
	for _, l := range []corev1.ResourceList{lim, req} {
		if q, ok := l[name]; ok {
			if n, ok := q.AsInt64(); ok && n > 0 {
				return n
			}
			return 0
		}
	}
	return 0
}

func milli(l corev1.ResourceList, name corev1.ResourceName) int64 {
	if q, ok := l[name]; ok {
		return max(q.MilliValue(), 0)
	}
	return 0
}

func value(l corev1.ResourceList, name corev1.ResourceName) int64 {
	if q, ok := l[name]; ok {
		return max(q.Value(), 0)
	}
	return 0
}

// selectorOf flattens nodeSelector and the required node-affinity terms
// with operator In to key → allowed values. Terms are ORed by the
// scheduler, so their values are unioned.
func selectorOf(spec *corev1.PodSpec) map[string][]string {
	sel := map[string][]string{}
	for k, v := range spec.NodeSelector {
		sel[k] = append(sel[k], v)
	}
	if a := spec.Affinity; a != nil && a.NodeAffinity != nil && a.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution != nil {
		for _, term := range a.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution.NodeSelectorTerms {
			for _, e := range term.MatchExpressions {
				if e.Operator == corev1.NodeSelectorOpIn {
					sel[e.Key] = append(sel[e.Key], e.Values...)
				}
			}
		}
	}
	if len(sel) == 0 {
		return nil
	}
	for k, vs := range sel {
		sort.Strings(vs)
		sel[k] = compact(vs)
	}
	return sel
}

func compact(vs []string) []string {
	out := vs[:0]
	for i, v := range vs {
		if i == 0 || v != vs[i-1] {
			out = append(out, v)
		}
	}
	return out
}
