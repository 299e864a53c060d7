package app

import (
	"context"

	"github.com/gpuwise/gpuwise/internal/cluster"
	"github.com/gpuwise/gpuwise/internal/ledger"
	"github.com/gpuwise/gpuwise/internal/packing"
	"github.com/gpuwise/gpuwise/internal/rightsize"
)

// PlanRequest asks for a consolidation plan.
type PlanRequest struct {
	RecommendRequest
	// Shapes packs right-sized shapes (recommended) or the current ones.
	Shapes packing.Shapes
	// By is "" (one plan) or "cluster" (ByCluster: each cluster's own
	// plan in Clusters).
	By string
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
	checkByCluster(&p, r.By)
	return p.err()
}

// PlanResult is the plan and the snapshot it packs; Recommendations are
// set when it packs right-sized shapes; Partial as in ReportResult.
type PlanResult struct {
	// Plan is the whole snapshot's plan; nil with By "cluster" over
	// several clusters, whose own plans are in Clusters (the sum of their
	// savings is the whole plan's: none moves a pod across clusters).
	Plan *packing.Plan
	// Clusters are the clusters' own plans (By "cluster"), sorted by name.
	Clusters        []ClusterPlan
	Recommendations *RecommendResult
	Snapshot        *cluster.Prepared
	Partial         error
}

// Plan packs the GPU pods onto the fewest, cheapest nodes.
func (a *App) Plan(ctx context.Context, req PlanRequest) (*PlanResult, error) {
	return a.plan(ctx, req, nil)
}

// shapeRecs turns the recommendations a plan packs (recommended shapes)
// into the ones it packs: nil packs them as they are.
type shapeRecs func(*RecommendResult, *Analysis) (*rightsize.Result, error)

func (a *App) plan(ctx context.Context, req PlanRequest, shape shapeRecs) (*PlanResult, error) {
	if err := req.Validate(); err != nil {
		return nil, err
	}
	res := &PlanResult{}
	var an *Analysis
	var recs *packing.Recommendations
	var pol rightsize.Policy
	if req.Shapes == packing.RecommendedShapes {
		rr, rrAn, err := a.recommend(ctx, req.RecommendRequest)
		if err != nil {
			return nil, err
		}
		packed := rr.Result
		if shape != nil {
			if packed, err = shape(rr, rrAn); err != nil {
				return nil, err
			}
		}
		res.Recommendations, an, recs, pol = rr, rrAn, ledger.PackingRecommendations(packed), rr.Policy
	} else {
		var err error
		if an, err = a.analyze(ctx, req.Data, liveReportWindow); err != nil {
			return nil, err
		}
	}
	res.Snapshot, res.Partial = an.snap, an.partial
	if req.By == ByCluster && len(clusterNames(res.Snapshot)) > 1 {
		a.progress.phase("packing each cluster")
		if err := a.planByCluster(ctx, req, res, pol); err != nil {
			return nil, err
		}
		return res, nil
	}
	catalog := an.prices
	a.progress.phase("building the packing problem")
	prob, err := packing.FromSnapshot(res.Snapshot, packing.SnapshotOptions{Prices: catalog, Shapes: req.Shapes, Recs: recs})
	if err != nil {
		return nil, err
	}
	if res.Plan, err = packing.SolveReporting(prob, packing.Progress(a.progress)); err != nil {
		return nil, withKind(Input, err)
	}
	if req.By == ByCluster {
		if err := a.planByCluster(ctx, req, res, pol); err != nil {
			return nil, err
		}
	}
	return res, nil
}
