package lever

import (
	"fmt"

	"github.com/gpuwise/gpuwise/internal/capacity"
	"github.com/gpuwise/gpuwise/internal/cluster"
)

// queueLever queues batch GPU work: long-lived GPU workers in batch
// namespaces that hold their GPUs between runs (package capacity: below
// 5% activity for 2 hours or more in a row) submit each run as a Kueue
// Job instead, admitted when quota frees and releasing its GPUs at its
// end. The GPUs their idle stretches free each hour lower the demand on
// their model's nodes on top of what autoscaled services and reclaimed
// notebooks freed (Model.Freed), exactly as the reclaim lever counts it;
// the node-hours that saves are the action's money, and `gpuwise
// generate kueue` writes the queues (docs/kueue.md). It needs the node
// pool to scale (the autoscale lever's scale-nodes action for the model).
type queueLever struct{}

func (queueLever) Name() string { return LeverQueue }

const (
	keyQueue = LeverQueue + ":" + KindQueue + ":"
	genQueue = "gpuwise generate kueue -d out/"
)

func (queueLever) Propose(m *Model, env *Env) (Proposal, error) {
	var prop Proposal
	s := env.Snapshot
	if env.capacity == nil || !env.capacity.hourly {
		prop.NotCounted = []NotCounted{{Lever: LeverQueue, Target: "batch GPU workers", Reason: "needs hourly series to find the hours batch workers hold GPUs between runs"}}
		return prop, nil
	}
	for _, f := range []struct{ fact, why string }{
		{cluster.FactOwners, "needs the pods' owners (kube_pod_owner, kube_replicaset_owner) to tell long-lived batch workers from Jobs: without them every pod is its own workload"},
		{cluster.FactPodLifetimes, "needs the pods' measured start and end times (kube_pod_start_time, kube_pod_completion_time): idle stretches on estimated lives would release GPUs the pods no longer held"},
	} {
		if !s.Knows(f.fact) {
			prop.NotCounted = []NotCounted{{Lever: LeverQueue, Target: "batch GPU workers", Reason: f.why}}
			return prop, nil
		}
	}
	models := workloadModels(s)
	byModel := map[string][]capacity.Idle{}
	for _, id := range env.capacity.queued {
		if model, ok := models[id.Workload]; ok {
			byModel[model] = append(byModel[model], id)
		} else {
			prop.NotCounted = append(prop.NotCounted, NotCounted{Lever: LeverQueue, Target: id.Workload, Reason: "no pod of it holds a GPU at the window's end"})
		}
	}
	for _, model := range keptModels(m) {
		if ch, ok := releaseChange(m, env, model, byModel[model], queueRelease); ok {
			prop.Changes = append(prop.Changes, ch)
		}
	}
	return prop, nil
}

var queueRelease = release{key: keyQueue, kind: KindQueue, command: genQueue,
	title: func(model string, n int) string {
		return fmt.Sprintf("Queue the batch GPU work of %d worker(s) on %s through Kueue, so their GPUs are released between runs", n, model)
	},
	why: func(model string, hours, current float64) string {
		return fmt.Sprintf("each run submitted as a Kueue Job holds GPUs only while it runs; the GPUs the workers hold between runs go back, and with the %s nodes scaling, %.0f node-hours a month instead of %.0f",
			model, hours, current)
	},
	item: func(id capacity.Idle, perMonth float64, _ *Env) Item { return queueItem(id, perMonth) },
}

// queueItem is one batch worker.
func queueItem(id capacity.Idle, perMonth float64) Item {
	p := capacity.DefaultQueuePolicy()
	return Item{Target: id.Workload, key: keyQueue + id.Workload, weight: id.IdleGPUHours * perMonth, EffortHours: effortQueue,
		Why: fmt.Sprintf("%d stretch(es) of %d h or more below %.0f%% GPU activity between runs, %.0f h in all (longest %d h): %.0f of %.0f GPU-hours held",
			id.Stretches, p.MinIdleHours, p.MaxActivity*100, id.IdleHours, id.Longest, id.IdleGPUHours, id.HeldGPUHours),
		Evidence: []Evidence{
			{Name: "idle_stretches", Value: float64(id.Stretches), Unit: "stretches"}, {Name: "idle_hours", Value: id.IdleHours, Unit: "hours"},
			{Name: "longest_idle_hours", Value: float64(id.Longest), Unit: "hours"},
			{Name: "idle_gpu_hours_month", Value: round2(id.IdleGPUHours * perMonth), Unit: "GPU-hours"},
		},
		Files:      []string{"kueue/localqueue-" + id.Namespace + ".yaml"},
		Confidence: Medium, ConfidenceReason: "the hours between runs are measured hour by hour; that the work can be cut into runs is the owner's to confirm",
		Risk: Medium, RiskReason: "a run now waits for quota: its start is later when the cohort is busy; a worker's in-memory state (a loaded model) is rebuilt per run",
	}
}
