package app

import (
	"context"
	"fmt"
	"maps"

	"github.com/gpuwise/gpuwise/internal/cluster"
	"github.com/gpuwise/gpuwise/internal/generate"
	"github.com/gpuwise/gpuwise/internal/ledger"
	"github.com/gpuwise/gpuwise/internal/packing"
	"github.com/gpuwise/gpuwise/internal/rightsize"
)

// GenerateResult is the generated files, notes on what was left out and
// why, and Partial as in ReportResult. Nothing is applied or written: a
// front end prints the files (generate.WriteStream) or writes them
// (WriteDir).
type GenerateResult struct {
	Files   []generate.File
	Notes   []string
	Partial error
}

// fromRecs turns recommendations into files.
type fromRecs func(*RecommendResult) ([]generate.File, []string, error)

func (a *App) generateFromRecs(ctx context.Context, req RecommendRequest, build fromRecs) (*GenerateResult, error) {
	rr, _, err := a.recommend(ctx, req)
	if err != nil {
		return nil, err
	}
	files, notes, err := build(rr)
	if err != nil {
		return nil, fmt.Errorf("generating: %w", err)
	}
	return &GenerateResult{Files: files, Notes: notes, Partial: rr.Partial}, nil
}

// generateFromShapes is generateFromRecs on the recommendations with the
// GPU shapes the savings ledger counts (every lever, the policy file's
// settings): a shape the ledger does not count (the consolidation plan
// reverts it, or nothing realises it) is left out with a note saying why,
// and an in-cluster alternative the ledger takes instead goes in. So no
// file changes a GPU shape that `gpuwise advise` keeps.
func (a *App) generateFromShapes(ctx context.Context, req RecommendRequest, build fromRecs) (*GenerateResult, error) {
	rr, an, err := a.recommend(ctx, req)
	if err != nil {
		return nil, err
	}
	adv := DefaultAdviseRequest()
	adv.RecommendRequest = req
	ar, err := a.adviseFrom(adv, rr, an)
	if err != nil {
		return nil, err
	}
	res, notes := ledgerShapes(rr.Result, ar.ledgers())
	shaped := *rr
	shaped.Result = res
	files, more, err := build(&shaped)
	if err != nil {
		return nil, fmt.Errorf("generating: %w", err)
	}
	return &GenerateResult{Files: files, Notes: append(notes, more...), Partial: rr.Partial}, nil
}

// ledgers are the result's ledgers: the one, or one per cluster.
func (r *AdviseResult) ledgers() []*ledger.Ledger {
	if r.Ledger != nil {
		return []*ledger.Ledger{r.Ledger}
	}
	var out []*ledger.Ledger
	for _, c := range r.Clusters {
		out = append(out, c.Ledger)
	}
	return out
}

// ledgerShapes is the recommendations with their GPU shapes replaced by
// the ledgers' (Ledger.Shapes), and a note for every MIG or time-slice
// shape left out.
func ledgerShapes(r *rightsize.Result, ls []*ledger.Ledger) (*rightsize.Result, []string) {
	take := map[string]rightsize.GPURec{}
	why := map[string]string{}
	for _, l := range ls {
		maps.Copy(take, l.Shapes())
		for _, nc := range l.NotCounted {
			if nc.Lever == ledger.LeverShape && why[nc.Target] == "" {
				why[nc.Target] = nc.Reason
			}
		}
	}
	out := *r
	out.GPU = nil
	var notes []string
	for _, g := range r.GPU {
		if t, ok := take[g.Workload]; ok {
			out.GPU = append(out.GPU, t)
			continue
		}
		if g.Action == rightsize.KeepWhole {
			out.GPU = append(out.GPU, g)
			continue
		}
		if g.Action == rightsize.UseMIG || g.Action == rightsize.UseTimeSlice {
			reason := why[g.Workload]
			if reason == "" {
				reason = "the savings ledger does not count it"
			}
			notes = append(notes, fmt.Sprintf("%s keeps its GPUs (%s recommended %s): %s (gpuwise advise)", g.Workload, g.Action, g.Resource, reason))
		}
	}
	return &out, notes
}

