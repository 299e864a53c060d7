package packing

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/gpuwise/gpuwise/internal/cluster"
)

// untolerated returns the first taint of the node that keeps the pod off
// (NoSchedule or NoExecute without a matching toleration), or nil.
// PreferNoSchedule only steers the scheduler and never blocks.
func untolerated(taints []cluster.Taint, tols []cluster.Toleration) *cluster.Taint {
	for i := range taints {
		t := &taints[i]
		if t.Effect != "NoSchedule" && t.Effect != "NoExecute" {
			continue
		}
		if !tolerated(t, tols) {
			return t
		}
	}
	return nil
}

func tolerated(t *cluster.Taint, tols []cluster.Toleration) bool {
	for _, tol := range tols {
		if tol.Effect != "" && tol.Effect != t.Effect {
			continue
		}
		switch {
		case tol.Key == "" && tol.Operator == "Exists":
			return true // tolerates everything
		case tol.Key != t.Key:
			continue
		case tol.Operator == "Exists", tol.Value == t.Value:
			return true
		}
	}
	return false
}

// unmatched returns the first selector term the node's labels fail, or "".
// A term with no values asks only that the label exists.
func unmatched(sel map[string][]string, labels map[string]string) string {
	keys := make([]string, 0, len(sel))
	for k := range sel {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		v, ok := labels[k]
		vals := sel[k]
		if !ok || (len(vals) > 0 && !slices.Contains(vals, v)) {
			return fmt.Sprintf("%s in (%s)", k, strings.Join(vals, ", "))
		}
	}
	return ""
}

// modelAllowed reports whether a GPU model is in the workload's allowed set.
func modelAllowed(models []string, m string) bool {
	return len(models) == 0 || slices.Contains(models, m)
}

// perNodeLabel reports labels that differ between otherwise identical
// nodes; they are left out of the node class and checked per node.
func perNodeLabel(key, value, node string) bool {
	return perNodeKey(key) || value == node
}

// perNodeKey reports label keys whose value is unique per node.
func perNodeKey(key string) bool {
	return key == "kubernetes.io/hostname" || key == "nvidia.com/gfd.timestamp"
}
