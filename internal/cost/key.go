package cost

import (
	"fmt"
	"strings"

	"github.com/gpuwise/gpuwise/internal/cluster"
)

// UnallocatedKey labels rows of capacity no pod held when the grouping key
// belongs to pods (namespace, workload, pod, label).
const UnallocatedKey = "__unallocated__"

type keyer func(l *Line) string

// keyFunc returns the grouping function for a --by value.
func keyFunc(by string) (keyer, error) {
	podKey := func(f func(l *Line) string) keyer {
		return func(l *Line) string {
			if l.Pod == nil {
				return UnallocatedKey
			}
			return f(l)
		}
	}
	switch {
	case by == "namespace":
		return podKey(func(l *Line) string { return l.Pod.Namespace }), nil
	case by == "workload":
		return podKey(func(l *Line) string { return l.Pod.WorkloadKey() }), nil
	case by == "pod":
		return podKey(func(l *Line) string { return l.Pod.Key() }), nil
	case by == "node":
		return func(l *Line) string { return l.Node.Name }, nil
	case by == "gpu-model":
		return func(l *Line) string { return orNone(l.Node.GPUModel, "(unknown model)") }, nil
	case by == "capacity-type":
		return func(l *Line) string { return orNone(l.Node.Capacity, "(unknown)") }, nil
	case by == "mechanism":
		// How the line's GPUs are allocated (a pod without GPU units on
		// a GPU node: its CPU and memory only).
		return func(l *Line) string { return orNone(l.Mechanism, "(no GPU)") }, nil
	case by == "cluster":
		return func(l *Line) string { return orNone(l.Node.Labels[cluster.ClusterLabel], "(unnamed cluster)") }, nil
	case strings.HasPrefix(by, "label:") && len(by) > len("label:"):
		label := strings.TrimPrefix(by, "label:")
		if err := checkLabelKey(by, label); err != nil {
			return nil, err
		}
		return podKey(func(l *Line) string { return orNone(l.Pod.Labels[label], "(no "+label+")") }), nil
	}
	return nil, fmt.Errorf("by: %q is not one of namespace, workload, pod, node, gpu-model, capacity-type, mechanism, cluster, label:KEY", by)
}

func orNone(v, none string) string {
	if v == "" {
		return none
	}
	return v
}

// checkLabelKey refuses what is not one Kubernetes label key: a comma
// (two groupings in one --by, which rows cannot nest) or a key outside
// the label syntax ([prefix/]name: a name of at most 63 characters,
// alphanumerics with - _ . inside; a prefix a DNS subdomain of at most
// 253), which no pod can carry, so every pod would fall in "(no KEY)".
func checkLabelKey(by, key string) error {
	if strings.Contains(key, ",") {
		return fmt.Errorf("by: %q groups by more than one key; rows group by one: run once per key (--by label:%s)", by, strings.TrimPrefix(strings.SplitN(key, ",", 2)[0], "label:"))
	}
	prefix, name, hasPrefix := strings.Cut(key, "/")
	if !hasPrefix {
		prefix, name = "", key
	}
	bad := func(why string) error {
		return fmt.Errorf("by: %q: %q is not a label key (%s)", by, key, why)
	}
	if hasPrefix && (prefix == "" || len(prefix) > 253 || !dnsSubdomain(prefix)) {
		return bad("its prefix before / must be a DNS subdomain: lowercase letters, digits, - and .")
	}
	if name == "" || len(name) > 63 || !labelName(name) {
		return bad("a name is at most 63 letters, digits, -, _ and ., beginning and ending with a letter or digit")
	}
	return nil
}

func alnum(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' }

func labelName(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !alnum(c) && !((c == '-' || c == '_' || c == '.') && i > 0 && i < len(s)-1) {
			return false
		}
	}
	return true
}

func dnsSubdomain(s string) bool {
	for _, part := range strings.Split(s, ".") {
		if part == "" || len(part) > 63 {
			return false
		}
		for i := 0; i < len(part); i++ {
			c := part[i]
			lower := c >= 'a' && c <= 'z' || c >= '0' && c <= '9'
			if !lower && !(c == '-' && i > 0 && i < len(part)-1) {
				return false
			}
		}
	}
	return true
}
