package policy

import (
	"slices"
	"strings"

	"github.com/gpuwise/gpuwise/internal/cluster"
	"github.com/gpuwise/gpuwise/internal/gpurule"
)

// Blocked is what one rule refuses among a snapshot's pods: the pods
// whose creation it would have refused, and their workloads.
type Blocked struct {
	Pods int `json:"pods"`
	// Workloads are "namespace/Kind/name", sorted.
	Workloads []string `json:"workloads"`
	// Claims are the GPU ResourceClaims and ResourceClaimTemplates the
	// rule's claim policies would refuse ("ResourceClaim ns/name"),
	// sorted (EvaluateClaims).
	Claims []string `json:"claims,omitempty"`
}

// AddClaims puts what EvaluateClaims found into blocked.
func AddClaims(blocked map[string]*Blocked, claims map[string][]string) {
	for rule, keys := range claims {
		if b := blocked[rule]; b != nil {
			b.Claims = keys
		}
	}
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

// refuses is the rule's predicate: the GPU pod, toleration, limits and
// dev-namespace rules are package gpurule's, the audit's too.
func (s Settings) refuses(r Rule, p *cluster.Pod) bool {
	gpus := gpurule.Resources(s.GPUResources)
	gpu := gpus.Pod(p)
	switch r {
	case RuleNonGPUToleration:
		// A pod holding a GPU through a ResourceClaim names the claim,
		// which admission lets pass (claims.go).
		return !gpu && len(p.Claims) == 0 && !s.isAgent(p) && s.tolerated(p)
	case RuleLimits:
		return gpurule.BadLimits(p, gpus)
	case RuleToleration:
		return gpu && !s.tolerated(p)
	case RuleDevWholeGPU:
		return gpurule.DevWholeGPUs(p, s.DevNamespaces, s.WholeGPUResources, nil) > 0
	case RuleLabels:
		return gpu && len(s.missingLabels(p.Labels)) > 0
	case RuleMaxGPUs:
		max := s.maxGPUs(p.Namespace)
		return max >= 0 && gpus.Units(p) > int64(max)
	}
	return false
}

func (s Settings) isAgent(p *cluster.Pod) bool {
	return p.Owner.Kind == "DaemonSet" && cluster.MatchAny(s.Agents, p.Namespace+"/"+p.Owner.Name)
}

// Tolerates reports whether a toleration tolerates the GPU taint, as the
// generated CEL decides it (gpurule.Tolerates; a taint without a value is
// tolerated whatever value the toleration names).
func (t Taint) Tolerates(tol cluster.Toleration) bool {
	return gpurule.Tolerates(tol, cluster.Taint{Key: t.Key, Value: t.Value, Effect: t.Effect}, t.Value == "")
}

func (s Settings) tolerated(p *cluster.Pod) bool {
	return slices.ContainsFunc(p.Tolerations, s.GPUTaint.Tolerates)
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
