package generate

import (
	"fmt"

	"github.com/gpuwise/gpuwise/internal/rightsize"
)

// RolloutLedger is what the savings ledger says of the right-size and
// GPU-shape changes: those levers' actions, the risk of each workload's
// change, and the levers' total in cents.
type RolloutLedger struct {
	Actions    []LedgerAction
	Risk       map[string]string
	TotalCents int64
}

// RecommendedRollout is RecommendedResources' patches and, beside them,
// the rollout in waves of pct % of the patched workloads (RolloutFiles):
// each change with the snapshot's values to roll back to, the ledger's
// risk, and its share of the ledger's money, weighed by right-sizing's own
// estimate of what it frees. applied (ParseWaveHistory) are the workloads
// already applied, which no wave repeats.
func RecommendedRollout(r *rightsize.Result, counted map[string]string, led RolloutLedger, pct int, applied map[string]string) ([]File, []string, error) {
	patches, notes := resourcePatches(r, counted)
	files, err := Patches(patches)
	if err != nil {
		return nil, notes, err
	}
	keys, outside := workloadKeys(r)
	ix := indexRecs(r)
	ro := Rollout{WavePercent: pct, TotalCents: led.TotalCents, Outside: map[string]string{}, Applied: applied}
	staged := map[string]bool{}
	for _, p := range patches {
		key := keys[p.Workload]
		staged[key] = true
		ro.Changes = append(ro.Changes, Staged{Key: key, Patch: p, Current: ix.current(key), Risk: led.Risk[key]})
	}
	for _, a := range led.Actions {
		a.Weights = make([]float64, len(a.Workloads))
		for i, wl := range a.Workloads {
			a.Weights[i] = ix.frees(wl, a.Shape)
			if !staged[wl] {
				ro.Outside[wl] = outside[wl]
			}
		}
		ro.Actions = append(ro.Actions, a)
	}
	more, err := RolloutFiles(ro)
	if err != nil {
		return nil, notes, err
	}
	files = append(files, more...)
	sortFiles(files)
	return files, notes, nil
}

// workloadKeys maps each patchable workload to its key, and says for the
// others why no patch changes them.
func workloadKeys(r *rightsize.Result) (map[Workload]string, map[string]string) {
	keys, why := map[Workload]string{}, map[string]string{}
	add := func(key, ns, kind, name string) {
		w, ok := patchable(ns, kind, name)
		switch {
		case !ok:
			why[key] = fmt.Sprintf("a %s cannot be patched in place; change the object that creates it", kind)
		case w.Kind == Job:
			why[key] = "a Job's pod template cannot change once it exists: set the new resources in its manifest for the next run (see the notes)"
		default:
			keys[w] = key
		}
	}
	for _, c := range r.Containers {
		add(c.Workload, c.Namespace, c.OwnerKind, c.OwnerName)
	}
	for _, g := range r.GPU {
		add(g.Workload, g.Namespace, g.OwnerKind, g.OwnerName)
	}
	return keys, why
}

// recIndex finds a workload's recommendations without a scan per
// workload.
type recIndex struct {
	r          *rightsize.Result
	containers map[string][]int
	gpu        map[string][]int
}

func indexRecs(r *rightsize.Result) recIndex {
	ix := recIndex{r: r, containers: map[string][]int{}, gpu: map[string][]int{}}
	for i, c := range r.Containers {
		ix.containers[c.Workload] = append(ix.containers[c.Workload], i)
	}
	for i, g := range r.GPU {
		ix.gpu[g.Workload] = append(ix.gpu[g.Workload], i)
	}
	return ix
}

// current are the workload's containers' resources as the snapshot
// shows them.
func (ix recIndex) current(key string) []ContainerValues {
	var out []ContainerValues
	at := func(name string) *ContainerValues {
		for i := range out {
			if out[i].Name == name {
				return &out[i]
			}
		}
		out = append(out, ContainerValues{Name: name})
		return &out[len(out)-1]
	}
	for _, i := range ix.containers[key] {
		c := &ix.r.Containers[i]
		v := at(c.Container)
		v.CPURequestMilli, v.CPULimitMilli = c.CurrentCPUMilli, c.CurrentCPULimit
		v.MemoryRequestBytes, v.MemoryLimitBytes = c.CurrentMemoryBytes, c.CurrentMemoryLimit
	}
	for _, i := range ix.gpu[key] {
		if g := &ix.r.GPU[i]; g.Container != "" {
			v := at(g.Container)
			v.GPUResource, v.GPUCount = g.CurrentResource, int64(g.GPUsPerPod)
		}
	}
	return out
}

// frees is right-sizing's own estimate of what the workload's change
// frees, $/month: its containers' for a right-size action, its GPU
// shape's for a shape action.
func (ix recIndex) frees(key string, shape bool) float64 {
	var usd float64
	if shape {
		for _, i := range ix.gpu[key] {
			usd += ix.r.GPU[i].MonthlySavingsUSD
		}
		return usd
	}
	for _, i := range ix.containers[key] {
		usd += ix.r.Containers[i].MonthlySavingsUSD
	}
	return usd
}
