package policy

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/gpuwise/gpuwise/internal/cluster"
)

// Learn adapts s to a snapshot of the cluster the policies are for, and
// says what it changed and what the rules would refuse there:
//   - the GPU taint: the key (and effect) the GPU nodes' GPU taints share,
//     the most common one when they differ;
//   - the exempt namespaces: those where the GPU Operator's own pods run.
//
// A settings file is applied after Learn, so what a file sets wins.
func Learn(s Settings, snap *cluster.Snapshot) (Settings, []string) {
	var notes []string
	if t, note := gpuTaint(snap); t != nil {
		if *t != s.GPUTaint {
			notes = append(notes, fmt.Sprintf("GPU taint: %s:%s, as the cluster's GPU nodes carry it%s", t.Key, t.Effect, note))
		}
		s.GPUTaint = *t
	} else if hasGPUNodes(snap) {
		notes = append(notes, fmt.Sprintf("no GPU node carries a GPU taint: the toleration rules assume %s:%s; taint the GPU nodes first (gpuwise audit, GW001)",
			s.GPUTaint.Key, s.GPUTaint.Effect))
	}
	for _, ns := range operatorNamespaces(snap) {
		if !slices.Contains(s.ExemptNamespaces, ns) {
			s.ExemptNamespaces = append(slices.Clone(s.ExemptNamespaces), ns)
			notes = append(notes, "exempt namespace "+ns+": the GPU Operator runs there")
		}
	}
	return s, notes
}

func hasGPUNodes(snap *cluster.Snapshot) bool {
	return slices.ContainsFunc(snap.Nodes, func(n cluster.Node) bool { return n.HasGPUs() })
}

// gpuTaint is the most common GPU taint (key and effect) on GPU nodes:
// NoSchedule or NoExecute with the key nvidia.com/gpu or one naming a GPU.
func gpuTaint(snap *cluster.Snapshot) (*Taint, string) {
	count := map[Taint]int{}
	for _, n := range snap.Nodes {
		if !n.HasGPUs() {
			continue
		}
		for _, t := range n.Taints {
			if (t.Effect == "NoSchedule" || t.Effect == "NoExecute") && strings.Contains(strings.ToLower(t.Key), "gpu") {
				count[Taint{Key: t.Key, Effect: t.Effect}]++
			}
		}
	}
	if len(count) == 0 {
		return nil, ""
	}
	taints := make([]Taint, 0, len(count))
	for t := range count {
		taints = append(taints, t)
	}
	sort.Slice(taints, func(i, j int) bool {
		if count[taints[i]] != count[taints[j]] {
			return count[taints[i]] > count[taints[j]]
		}
		return taints[i].Key+taints[i].Effect < taints[j].Key+taints[j].Effect
	})
	note := ""
	if len(taints) > 1 {
		var others []string
		for _, t := range taints[1:] {
			others = append(others, fmt.Sprintf("%s:%s on %d nodes", t.Key, t.Effect, count[t]))
		}
		note = fmt.Sprintf(" on %d nodes (others: %s; one taint per GPU pool keeps the rules simple)", count[taints[0]], strings.Join(others, ", "))
	}
	return &taints[0], note
}

// operatorOwners are the owners only the GPU Operator (or its Helm chart)
// runs.
var operatorOwners = []string{"gpu-operator*", "nvidia-operator-validator*", "nvidia-driver-daemonset*", "nvidia-container-toolkit-daemonset*"}

func operatorNamespaces(snap *cluster.Snapshot) []string {
	seen := map[string]bool{}
	for _, p := range snap.Pods {
		if cluster.MatchAny(operatorOwners, p.Owner.Name) {
			seen[p.Namespace] = true
		}
	}
	out := make([]string, 0, len(seen))
	for ns := range seen {
		out = append(out, ns)
	}
	sort.Strings(out)
	return out
}

// Preview says, per enabled rule, what it would refuse among the
// snapshot's pods.
func Preview(s Settings, snap *cluster.Snapshot) []string {
	blocked := Evaluate(s, snap.Pods)
	AddClaims(blocked, s.EvaluateClaims(snap.DRA))
	var notes []string
	for _, r := range Rules {
		b := blocked[r.Name]
		if b == nil {
			continue
		}
		if b.Pods > 0 {
			notes = append(notes, fmt.Sprintf("%s: would refuse %d pod(s) of %d workload(s) in the snapshot at creation, e.g. %s",
				r.label(), b.Pods, len(b.Workloads), b.Workloads[0]))
		}
		if len(b.Claims) > 0 {
			notes = append(notes, fmt.Sprintf("%s: would refuse %d ResourceClaim(s) or template(s) in the snapshot at creation, e.g. %s",
				r.label(), len(b.Claims), b.Claims[0]))
		}
	}
	return notes
}
