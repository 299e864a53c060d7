package app

import (
	"context"
	"errors"
	"fmt"

	"github.com/gpuwise/gpuwise/internal/capacity"
	"github.com/gpuwise/gpuwise/internal/cluster"
	"github.com/gpuwise/gpuwise/internal/cost"
	"github.com/gpuwise/gpuwise/internal/ledger"
	"github.com/gpuwise/gpuwise/internal/packing"
)

// AdviseRequest asks for the savings ledger.
type AdviseRequest struct {
	RecommendRequest
	// Levers names the levers to apply (empty: all, always in the
	// documented order); EngineerUSDPerHour prices effort for payback.
	Levers             []string
	EngineerUSDPerHour float64
	// Autoscale are the autoscaling policy's flags, over the policy
	// file's autoscaling section.
	Autoscale AutoscaleOverrides
	// Region is the region lever's policy (the zero value: its defaults).
	Region capacity.RegionPolicy
	// By is "" or "cluster" (ByCluster): Clusters holds each cluster's
	// own ledger even for one cluster's snapshot (a merged snapshot of
	// several clusters always gives them).
	By string
}

// LeverNames are the levers an AdviseRequest may name, in the order the
// ledger applies them.
func LeverNames() []string { return ledger.LeverNames() }

// DefaultAdviseRequest is advise with every default.
func DefaultAdviseRequest() AdviseRequest {
	return AdviseRequest{RecommendRequest: DefaultRecommendRequest(), EngineerUSDPerHour: ledger.DefaultEngineerUSDPerHour,
		Region: capacity.DefaultRegionPolicy()}
}

// options are the ledger options the request describes, with the policy.
func (r AdviseRequest) options() ledger.Options {
	o := ledger.DefaultOptions()
	o.Levers, o.EngineerUSDPerHour = r.Levers, r.EngineerUSDPerHour
	if r.Region != (capacity.RegionPolicy{}) {
		o.Region = r.Region
	}
	return o
}

// Validate lists every problem with the request: an unknown lever or a
// negative engineering rate is a usage error naming it.
func (r AdviseRequest) Validate() error {
	var p problems
	r.Data.validate(&p)
	p.add(r.options().Validate())
	checkByCluster(&p, r.By)
	r.Autoscale.validate(&p)
	return p.err()
}

// AdviseResult is the savings ledger and the snapshot it models; Partial
// as in ReportResult.
type AdviseResult struct {
	// Ledger is the savings ledger of one cluster's snapshot; nil when
	// the snapshot merges several clusters, whose own ledgers are in
	// Clusters (their savings add up; none is shared between them).
	Ledger   *ledger.Ledger
	Clusters []ClusterLedger
	Snapshot *cluster.Prepared
	Partial  error
}

// Advise builds the savings ledger: the levers applied in order to one
// modelled cluster, ranked, phased, with the FinOps metrics.
func (a *App) Advise(ctx context.Context, req AdviseRequest) (*AdviseResult, error) {
	if err := req.Validate(); err != nil {
		return nil, err
	}
	rr, an, err := a.recommend(ctx, req.RecommendRequest)
	if err != nil {
		return nil, err
	}
	return a.adviseFrom(req, rr, an)
}

// adviseFrom builds the savings ledger of recommendations already made.
func (a *App) adviseFrom(req AdviseRequest, rr *RecommendResult, an *Analysis) (*AdviseResult, error) {
	opts := req.options()
	opts.Policy = rr.Policy
	pols, err := withAutoscaleFlags(rr.policies, req.Policies.name(), req.Autoscale)
	if err != nil {
		return nil, err
	}
	ledgerSections(&opts, pols)
	a.progress.phase("building the savings ledger")
	if len(clusterNames(rr.Snapshot)) > 1 { // by cluster, asked or not: nothing is shared between them
		cl, err := perCluster(rr.Snapshot, rr.Policy, req.Prices, opts)
		if err != nil {
			return nil, err
		}
		return &AdviseResult{Clusters: cl, Snapshot: rr.Snapshot, Partial: rr.Partial}, nil
	}
	l, err := an.Ledger(opts, cost.DefaultOptions())
	if errors.Is(err, packing.ErrProblem) {
		return nil, withKind(Input, fmt.Errorf("building the savings ledger: %w", err)) // the snapshot's, not a bug
	}
	if err != nil {
		return nil, fmt.Errorf("building the savings ledger: %w", err)
	}
	res := &AdviseResult{Ledger: l, Snapshot: rr.Snapshot, Partial: rr.Partial}
	if req.By == ByCluster { // one cluster: its ledger is the one section
		res.Clusters = []ClusterLedger{{Cluster: soleClusterName(rr.Snapshot, req.Source), Ledger: l}}
	}
	return res, nil
}
