package policy

import (
	"slices"
	"strings"

	"github.com/gpuwise/gpuwise/internal/cluster"
)

// Blocked is what one rule refuses among a snapshot's pods: the pods
// whose creation it would have refused, and their workloads.
type Blocked struct {
	Pods int `json:"pods"`
	// Workloads are "namespace/Kind/name", sorted.
	Workloads []string `json:"workloads"`
}

// Evaluate runs every enabled rule, in Go, over the pods (all of the
// snapshot's: each was created at some point and would have met the rule):
// the same decisions as the generated CEL, on what a snapshot records of a
// pod. A snapshot holds app containers only (no init containers) and the
// GPU resources the Kubernetes source knows (nvidia.com/gpu, .shared,
// mig-*); pods in exempt namespaces are never blocked. It returns one
// Blocked per rule name.
func Evaluate(s Settings, pods []cluster.Pod) map[string]*Blocked {
	out := map[string]*Blocked{}
	for _, r := range Rules {
		if s.Enabled(r.Name) {
			out[r.Name] = &Blocked{Workloads: []string{}}
		}
	}
	for i := range pods {
		p := &pods[i]
		if slices.Contains(s.ExemptNamespaces, p.Namespace) {
			continue
		}
		for _, name := range s.Refusals(p) {
			b := out[name]
			b.Pods++
			if w := p.WorkloadKey(); !slices.Contains(b.Workloads, w) {
				b.Workloads = append(b.Workloads, w)
			}
		}
	}
	for _, b := range out {
		slices.Sort(b.Workloads)
	}
	return out
}

// Refusals are the names of the enabled rules that refuse the pod.
func (s Settings) Refusals(p *cluster.Pod) []string {
	var out []string
	for _, r := range Rules {
		if s.Enabled(r.Name) && s.refuses(r, p) {
			out = append(out, r.Name)
		}
	}
	return out
}

func (s Settings) refuses(r Rule, p *cluster.Pod) bool {
	gpu := s.isGPUPod(p)
	switch r {
	case RuleNonGPUToleration:
		return !gpu && !s.isAgent(p) && s.tolerated(p)
	case RuleLimits:
		return s.badLimits(p)
	case RuleToleration:
		return gpu && !s.tolerated(p)
	case RuleDevWholeGPU:
		return cluster.MatchAny(s.DevNamespaces, p.Namespace) && s.units(p, s.WholeGPUResources) > 0
	case RuleLabels:
		return gpu && len(s.missingLabels(p.Labels)) > 0
	case RuleMaxGPUs:
		max := s.maxGPUs(p.Namespace)
		return max >= 0 && s.units(p, s.GPUResources) > int64(max)
	}
	return false
}

func (s Settings) gpuContainer(c *cluster.Container) bool {
	for name, n := range c.GPURequests {
		if n > 0 && matchResource(s.GPUResources, name) {
			return true
		}
	}
	return false
}

func (s Settings) isGPUPod(p *cluster.Pod) bool {
	return slices.ContainsFunc(p.Containers, func(c cluster.Container) bool { return s.gpuContainer(&c) })
}

func (s Settings) isAgent(p *cluster.Pod) bool {
	return p.Owner.Kind == "DaemonSet" && cluster.MatchAny(s.Agents, p.Namespace+"/"+p.Owner.Name)
}

// Tolerates reports whether a toleration tolerates the GPU taint, as the
// generated CEL decides it.
func (t Taint) Tolerates(tol cluster.Toleration) bool {
	if tol.Effect != "" && tol.Effect != t.Effect {
		return false
	}
	if tol.Key == "" {
		return tol.Operator == "Exists"
	}
	if tol.Key != t.Key {
		return false
	}
	return t.Value == "" || tol.Operator == "Exists" || tol.Value == t.Value
}

func (s Settings) tolerated(p *cluster.Pod) bool {
	return slices.ContainsFunc(p.Tolerations, s.GPUTaint.Tolerates)
}

// badLimits: a GPU container without CPU or memory limits, or with a
// request set and different from its limit.
func (s Settings) badLimits(p *cluster.Pod) bool {
	for i := range p.Containers {
		c := &p.Containers[i]
		if !s.gpuContainer(c) {
			continue
		}
		if c.CPULimitMilli == 0 || c.MemoryLimit == 0 ||
			(c.CPURequestMilli != 0 && c.CPURequestMilli != c.CPULimitMilli) ||
			(c.MemoryRequest != 0 && c.MemoryRequest != c.MemoryLimit) {
			return true
		}
	}
	return false
}

// units counts the pod's units of the resources matching patterns.
func (s Settings) units(p *cluster.Pod, patterns []string) int64 {
	var n int64
	for _, c := range p.Containers {
		for name, k := range c.GPURequests {
			if k > 0 && matchResource(patterns, name) {
				n += k
			}
		}
	}
	return n
}

func (s Settings) missingLabels(labels map[string]string) []string {
	var out []string
	for _, group := range s.RequiredLabels {
		if !slices.ContainsFunc(strings.Split(group, "|"), func(k string) bool { return labels[k] != "" }) {
			out = append(out, group)
		}
	}
	return out
}

// maxGPUs is the namespace's cap, -1 when no entry matches.
func (s Settings) maxGPUs(ns string) int {
	for _, l := range s.MaxGPUsPerPod {
		if cluster.MatchAny(l.Namespaces, ns) {
			return l.Max
		}
	}
	return -1
}
