package app

import (
	"context"
	"fmt"

	"github.com/gpuwise/gpuwise/internal/cluster"
	"github.com/gpuwise/gpuwise/internal/cost"
)

// BreakdownRequest asks for one allocation grouped several ways: what the
// service records per cycle (by workload, namespace, node and GPU model)
// and shows per GPU model and pod.
type BreakdownRequest struct {
	Data
	// Cost are the allocation settings (the prices are Data.Prices).
	Cost cost.Options
	// By are the groupings (each a --by value); TopN is the leaderboard
	// length of every report.
	By   []string
	TopN int
	// Units asks for every GPU unit's time too (cost.UnitUsage: what
	// serve's history keeps for the low-utilization list).
	Units bool
}

// DefaultBreakdownRequest groups the default allocation by workload,
// namespace, node and GPU model.
func DefaultBreakdownRequest() BreakdownRequest {
	return BreakdownRequest{Data: Data{Source: Source{Kube: DefaultKube()}}, Cost: cost.DefaultOptions(),
		By: []string{"workload", "namespace", "node", "gpu-model"}, TopN: cost.DefaultReportOptions().TopN}
}

// Validate lists every problem with the request.
func (r BreakdownRequest) Validate() error {
	var p problems
	r.Data.validate(&p)
	p.add(r.Cost.Validate())
	if len(r.By) == 0 {
		p.add(fmt.Errorf("by: at least one grouping"))
	}
	for _, by := range r.By {
		p.add(cost.ReportOptions{By: by, TopN: r.TopN}.Validate())
	}
	return p.err()
}

// BreakdownResult is one report per grouping, keyed by its --by value.
type BreakdownResult struct {
	Reports  map[string]*cost.Report
	Units    []cost.UnitHours
	Snapshot *cluster.Prepared
	Partial  error
}

// Breakdown allocates the snapshot's cost once and groups it every way
// asked; every report reconciles like Report's.
func (a *App) Breakdown(ctx context.Context, req BreakdownRequest) (*BreakdownResult, error) {
	if err := req.Validate(); err != nil {
		return nil, err
	}
	an, err := a.analyze(ctx, req.Data, liveReportWindow)
	if err != nil {
		return nil, err
	}
	alloc, err := an.Allocation(req.Cost)
	if err != nil {
		return nil, err
	}
	res := &BreakdownResult{Reports: map[string]*cost.Report{}, Snapshot: an.snap, Partial: an.partial}
	for _, by := range req.By {
		r, err := cost.NewReport(alloc, cost.ReportOptions{By: by, TopN: req.TopN})
		if err != nil {
			return nil, fmt.Errorf("building report by %s: %w", by, err)
		}
		res.Reports[by] = r
	}
	if req.Units {
		res.Units = cost.UnitUsage(alloc, alloc.Snapshot.Index())
	}
	return res, nil
}
