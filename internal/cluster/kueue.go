package cluster

import (
	"fmt"
	"sort"
	"time"
)

// KueueInfo is what Kueue's API (kueue.x-k8s.io/v1beta2) says about the
// cluster's GPU queues: ClusterQueues with their GPU quotas and usage,
// LocalQueues, ResourceFlavors, Cohort objects and the Workloads of the
// GPU queues with their admission. Only GPU resources are kept (the
// quotas and requests of resources gpurule counts as GPUs); a queue
// without any GPU quota is still listed, with none. See docs/kueue.md.
type KueueInfo struct {
	ClusterQueues []ClusterQueue   `json:"cluster_queues,omitempty"`
	LocalQueues   []LocalQueue     `json:"local_queues,omitempty"`
	Flavors       []ResourceFlavor `json:"resource_flavors,omitempty"`
	Cohorts       []Cohort         `json:"cohorts,omitempty"`
	Workloads     []QueuedWorkload `json:"workloads,omitempty"`
}

// ClusterQueue is a Kueue ClusterQueue: its cohort (spec.cohortName) and
// its GPU quotas per flavor and resource.
type ClusterQueue struct {
	Name   string       `json:"name"`
	Cohort string       `json:"cohort,omitempty"`
	Quotas []QueueQuota `json:"quotas,omitempty"`
	// Pending and Admitted are status.pendingWorkloads and
	// status.admittedWorkloads when the snapshot was read.
	Pending  int `json:"pending_workloads"`
	Admitted int `json:"admitted_workloads"`
}

// QueueQuota is one resource of one flavor of a ClusterQueue's
// resourceGroups, in units of the resource (GPUs, MIG instances).
type QueueQuota struct {
	Flavor   string `json:"flavor"`
	Resource string `json:"resource"`
	Nominal  int64  `json:"nominal"`
	// BorrowingLimit and LendingLimit are nil when unset (no limit).
	BorrowingLimit *int64 `json:"borrowing_limit,omitempty"`
	LendingLimit   *int64 `json:"lending_limit,omitempty"`
	// Used and Borrowed are status.flavorsUsage's total and borrowed when
	// the snapshot was read.
	Used     int64 `json:"used"`
	Borrowed int64 `json:"borrowed"`
}

// LocalQueue is a namespaced queue pointing at a ClusterQueue.
type LocalQueue struct {
	Namespace    string `json:"namespace"`
	Name         string `json:"name"`
	ClusterQueue string `json:"cluster_queue"`
}

// Key is "namespace/name".
func (q *LocalQueue) Key() string { return q.Namespace + "/" + q.Name }

// ResourceFlavor is a Kueue ResourceFlavor: the node labels its nodes
// carry.
type ResourceFlavor struct {
	Name       string            `json:"name"`
	NodeLabels map[string]string `json:"node_labels,omitempty"`
}

// Cohort is a Kueue Cohort object (hierarchical cohorts): its parent.
// Cohorts named only by ClusterQueues have no object and are not listed.
type Cohort struct {
	Name   string `json:"name"`
	Parent string `json:"parent,omitempty"`
}

// QueuedWorkload is a Kueue Workload that asks for GPUs: the queue it
// waits in, when it was created, admitted and finished, the GPU units
// its pod sets ask for, and the pods that ran it.
type QueuedWorkload struct {
	Namespace string `json:"namespace"`
	Name      string `json:"name"`
	// Queue is spec.queueName (a LocalQueue of Namespace); ClusterQueue
	// is status.admission.clusterQueue once quota is reserved, else the
	// LocalQueue's.
	Queue        string `json:"queue"`
	ClusterQueue string `json:"cluster_queue,omitempty"`
	// Owner is the job the workload stands for (its controller).
	Owner Owner `json:"owner"`
	// Created is metadata.creationTimestamp; Admitted the Admitted
	// condition's last transition to True (zero: not admitted when read);
	// Finished the Finished condition's (zero: not finished).
	Created  time.Time `json:"created"`
	Admitted time.Time `json:"admitted,omitzero"`
	Finished time.Time `json:"finished,omitzero"`
	// GPUs are the GPU units asked for, per resource: Σ over pod sets of
	// count × the pod template's requests.
	GPUs map[string]int64 `json:"gpus,omitempty"`
	// Flavors are the flavors status.admission assigned to its GPU
	// resources, sorted.
	Flavors []string `json:"flavors,omitempty"`
	// Pods are the pods ("namespace/name") that ran it, sorted.
	Pods []string `json:"pods,omitempty"`
}

// Key is "namespace/name".
func (w *QueuedWorkload) Key() string { return w.Namespace + "/" + w.Name }

