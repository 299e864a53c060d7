package app

import (
	"context"

	"github.com/gpuwise/gpuwise/internal/cluster"
	"github.com/gpuwise/gpuwise/internal/config"
	"github.com/gpuwise/gpuwise/internal/cost"
	"github.com/gpuwise/gpuwise/internal/ledger"
	"github.com/gpuwise/gpuwise/internal/rightsize"
)

// RecommendRequest asks for right-sizing recommendations.
type RecommendRequest struct {
	Data
	// Policies is the policy file (YAML or JSON) loaded at the composition
	// root (LoadPolicies, MustLoadPolicies); nil means the defaults
	// (rightsize.DefaultPolicy and each lever's).
	Policies *Policies
}

// DefaultRecommendRequest is recommend with every default.
func DefaultRecommendRequest() RecommendRequest {
	return RecommendRequest{Data: Data{Source: Source{Kube: DefaultKube()}}}
}

// Validate lists every problem with the request.
func (r RecommendRequest) Validate() error {
	var p problems
	r.Data.validate(&p)
	return p.err()
}

// RecommendResult is the recommendations, the policy they used and the
// snapshot they came from; Partial as in ReportResult.
type RecommendResult struct {
	Result   *rightsize.Result
	Policy   rightsize.Policy
	Snapshot *cluster.Prepared
	// Ledger is the part of the savings ledger the recommendations
	// realise once packed (Recommend only); nil when the ledger could not
	// be built, and LedgerErr says why.
	Ledger    *ledger.Part
	LedgerErr error
	Partial   error

	// policies is the whole policy file as read, for the use cases that
	// go on to the ledger (read once).
	policies config.Policies
}

// Recommend sizes every container and picks a GPU shape per workload, and
// says what the changes realise in the savings ledger (or, in LedgerErr,
// why the ledger could not be built).
func (a *App) Recommend(ctx context.Context, req RecommendRequest) (*RecommendResult, error) {
	res, an, err := a.recommend(ctx, req)
	if err != nil {
		return nil, err
	}
	opts := ledger.DefaultOptions()
	opts.Policy = res.Policy
	l, err := an.Ledger(opts, cost.DefaultOptions())
	if err != nil {
		res.LedgerErr = err
		return res, nil
	}
	part := l.RightSizing()
	res.Ledger = &part
	return res, nil
}

// recommend is the recommendations without the ledger, and the analysis
// they came from, for the use cases that go on to plan, generate or
// advise.
func (a *App) recommend(ctx context.Context, req RecommendRequest) (*RecommendResult, *Analysis, error) {
	if err := req.Validate(); err != nil {
		return nil, nil, err
	}
	pols, err := req.Policies.get()
	if err != nil {
		return nil, nil, err
	}
	pol := pols.Rightsize
	an, err := a.analyze(ctx, req.Data, liveReportWindow)
	if err != nil {
		return nil, nil, err
	}
	a.progress.phase("recommending")
	r, err := an.Recommendations(pol)
	if err != nil {
		return nil, nil, err
	}
	return &RecommendResult{Result: r, Policy: pol, Snapshot: an.snap, Partial: an.partial, policies: pols}, an, nil
}
