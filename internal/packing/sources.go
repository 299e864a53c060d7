package packing

import (
	"maps"
	"strings"

	"github.com/gpuwise/gpuwise/internal/cluster"
)

// unknownConstraints names the placement constraints the snapshot's
// source could not read (cluster.Snapshot.Unknown): the plan cannot
// honour what it cannot see, and says so.
func unknownConstraints(s *cluster.Prepared) []string {
	var out []string
	for _, f := range []string{cluster.FactTolerations, cluster.FactNodeSelectors, cluster.FactNodeAffinity, cluster.FactTaints} {
		if s.Knows(f) {
			continue
		}
		switch f {
		case cluster.FactTolerations:
			out = append(out, "placement constraint unknown: pod tolerations (the source could not read them); each pod moves only onto nodes whose taints it was seen to tolerate (those of the node it ran on)")
		case cluster.FactTaints:
			out = append(out, "placement constraint unknown: node taints (the source could not read them); check each move against the target node's taints")
		default:
			out = append(out, "placement constraint unknown: pod "+f+" (the source could not read them); check each move against the pod's "+f)
		}
	}
	if len(out) > 0 {
		out = append(out, "unknown constraints: "+strings.Join(s.Unknown(), ", ")+" (read them from the API: add --context)")
	}
	return out
}

// confined keeps a workload in its own cluster: a merged snapshot's
// nodes carry cluster.ClusterLabel, and a pod moves only among nodes of
// the cluster it runs in.
func confined(sel map[string][]string, nodeLabels map[string]string) map[string][]string {
	name := nodeLabels[cluster.ClusterLabel]
	if name == "" {
		return sel
	}
	out := maps.Clone(sel)
	if out == nil {
		out = map[string][]string{}
	}
	out[cluster.ClusterLabel] = []string{name}
	return out
}