// Units is the workload's GPU units over every GPU resource.
func (w *QueuedWorkload) Units() int64 {
	var n int64
	for _, v := range w.GPUs {
		n += v
	}
	return n
}

// AdmittedAt reports whether the workload held its quota at t: admitted
// at or before t and not finished by then.
func (w *QueuedWorkload) AdmittedAt(t time.Time) bool {
	return !w.Admitted.IsZero() && !w.Admitted.After(t) && (w.Finished.IsZero() || w.Finished.After(t))
}

// ViaKueue is the mechanism outputs name for a pod of a workload Kueue
// admitted, beside the GPU unit's own (device plugin, MIG, DRA, …).
const ViaKueue = "kueue-admitted"

// KueueAdmitted returns the pods ("namespace/name") of the snapshot's
// admitted Kueue workloads, mapped to their workload's key; empty
// without Kueue.
func (s *Snapshot) KueueAdmitted() map[string]string {
	out := map[string]string{}
	if s.Kueue == nil {
		return out
	}
	for i := range s.Kueue.Workloads {
		w := &s.Kueue.Workloads[i]
		if w.Admitted.IsZero() {
			continue
		}
		for _, p := range w.Pods {
			out[p] = w.Key()
		}
	}
	return out
}

// Sort puts every list in its documented order: by name (namespace
// first), each workload's flavors and pods sorted.
func (k *KueueInfo) Sort() {
	sort.Slice(k.ClusterQueues, func(i, j int) bool { return k.ClusterQueues[i].Name < k.ClusterQueues[j].Name })
	sort.Slice(k.LocalQueues, func(i, j int) bool { return k.LocalQueues[i].Key() < k.LocalQueues[j].Key() })
	sort.Slice(k.Flavors, func(i, j int) bool { return k.Flavors[i].Name < k.Flavors[j].Name })
	sort.Slice(k.Cohorts, func(i, j int) bool { return k.Cohorts[i].Name < k.Cohorts[j].Name })
	sort.Slice(k.Workloads, func(i, j int) bool { return k.Workloads[i].Key() < k.Workloads[j].Key() })
	for i := range k.ClusterQueues {
		q := k.ClusterQueues[i].Quotas
		sort.Slice(q, func(a, b int) bool {
			if q[a].Flavor != q[b].Flavor {
				return q[a].Flavor < q[b].Flavor
			}
			return q[a].Resource < q[b].Resource
		})
	}
	for i := range k.Workloads {
		sort.Strings(k.Workloads[i].Flavors)
		sort.Strings(k.Workloads[i].Pods)
	}
}

// checkKueue refuses what no Kueue API could say: a queue or workload
// listed twice, negative quotas, limits or GPU asks, a workload admitted
// before it was created or finished before that.
func checkKueue(k *KueueInfo) []error {
	if k == nil {
		return nil
	}
	var errs []error
	seen := map[string]bool{}
	for _, q := range k.ClusterQueues {
		if q.Name == "" || seen[q.Name] {
			errs = append(errs, fmt.Errorf("kueue: ClusterQueue %q: empty or listed twice", q.Name))
		}
		seen[q.Name] = true
		for _, r := range q.Quotas {
			neg := r.Nominal < 0 || r.Used < 0 || r.Borrowed < 0 ||
				r.BorrowingLimit != nil && *r.BorrowingLimit < 0 || r.LendingLimit != nil && *r.LendingLimit < 0
			if neg {
				errs = append(errs, fmt.Errorf("kueue: ClusterQueue %s flavor %s resource %s: negative quota, limit or usage", q.Name, r.Flavor, r.Resource))
			}
		}
	}
	wl := map[string]bool{}
	for i := range k.Workloads {
		w := &k.Workloads[i]
		if wl[w.Key()] {
			errs = append(errs, fmt.Errorf("kueue: Workload %s: listed twice", w.Key()))
		}
		wl[w.Key()] = true
		for _, r := range sortedKeys(w.GPUs) {
			if w.GPUs[r] < 0 {
				errs = append(errs, fmt.Errorf("kueue: Workload %s: %s %d is negative", w.Key(), r, w.GPUs[r]))
			}
		}
		switch {
		case !w.Admitted.IsZero() && w.Admitted.Before(w.Created):
			errs = append(errs, fmt.Errorf("kueue: Workload %s: admitted %s before it was created %s", w.Key(), w.Admitted.Format(time.RFC3339), w.Created.Format(time.RFC3339)))
		case !w.Finished.IsZero() && w.Finished.Before(w.Created):
			errs = append(errs, fmt.Errorf("kueue: Workload %s: finished %s before it was created %s", w.Key(), w.Finished.Format(time.RFC3339), w.Created.Format(time.RFC3339)))
		}
	}
	return errs
}
