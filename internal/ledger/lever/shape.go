package lever

import (
	"fmt"
	"math"

	"github.com/gpuwise/gpuwise/internal/cluster"

	"github.com/gpuwise/gpuwise/internal/rightsize"
)

// shapeLever gives workloads their right-sized GPU shape: one action per
// kind of shape (MIG slices, time-slicing, a cheaper GPU model), one item
// per workload. "Keep the whole GPU" is a decision, not an action. A shape
// saves nothing on its own: the GPU stays bought until consolidation packs
// the freed share away, so the consolidation lever realises it (or says
// why not, per workload).
type shapeLever struct{}

func (shapeLever) Name() string { return LeverShape }

// shapeKinds are the shape actions in the order they are proposed.
var shapeKinds = []rightsize.GPUAction{rightsize.UseMIG, rightsize.UseTimeSlice, rightsize.CheaperModel}

func (shapeLever) Propose(m *Model, env *Env) (Proposal, error) {
	var p Proposal
	byKind := map[rightsize.GPUAction][]*rightsize.GPURec{}
	keep := 0
	have := map[string]bool{}
	for i := range m.Nodes {
		if m.Nodes[i].Kept {
			have[m.Nodes[i].GPUModel] = true
		}
	}
	for i := range env.Recs.GPU {
		r := &env.Recs.GPU[i]
		if r.Action == rightsize.CheaperModel && !have[r.TargetModel] {
			alt, nc := inCluster(r, have)
			p.NotCounted = append(p.NotCounted, nc)
			if alt == nil {
				continue
			}
			r = alt
		}
		switch {
		case r.Action == rightsize.KeepWhole:
			keep++
		case r.Action == rightsize.UseHAMiShare:
			if r.Fraction != r.CurrentFraction {
				p.NotCounted = append(p.NotCounted, hamiNotCounted(r))
			}
		case r.Fraction == r.CurrentFraction && (r.TargetModel == "" || r.TargetModel == r.CurrentModel):
			// already on that share
		default:
			byKind[r.Action] = append(byKind[r.Action], r)
		}
	}
	for _, k := range shapeKinds {
		if len(byKind[k]) > 0 {
			p.Changes = append(p.Changes, shapeChange(k, byKind[k]))
		}
	}
	for _, k := range env.Recs.Skipped {
		if k.Kind == "gpu" {
			p.NotCounted = append(p.NotCounted, NotCounted{Lever: LeverShape, Target: k.Workload, Reason: k.Reason})
		}
	}
	if keep > 0 {
		p.Notes = append(p.Notes, fmt.Sprintf("%d GPU workload(s) keep their whole GPUs (a decision, not an action: see gpuwise recommend)", keep))
	}
	return p, nil
}

// shapeChange gives every workload of one kind its new shape.
func shapeChange(kind rightsize.GPUAction, recs []*rightsize.GPURec) Change {
	key := LeverShape + ":" + string(kind)
	a := Action{Key: key, Kind: string(kind), title: shapeTitle(kind),
		Why:       "the freed share of each GPU is money only once consolidation packs it away (gpuwise plan)",
		Artefacts: []Artefact{{Command: planRightsize}}}
	var changes []WorkloadChange
	for _, r := range recs {
		rec := *r
		it := shapeItem(r)
		it.gpu = &rec
		a.Items = append(a.Items, it)
		changes = append(changes, WorkloadChange{Action: it.key, Group: key, Lever: LeverShape, Workload: r.Workload, GPU: &rec})
	}
	a.group()
	return Change{Action: a, Apply: func(m *Model) { m.Changes = append(m.Changes, changes...) }}
}

func shapeTitle(kind rightsize.GPUAction) func(int) string {
	return func(n int) string {
		switch kind {
		case rightsize.UseMIG:
			return fmt.Sprintf("Move %d workload(s) to MIG slices", n)
		case rightsize.UseTimeSlice:
			return fmt.Sprintf("Time-slice the GPUs of %d dev workload(s)", n)
		}
		return fmt.Sprintf("Move %d workload(s) to a cheaper GPU model", n)
	}
}

