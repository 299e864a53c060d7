package app

import (
	"context"
	"fmt"

	"github.com/gpuwise/gpuwise/internal/cluster"
	"github.com/gpuwise/gpuwise/internal/generate"
	"github.com/gpuwise/gpuwise/internal/packing"
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

// GenerateResources writes one strategic-merge resource patch per
// right-sized workload.
func (a *App) GenerateResources(ctx context.Context, req RecommendRequest) (*GenerateResult, error) {
	return a.generateFromRecs(ctx, req, func(rr *RecommendResult) ([]generate.File, []string, error) {
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
// dev nodes.
func (a *App) GenerateTimeSlicing(ctx context.Context, req RecommendRequest) (*GenerateResult, error) {
	return a.generateFromRecs(ctx, req, func(rr *RecommendResult) ([]generate.File, []string, error) {
		return generate.RecommendedTimeSlicing(rr.Result, rr.Snapshot.Snapshot)
	})
}

// GenerateMIG writes the plan's MIG layouts (mig-parted config and label
// commands), the same as GeneratePlan writes for them.
func (a *App) GenerateMIG(ctx context.Context, req PlanRequest) (*GenerateResult, error) {
	return a.generateFromPlan(ctx, req, generate.PlanMIG)
}

// GeneratePlan writes everything the plan needs applied.
func (a *App) GeneratePlan(ctx context.Context, req PlanRequest) (*GenerateResult, error) {
	return a.generateFromPlan(ctx, req, generate.PlanArtefacts)
}

func (a *App) generateFromPlan(ctx context.Context, req PlanRequest, build func(*packing.Plan, *cluster.Snapshot) ([]generate.File, []string, error)) (*GenerateResult, error) {
	pr, err := a.Plan(ctx, req)
	if err != nil {
		return nil, err
	}
	files, notes, err := build(pr.Plan, pr.Snapshot.Snapshot)
	if err != nil {
		return nil, fmt.Errorf("generating: %w", err)
	}
	return &GenerateResult{Files: files, Notes: notes, Partial: pr.Partial}, nil
}
