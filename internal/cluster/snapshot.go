package cluster

// Snapshot is a cluster and its usage summaries over a window: the
// immutable input every engine computes on.
type Snapshot struct {
	Window Window `json:"window"`
	// Source says where the snapshot came from ("sim seed 1", a
	// kubeconfig context, a trace) for the report's data notes.
	Source string `json:"source"`
	// ActivityMetric names the DCGM field that activity came from.
	ActivityMetric string `json:"activity_metric,omitempty"`
	Nodes          []Node `json:"nodes"`
	Pods           []Pod  `json:"pods"`
	// Hourly holds hour-by-hour series per GPU workload; nil when the
	// source kept none (a live inventory, an older snapshot file).
	Hourly *Hourly `json:"hourly,omitempty"`
	// HourSums are Hourly's raw sums, kept only when the caller asks the
	// source for them (the service merges them across the intervals it
	// reads); never written to a file.
	HourSums *HourSums `json:"-"`
	// Notes are data-quality notes from whoever built the snapshot.
	Notes []string `json:"notes,omitempty"`
	// Partial says, one sentence each, what the source could not read and
	// which figures that changes; empty when nothing is missing. A result
	// built on a partial snapshot is partial and says so before anything
	// else.
	Partial []string `json:"partial,omitempty"`
	// Unknown names the facts the source could not read (FactTolerations,
	// FactNodeSelectors, FactNodeAffinity, FactTaints), sorted: a rule or
	// a placement constraint resting on one is not decided from the
	// snapshot (an audit rule is "unknown", a plan names the constraint it
	// could not see). Empty: the source reads them all.
	Unknown []string `json:"unknown,omitempty"`
	// DRA is the cluster's DRA drivers, device classes and GPU claims;
	// nil when the source read none (no resource.k8s.io API, Prometheus).
	DRA *DRAInfo `json:"dra,omitempty"`
	// Kueue is the cluster's Kueue queues, flavors and GPU workloads; nil
	// when the source read none (no kueue.x-k8s.io API, Prometheus).
	Kueue *KueueInfo `json:"kueue,omitempty"`
	// Controls are the cluster's autoscalers, Karpenter NodePools and
	// admission policies; nil when the source read none (Prometheus, a
	// demo, an older snapshot file).
	Controls *Controls `json:"controls,omitempty"`
}

// Facts a source may be unable to read (Snapshot.Unknown).
const (
	// FactTolerations: pod tolerations (kube-state-metrics'
	// kube_pod_tolerations).
	FactTolerations = "tolerations"
	// FactNodeSelectors: pod nodeSelector terms (kube_pod_nodeselectors,
	// opt-in in kube-state-metrics).
	FactNodeSelectors = "node selectors"
	// FactNodeAffinity: pods' required node affinity, which
	// kube-state-metrics does not export.
	FactNodeAffinity = "node affinity"
	// FactTaints: node taints (kube_node_spec_taint).
	FactTaints = "taints"
	// FactOwners: pods' owning workloads (kube_pod_owner, and
	// kube_replicaset_owner for Deployments' pods); without them every
	// pod is its own workload.
	FactOwners = "owners"
	// FactPodLifetimes: pods' measured start and end times
	// (kube_pod_start_time, kube_pod_completion_time); without them the
	// lives are estimated from kube_pod_info's sightings.
	FactPodLifetimes = "pod lifetimes"
)

// Knows reports whether the snapshot's source read fact (not listed in
// Unknown).
func (s *Snapshot) Knows(fact string) bool {
	for _, u := range s.Unknown {
		if u == fact {
			return false
		}
	}
	return true
}
