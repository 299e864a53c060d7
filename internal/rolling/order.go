package rolling

import (
	"sort"

	"github.com/gpuwise/gpuwise/internal/cluster"
)

func sortedSet(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// sortSnapshot orders nodes and pods by name, as every source does.
func sortSnapshot(s *cluster.Snapshot) {
	sort.Slice(s.Nodes, func(i, j int) bool { return s.Nodes[i].Name < s.Nodes[j].Name })
	sort.Slice(s.Pods, func(i, j int) bool {
		if a, b := s.Pods[i].Key(), s.Pods[j].Key(); a != b {
			return a < b
		}
		return s.Pods[i].Start.Before(s.Pods[j].Start)
	})
}
