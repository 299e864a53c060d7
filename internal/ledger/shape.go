package ledger

import (
	"fmt"

	"github.com/gpuwise/gpuwise/internal/rightsize"
)

// shapeLever gives workloads their right-sized GPU shape — a MIG profile,
// a time-slice share, a cheaper GPU model — one action per workload.
// "Keep the whole GPU" is a decision, not an action. A shape saves nothing
// on its own: the GPU stays bought until consolidation packs the freed
// share away, so the consolidation lever realises it (or says why not).
type shapeLever struct{}

func (shapeLever) Name() string { return LeverShape }

func (shapeLever) Propose(_ *Model, env *Env) (Proposal, error) {
	var p Proposal
	keep := 0
	for i := range env.Recs.GPU {
		r := &env.Recs.GPU[i]
		if r.Action == rightsize.KeepWhole {
			keep++
			continue
		}
		if r.Fraction == r.CurrentFraction && (r.TargetModel == "" || r.TargetModel == r.CurrentModel) {
			continue // already on that share
		}
		p.Changes = append(p.Changes, shapeChange(r))
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

// shapeChange is one workload's new GPU shape.
func shapeChange(r *rightsize.GPURec) Change {
	kind := string(r.Action)
	key := LeverShape + ":" + kind + ":" + r.Workload
	a := Action{Key: key, Kind: kind, Target: r.Workload, Targets: []Target{{Kind: "workload", Name: r.Workload}},
		Title: fmt.Sprintf("%s: %s", r.Workload, shapeText(r)),
		Why:   r.Reason,
		Evidence: []Evidence{
			{Name: "pods", Value: round2(r.Pods), Unit: "pods"},
			{Name: "gpu_share_now", Value: round2(r.CurrentFraction), Unit: "GPU"}, {Name: "gpu_share_new", Value: round2(r.Fraction), Unit: "GPU"},
			{Name: "peak_framebuffer", Value: round2(r.PeakFramebufferMiB / 1024), Unit: "GiB"}, {Name: "framebuffer_need", Value: round2(r.NeedMiB / 1024), Unit: "GiB"},
			{Name: "activity_p95", Value: round2(r.P95Activity), Unit: "GPU"},
			{Name: "history", Value: round2(r.Evidence.Span.Hours() / 24), Unit: "days"},
		},
		Artefacts: patchArtefacts("gpuwise generate plan -d out/", r.Workload),
	}
	a.EffortHours, a.Risk, a.RiskReason = shapeEffortRisk(r)
	a.Confidence, a.ConfidenceReason = usageConfidence(r.Confidence, r.Evidence)
	a.Confidence, a.ConfidenceReason = gpuVariability(a.Confidence, a.ConfidenceReason, r.Evidence)
	a.weight = r.MonthlySavingsUSD
	rec := *r
	return Change{Action: a, Apply: func(m *Model) {
		m.Changes = append(m.Changes, WorkloadChange{Action: key, Lever: LeverShape, Workload: r.Workload, GPU: &rec})
	}}
}

func shapeEffortRisk(r *rightsize.GPURec) (float64, Level, string) {
	switch r.Action {
	case rightsize.UseMIG:
		return effortAction + effortMIG, Medium, "pods restart on a MIG slice; its compute and memory are hard caps"
	case rightsize.UseTimeSlice:
		return effortAction + effortTimeSlice, Medium, "time-slicing has no memory isolation: replicas share the GPU's memory and a burst slows its neighbours"
	}
	return effortAction + effortCheaperModel, High, "another GPU model: validate latency, throughput and accuracy before moving"
}

// shapeText is the new shape in words.
func shapeText(r *rightsize.GPURec) string {
	switch r.Action {
	case rightsize.UseMIG:
		return fmt.Sprintf("MIG %s on %s", r.Profile, r.TargetModel)
	case rightsize.UseTimeSlice:
		return fmt.Sprintf("time-slice 1/%d of %s", r.Replicas, r.TargetModel)
	}
	return fmt.Sprintf("move to %s (%s)", r.TargetModel, r.TargetInstanceType)
}
