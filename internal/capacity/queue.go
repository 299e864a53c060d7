package capacity

import (
	"github.com/gpuwise/gpuwise/internal/cluster"
)

// Queueing batch GPU work (docs/kueue.md): long-lived GPU workers in
// batch namespaces — a Deployment or StatefulSet of workers that polls
// for work, a Ray cluster's GPU workers — hold their GPUs between runs.
// Their idle stretches (MinIdleHours or more below MaxActivity) are the
// GPUs that submitting each run as a Kueue Job would release: the run is
// admitted when quota frees, and its GPUs go back at its end. Workloads
// Kueue already admits are queued; their idle is the per-queue report's.

// DefaultBatchNamespaces match the usual batch and training namespaces.
var DefaultBatchNamespaces = []string{"batch", "batch-*", "*-batch", "*training*", "research", "research-*", "*-research", "jobs", "*-jobs"}

// Queue defaults: below 5% activity for 2 hours or more in a row (a run
// waits in the queue for minutes, not the hours a notebook user would).
const (
	DefaultQueueActivity  = 0.05
	DefaultQueueIdleHours = 2
)

// DefaultQueuePolicy is the queue lever's policy: the reclaim policy's
// fields with the batch namespaces and the queue defaults.
func DefaultQueuePolicy() ReclaimPolicy {
	return ReclaimPolicy{MaxActivity: DefaultQueueActivity, MinIdleHours: DefaultQueueIdleHours,
		Namespaces: append([]string(nil), DefaultBatchNamespaces...)}
}

// queueable are the owner kinds of long-lived workers: a Job or CronJob
// run ends on its own and gives its GPUs back.
var queueable = []string{"Deployment", "StatefulSet", "Pod", "RayCluster"}

// QueueBatch finds the idle stretches of the batch namespaces' long-lived
// GPU workers that no inference server counter marks as a server and no
// Kueue admission already queues; none without hourly activity, none
// holding DRA devices or HAMi vGPUs (kept as they are, as in Autoscale).
func QueueBatch(s *cluster.Snapshot, p ReclaimPolicy) ([]Idle, error) {
	if err := p.Validate(); err != nil {
		return nil, err
	}
	if s.Hourly == nil {
		return nil, nil
	}
	queued := map[string]bool{}
	if admitted := s.KueueAdmitted(); len(admitted) > 0 {
		for i := range s.Pods {
			if _, ok := admitted[s.Pods[i].Key()]; ok {
				queued[s.Pods[i].WorkloadKey()] = true
			}
		}
	}
	var out []Idle
	kept := keptAllocations(s)
	for i := range s.Hourly.Workloads {
		w := &s.Hourly.Workloads[i]
		ns, kind, name, ok := splitKey(w.Workload)
		if !ok || !contains(queueable, kind) || w.Server != "" || w.GPUActive == nil || queued[w.Workload] || kept[w.Workload] != "" ||
			!cluster.MatchAny(p.Namespaces, ns) || cluster.MatchAny(cluster.DefaultDevNamespaces, ns) {
			continue
		}
		if id := stretches(w, p); id.Stretches > 0 {
			id.Workload, id.Namespace, id.Kind, id.Name = w.Workload, ns, kind, name
			out = append(out, id)
		}
	}
	return out, nil
}