// GenerateResources writes one strategic-merge resource patch per
// right-sized workload, with the GPU shapes the savings ledger counts.
func (a *App) GenerateResources(ctx context.Context, req RecommendRequest) (*GenerateResult, error) {
	return a.generateFromShapes(ctx, req, func(rr *RecommendResult) ([]generate.File, []string, error) {
		return generate.RecommendedResources(rr.Result)
	})
}

// GenerateVPA writes one recommendation-only VPA per right-sized workload.
func (a *App) GenerateVPA(ctx context.Context, req RecommendRequest) (*GenerateResult, error) {
	return a.generateFromRecs(ctx, req, func(rr *RecommendResult) ([]generate.File, []string, error) {
		return generate.RecommendedVPAs(rr.Result, rr.Policy)
	})
}

// GenerateTimeSlicing writes the device-plugin time-slicing config of the
// dev nodes whose time-slice shapes the savings ledger counts.
func (a *App) GenerateTimeSlicing(ctx context.Context, req RecommendRequest) (*GenerateResult, error) {
	return a.generateFromShapes(ctx, req, func(rr *RecommendResult) ([]generate.File, []string, error) {
		return generate.RecommendedTimeSlicing(rr.Result, rr.Snapshot.View())
	})
}

// GenerateMIG writes the plan's MIG layouts (mig-parted config and label
// commands), the same as GeneratePlan writes for them.
func (a *App) GenerateMIG(ctx context.Context, req PlanRequest) (*GenerateResult, error) {
	return a.generateFromPlan(ctx, req, generate.PlanMIG)
}

// GeneratePlan writes everything the plan needs applied; its drain
// commands are only for the nodes the savings ledger removes too (a node
// the plan removes and the ledger keeps, for the peak or the autoscaler,
// gets a comment saying which action keeps it).
func (a *App) GeneratePlan(ctx context.Context, req PlanRequest) (*GenerateResult, error) {
	rr, an, err := a.recommend(ctx, req.RecommendRequest)
	if err != nil {
		return nil, err
	}
	adv := DefaultAdviseRequest()
	adv.RecommendRequest = req.RecommendRequest
	ar, err := a.adviseFrom(adv, rr, an)
	if err != nil {
		return nil, err
	}
	removed, why := ledgerNodes(ar.ledgers())
	return a.generateFromPlan(ctx, req, func(pl *packing.Plan, snap *cluster.Snapshot) ([]generate.File, []string, error) {
		keep := map[string]string{}
		for _, np := range pl.Nodes {
			if !np.Keep && !removed[np.Name] {
				keep[np.Name] = why[np.Name]
				if keep[np.Name] == "" {
					keep[np.Name] = "no action of the savings ledger removes it (gpuwise advise)"
				}
			}
		}
		return generate.PlanArtefactsKeeping(keep)(pl, snap)
	})
}

// ledgerNodes are the nodes the ledgers' remove-nodes actions remove, and
// for the other nodes an action names, the first such action (it keeps,
// scales or prepares the node).
func ledgerNodes(ls []*ledger.Ledger) (map[string]bool, map[string]string) {
	removed, why := map[string]bool{}, map[string]string{}
	for _, l := range ls {
		for _, a := range l.Actions {
			for _, t := range a.Targets {
				switch {
				case t.Kind != "node":
				case a.Kind == "remove-nodes":
					removed[t.Name] = true
				case why[t.Name] == "":
					why[t.Name] = fmt.Sprintf("the savings ledger does not remove it, %s acts on it: %s (gpuwise advise)", a.ID, a.Title)
				}
			}
		}
	}
	return removed, why
}

func (a *App) generateFromPlan(ctx context.Context, req PlanRequest, build func(*packing.Plan, *cluster.Snapshot) ([]generate.File, []string, error)) (*GenerateResult, error) {
	pr, err := a.Plan(ctx, req)
	if err != nil {
		return nil, err
	}
	files, notes, err := build(pr.Plan, pr.Snapshot.View())
	if err != nil {
		return nil, fmt.Errorf("generating: %w", err)
	}
	return &GenerateResult{Files: files, Notes: notes, Partial: pr.Partial}, nil
}
