package lever

import (
	"fmt"
	"github.com/gpuwise/gpuwise/internal/cluster"
	"strings"

	"github.com/gpuwise/gpuwise/internal/capacity"
)

// reclaimLever gives back the GPUs of notebooks and dev boxes in their
// long idle stretches (package capacity: activity below 5% for 4 hours
// or more in a row). The GPUs they free each hour lower the demand on
// their model's nodes on top of what autoscaled services freed
// (Model.Freed); the node-hours that saves are the action's money. It
// needs the node pool to scale (the autoscale lever's scale-nodes action
// for the model, when there is one). Suggestions only: the user's session
// state is at stake.
type reclaimLever struct{}

func (reclaimLever) Name() string { return LeverReclaim }

const (
	keyReclaim = LeverReclaim + ":" + KindReclaim + ":"
	genReclaim = "gpuwise generate reclaim -d out/"
)

func (reclaimLever) Propose(m *Model, env *Env) (Proposal, error) {
	var prop Proposal
	s := env.Snapshot
	if env.capacity == nil || !env.capacity.hourly {
		prop.NotCounted = []NotCounted{{Lever: LeverReclaim, Target: "notebooks and dev boxes", Reason: "needs hourly series to find idle stretches"}}
		return prop, nil
	}
	for _, f := range []struct{ fact, why string }{
		{cluster.FactOwners, "needs the pods' owners (kube_pod_owner, kube_replicaset_owner) to find a workload's idle stretches: without them every pod is its own workload"},
		{cluster.FactPodLifetimes, "needs the pods' measured start and end times (kube_pod_start_time, kube_pod_completion_time): idle stretches on estimated lives would give back GPUs the pods no longer held"},
	} {
		if !s.Knows(f.fact) {
			prop.NotCounted = []NotCounted{{Lever: LeverReclaim, Target: "notebooks and dev boxes", Reason: f.why}}
			return prop, nil
		}
	}
	idles := env.capacity.idles
	models := workloadModels(s)
	byModel := map[string][]capacity.Idle{}
	for _, id := range idles {
		if model, ok := models[id.Workload]; ok {
			byModel[model] = append(byModel[model], id)
		} else {
			prop.NotCounted = append(prop.NotCounted, NotCounted{Lever: LeverReclaim, Target: id.Workload, Reason: "no pod of it holds a GPU at the window's end"})
		}
	}
	for _, model := range keptModels(m) {
		if ch, ok := releaseChange(m, env, model, byModel[model], reclaimRelease); ok {
			prop.Changes = append(prop.Changes, ch)
		}
	}
	return prop, nil
}

// release is what an action that gives back idle stretches' GPUs is
// called and how its items read: reclaim's for notebooks, queue's for
// batch workers.
type release struct {
	key, kind, command string
	title              func(model string, n int) string
	why                func(model string, hours, current float64) string
	item               func(id capacity.Idle, perMonth float64, env *Env) Item
}

var reclaimRelease = release{key: keyReclaim, kind: KindReclaim, command: genReclaim,
	title: func(model string, n int) string {
		return fmt.Sprintf("Give back the %s GPUs of %d idle notebook(s) or dev box(es) in their idle stretches", model, n)
	},
	why: func(model string, hours, current float64) string {
		return fmt.Sprintf("scaled to zero (or culled) in their idle stretches and started again when needed, they free GPUs; with the %s nodes scaling, %.0f node-hours a month instead of %.0f",
			model, hours, current)
	},
	item: func(id capacity.Idle, perMonth float64, env *Env) Item { return reclaimItem(id, perMonth, env.Reclaim) },
}

