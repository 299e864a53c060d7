//go:build integration

package kube

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	corev1 "k8s.io/api/core/v1"

	"github.com/gpuwise/gpuwise/internal/packing"
)

// order sorts the free variant's pods the way a greedy packer should meet
// them: on a later attempt the pods refused last time first, then those
// with the fewest eligible nodes (a pod that could go anywhere must not
// take the only node another can use), then the largest GPU demand, CPU
// and memory. Each distinct (eligible nodes, GPU demand)
// is a level with its own priority class, created one after the other, so
// the scheduler meets them in that order (the classes never preempt).
func (r *verifyRun) order() {
	type key struct {
		first    bool
		gpu      float64
		eligible int
		cpu, mem int64
	}
	keys := map[*corev1.Pod]key{}
	for _, p := range r.placed {
		rq := p.Spec.Containers[0].Resources.Requests
		k := key{first: r.first[p.Annotations[annoID]], eligible: r.eligible(p), cpu: rq.Cpu().MilliValue(), mem: rq.Memory().Value()}
		for res, q := range rq {
			switch {
			case res == packing.ResourceGPU:
				k.gpu = float64(q.Value())
			case strings.HasPrefix(string(res), "nvidia.com/"):
				k.gpu = 0.5 // fractional shapes between whole GPUs and none
			}
		}
		keys[p] = k
	}
	sort.SliceStable(r.placed, func(i, j int) bool {
		a, b := keys[r.placed[i]], keys[r.placed[j]]
		switch {
		case a.first != b.first:
			return a.first
		case a.eligible != b.eligible:
			return a.eligible < b.eligible
		case a.gpu != b.gpu:
			return a.gpu > b.gpu
		case a.cpu != b.cpu:
			return a.cpu > b.cpu
		}
		return a.mem > b.mem
	})
	level := 0
	for i, p := range r.placed {
		if i > 0 {
			a, b := keys[r.placed[i-1]], keys[p]
			if a.first != b.first || a.eligible != b.eligible || a.gpu != b.gpu {
				level++
			}
		}
		p.Spec.PriorityClassName = priorityClass(level)
	}
}

// eligible counts the run's nodes that could take the pod alone: taints
// tolerated, the required term matched, requests within allocatable. It
// only orders pods; the scheduler decides.
func (r *verifyRun) eligible(p *corev1.Pod) int {
	n := 0
	for _, node := range r.nodes {
		if tolerates(p.Spec.Tolerations, node.Spec.Taints) && matches(p.Spec.Affinity, node.Labels) &&
			fits(p.Spec.Containers[0].Resources.Requests, node.Status.Allocatable) {
			n++
		}
	}
	return n
}

func tolerates(tols []corev1.Toleration, taints []corev1.Taint) bool {
	for _, t := range taints {
		if t.Effect == corev1.TaintEffectPreferNoSchedule {
			continue
		}
		ok := false
		for _, tol := range tols {
			if (tol.Effect == "" || tol.Effect == t.Effect) && (tol.Key == "" || tol.Key == t.Key) &&
				(tol.Operator == corev1.TolerationOpExists || tol.Value == t.Value) {
				ok = true
			}
		}
		if !ok {
			return false
		}
	}
	return true
}

func matches(a *corev1.Affinity, labels map[string]string) bool {
	for _, e := range a.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution.NodeSelectorTerms[0].MatchExpressions {
		v, ok := labels[e.Key]
		if !ok || (e.Operator == corev1.NodeSelectorOpIn && !slices.Contains(e.Values, v)) {
			return false
		}
	}
	return true
}

func fits(req, alloc corev1.ResourceList) bool {
	for res, q := range req {
		if a, ok := alloc[res]; !ok || q.Cmp(a) > 0 {
			return false
		}
	}
	return true
}

// priorityLevels bounds the free variant's ordering levels; pods beyond
// the last share it.
const priorityLevels = 40

// priorityClass names the class of an ordering level; level 0 has the
// highest priority.
func priorityClass(level int) string {
	return fmt.Sprintf("verify-gpuwise-%02d", min(level, priorityLevels-1))
}
