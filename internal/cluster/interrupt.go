package cluster

import (
	"slices"
	"strings"
	"time"
)

// Reasons a node went away (Node.EndReason).
const (
	// NodeSpotInterrupted: the cloud reclaimed a spot instance.
	NodeSpotInterrupted = "spot-interruption"
	// NodeScaledDown: an autoscaler removed an empty or underused node
	// (Karpenter consolidation, cluster-autoscaler scale-down); not an
	// interruption.
	NodeScaledDown = "scale-down"
)

// podDisruptions are the pod end reasons that mean the pod was stopped
// from outside rather than finishing: kubelet status reasons as
// kube-state-metrics exports them (kube_pod_status_reason) and the
// reasons of the DisruptionTarget pod condition.
var podDisruptions = []string{
	"Evicted", "NodeLost", "Shutdown", "Terminated",
	"PreemptionByScheduler", "DeletionByTaintManager", "EvictionByEvictionAPI",
	"DeletionByPodGC", "TerminationByKubelet",
}

// A pod counts as lost with its node when it ended no earlier than
// drainBefore its node's deletion (a spot notice gives two minutes to
// drain) and no later than seenAfter it: a pod whose object went with the
// node has no completion time, and Prometheus dates its end by its last
// kube_pod_info sighting plus an info step. A pod that ended earlier had
// finished (an emptied node is then scaled down).
const (
	drainBefore = 3 * time.Minute
	seenAfter   = time.Hour
)

// Interruption is one disruption a workload did not ask for: a spot node
// that went away inside the window, or a pod evicted, preempted or lost
// with its node.
type Interruption struct {
	At time.Time `json:"at"`
	// Kind is "node" or "pod"; Name the node name or the pod key.
	Kind string `json:"kind"`
	Name string `json:"name"`
	// Workload is the pod's workload key; empty for nodes.
	Workload string `json:"workload,omitempty"`
	Reason   string `json:"reason"`
}

// Interruptions lists the snapshot's interruptions in time order: spot
// nodes deleted before the window's end (unless the source says they were
// scaled down), and pods that ended before it with a disruption reason or
// within minutes of their node's deletion without succeeding.
func Interruptions(s *Snapshot) []Interruption {
	var out []Interruption
	nodes := make(map[string]*Node, len(s.Nodes))
	for i := range s.Nodes {
		n := &s.Nodes[i]
		nodes[n.Name] = n
		if it, ok := nodeInterruption(n, s.Window); ok {
			out = append(out, it)
		}
	}
	for i := range s.Pods {
		if it, ok := podInterruption(&s.Pods[i], nodes[s.Pods[i].Node], s.Window); ok {
			out = append(out, it)
		}
	}
	slices.SortStableFunc(out, func(a, b Interruption) int {
		if c := a.At.Compare(b.At); c != 0 {
			return c
		}
		return strings.Compare(a.Name, b.Name)
	})
	return out
}

func inside(w Window, t time.Time) bool {
	return !t.IsZero() && !t.Before(w.Start) && t.Before(w.End)
}

func nodeInterruption(n *Node, w Window) (Interruption, bool) {
	if n.Capacity != Spot || !inside(w, n.Deleted) || n.EndReason == NodeScaledDown {
		return Interruption{}, false
	}
	reason := n.EndReason
	if reason == "" {
		reason = "spot node went away (reason not recorded)"
	}
	return Interruption{At: n.Deleted, Kind: "node", Name: n.Name, Reason: reason}, true
}

func podInterruption(p *Pod, n *Node, w Window) (Interruption, bool) {
	if !inside(w, p.End) {
		return Interruption{}, false
	}
	it := Interruption{At: p.End, Kind: "pod", Name: p.Key(), Workload: p.WorkloadKey(), Reason: p.EndReason}
	if slices.Contains(podDisruptions, p.EndReason) {
		return it, true
	}
	// A DaemonSet's pod goes with every node: infrastructure, not a
	// workload interrupted.
	if p.Phase == "Succeeded" || p.Owner.Kind == "DaemonSet" || n == nil || !inside(w, n.Deleted) || n.EndReason == NodeScaledDown {
		return Interruption{}, false
	}
	if d := p.End.Sub(n.Deleted); d < -drainBefore || d > seenAfter {
		return Interruption{}, false
	}
	if it.Reason == "" {
		it.Reason = "lost with node " + n.Name
	}
	return it, true
}

// PerWeek scales a count over the window to a count per 7 days.
func PerWeek(count int, w Window) float64 {
	h := w.Hours()
	if h <= 0 {
		return 0
	}
	return float64(count) * 168 / h
}