// releaseChange is one model's action giving back the idle stretches'
// GPUs, when it frees node-hours.
func releaseChange(m *Model, env *Env, model string, idles []capacity.Idle, rel release) (Change, bool) {
	if len(idles) == 0 {
		return Change{}, false
	}
	p := newPoolScaling(m, env, model, nil)
	freed := append([]float64(nil), m.Freed[model]...)
	freed = append(freed, make([]float64, max(0, len(p.demand)-len(freed)))...)
	prior := append([]float64(nil), freed...)
	for _, id := range idles {
		for i, f := range id.Freed {
			if h := id.From + i; h < len(freed) && p.lengths[h] > 0 {
				freed[h] += float64(f) / p.lengths[h]
			}
		}
	}
	current := make([]float64, len(p.nodes))
	for j, n := range p.nodes {
		current[j] = n.Hours
	}
	// The credit is what the reclaimed GPUs free on top of the pool
	// scaling with what was freed already: base is the node-hours the pool
	// runs scaling with demand alone (what the autoscale lever gave, when
	// it ran), with those with the reclaimed GPUs given back. Without the
	// autoscale lever the nodes still run all month; only the difference
	// is reclaim's, never the scaling's own saving.
	base, with := p.hours(p.need(prior)), p.hours(p.need(freed))
	hours := make([]float64, len(current))
	for j := range hours {
		hours[j] = max(0, current[j]-max(0, base[j]-with[j]))
	}
	if !p.saves(hours, current) {
		return Change{}, false
	}
	a := Action{Key: rel.key + model, Kind: rel.kind, Artefacts: []Artefact{{Command: rel.command}},
		title: func(n int) string { return rel.title(model, n) }}
	perMonth := HoursPerMonth / env.Snapshot.Window().Hours()
	// The node-hours freed rest on the pool scaling with the hourly GPU
	// demand, as the scale-nodes action does: an item is no surer than
	// that demand's history, whether or not the autoscale lever gave the
	// pool an action of its own to inherit from (issue 31: without the
	// request counters the L4 services' autoscale action, and with it the
	// low pool scaling this one inherited, was gone, and reclaim showed
	// medium).
	poolLevel, poolWhy := historyConfidence(env.Snapshot.Window().Hours(), "the pool's hourly GPU demand the freed node-hours rest on")
	for _, id := range idles {
		it := rel.item(id, perMonth, env)
		if poolLevel.Rank() < it.Confidence.Rank() {
			it.Confidence, it.ConfidenceReason = poolLevel, it.ConfidenceReason+"; "+poolWhy
		}
		a.Items = append(a.Items, it)
	}
	a.group()
	a.Why = rel.why(model, nodeHours(hours), nodeHours(current))
	apply := p.apply(hours)
	return Change{Action: a, Requires: []string{keyScaleNodes + model}, Apply: func(m *Model) {
		apply(m)
		m.setFreed(model, freed)
	}}, true
}

// reclaimItem is one idle workload.
func reclaimItem(id capacity.Idle, perMonth float64, p capacity.ReclaimPolicy) Item {
	it := Item{Target: id.Workload, key: keyReclaim + id.Workload, weight: id.IdleGPUHours * perMonth, EffortHours: effortReclaim,
		Why: fmt.Sprintf("%d stretch(es) of %d h or more below %.0f%% GPU activity, %.0f h in all (longest %d h): %.0f of %.0f GPU-hours held",
			id.Stretches, p.MinIdleHours, p.MaxActivity*100, id.IdleHours, id.Longest, id.IdleGPUHours, id.HeldGPUHours),
		Evidence: []Evidence{
			{Name: "idle_stretches", Value: float64(id.Stretches), Unit: "stretches"}, {Name: "idle_hours", Value: id.IdleHours, Unit: "hours"},
			{Name: "longest_idle_hours", Value: float64(id.Longest), Unit: "hours"},
			{Name: "idle_gpu_hours_month", Value: round2(id.IdleGPUHours * perMonth), Unit: "GPU-hours"},
		},
		Files:      []string{reclaimFile(id)},
		Confidence: Medium, ConfidenceReason: "idle stretches measured hour by hour; whether the user can wait for a restart is theirs to say",
		Risk: Medium, RiskReason: "scaling to zero ends the session: unsaved kernel state is lost; a restart waits for a GPU",
	}
	return it
}

// reclaimFile is where generate reclaim writes a workload's suggestion.
func reclaimFile(id capacity.Idle) string {
	return "reclaim/" + id.Namespace + "/" + strings.ToLower(id.Kind) + "-" + id.Name + ".yaml"
}
