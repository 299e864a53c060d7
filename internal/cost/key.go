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
	case by == "cluster":
		return func(l *Line) string { return orNone(l.Node.Labels[cluster.ClusterLabel], "(unnamed cluster)") }, nil
	case strings.HasPrefix(by, "label:") && len(by) > len("label:"):
		label := strings.TrimPrefix(by, "label:")
		return podKey(func(l *Line) string { return orNone(l.Pod.Labels[label], "(no "+label+")") }), nil
	}
	return nil, fmt.Errorf("by: %q is not one of namespace, workload, pod, node, gpu-model, capacity-type, cluster, label:KEY", by)
}

func orNone(v, none string) string {
	if v == "" {
		return none
	}
	return v
}
