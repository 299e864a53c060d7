package app

import (
	"context"
	"fmt"

	"github.com/gpuwise/gpuwise/internal/cost"
	"github.com/gpuwise/gpuwise/internal/generate"
	"github.com/gpuwise/gpuwise/internal/policy"
	"github.com/gpuwise/gpuwise/internal/quota"
)

// QuotaRequest asks for per-namespace GPU ResourceQuotas.
type QuotaRequest struct {
	Data
	// Percentile and Headroom size each quota (quota.DefaultOptions).
	Percentile float64
	Headroom   float64
}

// DefaultQuotaRequest is generate quota with every default.
func DefaultQuotaRequest() QuotaRequest {
	o := quota.DefaultOptions(nil)
	return QuotaRequest{Data: Data{Source: Source{Kube: DefaultKube()}}, Percentile: o.Percentile, Headroom: o.Headroom}
}

// Validate lists every problem with the request.
func (r QuotaRequest) Validate() error {
	var p problems
	r.Data.validate(&p)
	p.add(quota.Options{Percentile: r.Percentile, Headroom: r.Headroom}.Validate())
	return p.err()
}

// QuotaResult is the sized quotas and their files.
type QuotaResult struct {
	Quota *quota.Result
	GenerateResult
}

// GenerateQuota sizes a GPU ResourceQuota per namespace from the window's
// pods and prices what each caps with the cost allocation. The namespaces
// the admission policies exempt (kube-system, the GPU Operator's) get none.
func (a *App) GenerateQuota(ctx context.Context, req QuotaRequest) (*QuotaResult, error) {
	if err := req.Validate(); err != nil {
		return nil, err
	}
	an, err := a.analyze(ctx, req.Data, liveReportWindow)
	if err != nil {
		return nil, err
	}
	in := an.snap
	alloc, err := an.Allocation(cost.DefaultOptions())
	if err != nil {
		return nil, err
	}
	exempt, _ := policy.Learn(policy.Defaults(), in.View())
	q, err := quota.Size(in, alloc, quota.Options{Percentile: req.Percentile, Headroom: req.Headroom, Exempt: exempt.ExemptNamespaces})
	if err != nil {
		return nil, fmt.Errorf("sizing quotas: %w", err)
	}
	files, err := generate.Quotas(q)
	if err != nil {
		return nil, generateErr(err)
	}
	notes := append([]string{"the need is read from pod lifetimes (each pod requests its units from start to end, pending pods included, as ResourceQuota counts them)"}, q.Notes...)
	return &QuotaResult{Quota: q, GenerateResult: GenerateResult{Files: files, Notes: notes, Partial: an.partial}}, nil
}
