package app

import (
	"context"

	"github.com/gpuwise/gpuwise/internal/cluster"
	"github.com/gpuwise/gpuwise/internal/ledger"
	"github.com/gpuwise/gpuwise/internal/packing"
)

// PlanRequest asks for a consolidation plan.
type PlanRequest struct {
	RecommendRequest
	// Shapes packs right-sized shapes (recommended) or the current ones.
	Shapes packing.Shapes
}

// DefaultPlanRequest is plan with every default.
func DefaultPlanRequest() PlanRequest {
	return PlanRequest{RecommendRequest: DefaultRecommendRequest(), Shapes: packing.DefaultShapes}
}

// Validate lists every problem with the request.
func (r PlanRequest) Validate() error {
	var p problems
	r.Data.validate(&p)
	p.add(r.Shapes.Validate())
	return p.err()
}

// PlanResult is the plan and the snapshot it packs; Recommendations are
// set when it packs right-sized shapes; Partial as in ReportResult.
type PlanResult struct {
	Plan            *packing.Plan
	Recommendations *RecommendResult
	Snapshot        *cluster.Prepared
	Partial         error
}

// Plan packs the GPU pods onto the fewest, cheapest nodes.
func (a *App) Plan(ctx context.Context, req PlanRequest) (*PlanResult, error) {
	if err := req.Validate(); err != nil {
		return nil, err
	}
	res := &PlanResult{}
	var an *Analysis
	var recs *packing.Recommendations
	if req.Shapes == packing.RecommendedShapes {
		rr, rrAn, err := a.recommend(ctx, req.RecommendRequest)
		if err != nil {
			return nil, err
		}
		res.Recommendations, an, recs = rr, rrAn, ledger.PackingRecommendations(rr.Result)
	} else {
		var err error
		if an, err = a.analyze(ctx, req.Data, liveReportWindow); err != nil {
			return nil, err
		}
	}
	res.Snapshot, res.Partial = an.snap, an.partial
	catalog := an.prices
	a.progress.phase("building the packing problem")
	prob, err := packing.FromSnapshot(res.Snapshot, packing.SnapshotOptions{Prices: catalog, Shapes: req.Shapes, Recs: recs})
	if err != nil {
		return nil, err
	}
	if res.Plan, err = packing.SolveReporting(prob, packing.Progress(a.progress)); err != nil {
		return nil, withKind(Input, err)
	}
	return res, nil
}
