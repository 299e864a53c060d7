package gpurule

import (
	"fmt"
	"slices"
	"strings"

	"github.com/gpuwise/gpuwise/internal/cluster"
)

// Resources are extended-resource patterns: exact names, or a prefix
// ending in "*" ("nvidia.com/mig-*").
type Resources []string

// GPUResources are the resources that make a container a GPU container
// unless the admission settings say otherwise: whole GPUs, time-sliced
// shares (the device plugin's renamed resource) and MIG instances.
var GPUResources = Resources{"nvidia.com/gpu", "nvidia.com/gpu.shared", "nvidia.com/mig-*"}

// WholeGPUResources are the resources that are a whole GPU each.
var WholeGPUResources = Resources{"nvidia.com/gpu"}

// Match reports whether a resource name is one of the patterns.
func (r Resources) Match(name string) bool {
	for _, p := range r {
		if base, ok := strings.CutSuffix(p, "*"); ok && strings.HasPrefix(name, base) || p == name {
			return true
		}
	}
	return false
}

// Container reports whether c is a GPU container: it requests at least
// one unit of a resource matching r.
func (r Resources) Container(c *cluster.Container) bool {
	for name, n := range c.GPURequests {
		if n > 0 && r.Match(name) {
			return true
		}
	}
	return false
}

// Pod reports whether p is a GPU pod: one of its containers is a GPU
// container.
func (r Resources) Pod(p *cluster.Pod) bool {
	return slices.ContainsFunc(p.Containers, func(c cluster.Container) bool { return r.Container(&c) })
}

// Units counts the units p requests of the resources matching r.
func (r Resources) Units(p *cluster.Pod) int64 {
	var n int64
	for _, c := range p.Containers {
		for name, k := range c.GPURequests {
			if k > 0 && r.Match(name) {
				n += k
			}
		}
	}
	return n
}

// Tolerates reports whether tol tolerates the taint t as the scheduler
// decides it: the effect, if the toleration names one, must be t's; an
// empty key with Exists tolerates everything; otherwise the keys must
// match and the operator be Exists, or Equal (the default) with t's
// value. anyValue stands for a taint known by key and effect only (the
// admission settings' GPU taint): any value of it is tolerated by a
// toleration of its key.
func Tolerates(tol cluster.Toleration, t cluster.Taint, anyValue bool) bool {
	if tol.Effect != "" && tol.Effect != t.Effect {
		return false
	}
	if tol.Key == "" {
		return tol.Operator == "Exists"
	}
	if tol.Key != t.Key {
		return false
	}
	return anyValue || tol.Operator == "Exists" || (tol.Operator == "Equal" || tol.Operator == "") && tol.Value == t.Value
}

// Tolerated reports whether one of the tolerations tolerates t.
func Tolerated(tols []cluster.Toleration, t cluster.Taint, anyValue bool) bool {
	return slices.ContainsFunc(tols, func(tol cluster.Toleration) bool { return Tolerates(tol, t, anyValue) })
}

// LimitProblems are why a container's CPU and memory limits fall short
// of Guaranteed QoS: a limit missing, or a request set and different from
// its limit; none when they are fine. bytes writes a memory size.
func LimitProblems(c *cluster.Container, bytes func(int64) string) []string {
	var probs []string
	if c.CPULimitMilli == 0 {
		probs = append(probs, "no CPU limit")
	} else if c.CPURequestMilli != 0 && c.CPURequestMilli != c.CPULimitMilli {
		probs = append(probs, fmt.Sprintf("CPU request %dm ≠ limit %dm", c.CPURequestMilli, c.CPULimitMilli))
	}
	if c.MemoryLimit == 0 {
		probs = append(probs, "no memory limit")
	} else if c.MemoryRequest != 0 && c.MemoryRequest != c.MemoryLimit {
		probs = append(probs, fmt.Sprintf("memory request %s ≠ limit %s", bytes(c.MemoryRequest), bytes(c.MemoryLimit)))
	}
	return probs
}

// BadLimits is the limits rule (GW003): a GPU container (of r) whose
// limits have a problem (LimitProblems).
func BadLimits(p *cluster.Pod, r Resources) bool {
	for i := range p.Containers {
		c := &p.Containers[i]
		if r.Container(c) && len(LimitProblems(c, noBytes)) > 0 {
			return true
		}
	}
	return false
}

func noBytes(int64) string { return "" }

// Held says how many whole GPUs a pod holds, where that is known (a
// bound pod in a snapshot, whose units' kinds the snapshot records):
// known false leaves the answer to the pod's requests.
type Held func(p *cluster.Pod) (n int64, known bool)

// DevWholeGPUs is the dev-namespace rule (GW006): the whole GPUs p takes
// when its namespace matches one of the dev globs, else 0 — what held
// says it holds where held knows, else the units of whole it requests.
// Admission knows only requests (held nil); the audit knows what a bound
// pod holds, which tells a time-slice advertised as nvidia.com/gpu (the
// device plugin without renameByDefault) from a whole GPU.
func DevWholeGPUs(p *cluster.Pod, dev []string, whole Resources, held Held) int64 {
	if !cluster.MatchAny(dev, p.Namespace) {
		return 0
	}
	if held != nil {
		if n, ok := held(p); ok {
			return n
		}
	}
	return whole.Units(p)
}

// Verdict is a rule's answer for one object where the data may not tell:
// No, Yes, or Unknown (a source that cannot read what the rule needs,
// e.g. tolerations or taints Prometheus does not export).
type Verdict int8

const (
	No Verdict = iota
	Yes
	Unknown
)

// Of is Yes or No by b, or Unknown when the data is not known.
func Of(b, known bool) Verdict {
	switch {
	case !known:
		return Unknown
	case b:
		return Yes
	}
	return No
}

func (v Verdict) String() string {
	switch v {
	case Yes:
		return "yes"
	case Unknown:
		return "unknown"
	}
	return "no"
}