// shapeItem is one workload's new shape.
func shapeItem(r *rightsize.GPURec) Item {
	it := Item{Target: r.Workload, key: LeverShape + ":" + string(r.Action) + ":" + r.Workload, Why: r.Reason,
		Evidence: []Evidence{
			{Name: "pods", Value: round2(r.Pods), Unit: "pods"},
			{Name: "gpu_share_now", Value: round2(r.CurrentFraction), Unit: "GPU"}, {Name: "gpu_share_new", Value: round2(r.Fraction), Unit: "GPU"},
			{Name: "peak_framebuffer", Value: round2(r.PeakFramebufferMiB / 1024), Unit: "GiB"}, {Name: "framebuffer_need", Value: round2(r.NeedMiB / 1024), Unit: "GiB"},
			{Name: "activity_p95", Value: round2(r.P95Activity), Unit: "GPU"},
			{Name: "history", Value: round2(r.Evidence.Span.Hours() / 24), Unit: "days"},
		},
		Files: patchFiles(r.Workload), weight: r.MonthlySavingsUSD}
	it.EffortHours, it.Risk, it.RiskReason = shapeEffortRisk(r)
	it.Confidence, it.ConfidenceReason = usageConfidence(r.Confidence, r.ConfidenceReason, r.Evidence)
	it.Confidence, it.ConfidenceReason = gpuVariability(it.Confidence, it.ConfidenceReason, r.Evidence)
	return it
}

func shapeEffortRisk(r *rightsize.GPURec) (float64, Level, string) {
	switch r.Action {
	case rightsize.UseMIG:
		return effortMIG, Medium, "pods restart on a MIG slice; its compute and memory are hard caps"
	case rightsize.UseTimeSlice:
		return effortTimeSlice, Medium, "time-slicing has no memory isolation: replicas share the GPU's memory and a burst slows its neighbours"
	}
	return effortCheaperModel, High, "another GPU model: validate latency, throughput and accuracy before moving"
}

// hamiNotCounted is a smaller HAMi ask: HAMi's scheduler, not gpuwise's
// planner, places vGPUs in the share it frees, so no node goes and the
// ledger counts nothing (recommend lists it with what it frees).
func hamiNotCounted(r *rightsize.GPURec) NotCounted {
	return NotCounted{Lever: LeverShape, Target: r.Workload, weight: max(r.MonthlySavingsUSD, 0),
		Reason: fmt.Sprintf("a smaller HAMi share (%s): HAMi's scheduler places vGPUs in the freed share and gpuwise does not repack HAMi GPUs, so it frees no node the ledger counts", r.Reason)}
}

// inCluster is the best alternative right-sizing lists for a workload whose
// cheaper GPU model no node of the cluster has — a MIG slice or
// time-slicing on the GPUs it has, or another cheaper model that is
// there — as a recommendation of its own (nil when none), and the cheaper
// model not counted: adding a node pool is a decision the ledger does not
// make for the user.
func inCluster(r *rightsize.GPURec, have map[string]bool) (*rightsize.GPURec, NotCounted) {
	nc := NotCounted{Lever: LeverShape, Target: r.Workload, weight: r.MonthlySavingsUSD,
		Reason: fmt.Sprintf("recommended cheaper model %s (%s), but no %s node is in the cluster: add a %s pool to take this saving", r.TargetModel, r.Reason, r.TargetModel, r.TargetModel)}
	for _, a := range r.Alternatives {
		var res, sel string
		switch {
		case a.Action == rightsize.UseMIG:
			res = "nvidia.com/mig-" + a.Profile
		case a.Action == rightsize.UseTimeSlice:
			res = "nvidia.com/gpu.shared"
		case a.Action == rightsize.CheaperModel && have[a.TargetModel]:
			res = "nvidia.com/gpu"
		default:
			continue
		}
		if r.CurrentResource == rightsize.DRAResource {
			res, sel = draAsk(a, r.NeedMiB) // its GPUs come from a ResourceClaim: the claim's ask, never a limit
		}
		alt := *r
		alt.DRASelector = sel
		alt.Action, alt.Profile, alt.Replicas, alt.TargetModel, alt.Fraction = a.Action, a.Profile, a.Replicas, a.TargetModel, a.Fraction
		alt.Resource, alt.TargetInstanceType, alt.MonthlySavingsUSD = res, a.TargetInstanceType, a.MonthlySavingsUSD
		alt.Reason = fmt.Sprintf("%s (right-sizing's choice, %s, has no node in the cluster)", a.Reason, r.TargetModel)
		alt.Alternatives = nil
		if alt.TargetModel == "" {
			alt.TargetModel = r.CurrentModel
		}
		nc.Reason += fmt.Sprintf("; the ledger takes the in-cluster alternative instead: %s", a.Reason)
		return &alt, nc
	}
	return nil, nc
}

// draAsk is the device class and CEL selector a ResourceClaim asks for
// alternative a (docs/dra.md).
func draAsk(a rightsize.Alternative, needMiB float64) (class, selector string) {
	switch a.Action {
	case rightsize.UseMIG:
		return cluster.DRAMIGClass, cluster.DRAMIGSelector(a.Profile)
	case rightsize.UseTimeSlice:
		return "shared ResourceClaim", ""
	}
	return cluster.DRAGPUClass, cluster.DRAModelSelector(a.TargetModel, int64(math.Ceil(needMiB)))
}
