package app

import (
	"context"
	"errors"
	"time"

	"github.com/gpuwise/gpuwise/internal/audit"
	"github.com/gpuwise/gpuwise/internal/policy"
)

// AuditRequest asks for the hygiene audit.
type AuditRequest struct {
	Data
	// Audit are the rule settings (the use case prices with Data.Prices).
	Audit audit.Options
	// Admission are the admission-policy settings (docs/policy.md) the
	// admission section evaluates, loaded at the composition root
	// (LoadAdmissionSettings); nil means the defaults.
	Admission *AdmissionSettings
}

// DefaultAuditRequest is the audit with every default.
func DefaultAuditRequest() AuditRequest {
	return AuditRequest{Data: Data{Source: Source{Kube: DefaultKube()}}, Audit: audit.DefaultOptions()}
}

// Validate lists every problem with the request.
func (r AuditRequest) Validate() error {
	var p problems
	r.Data.validate(&p)
	p.add(r.Audit.Validate())
	return p.err()
}

// AuditResult is the findings and the admission section; Partial as in
// ReportResult (also set when the cluster refused the policy reads).
type AuditResult struct {
	Result *audit.Result
	// Admission is, per admission rule, how the cluster enforces it and what
	// it would have blocked among the window's pods.
	Admission *policy.Enforcement
	Partial   error
}

// liveAuditWindow is the live cluster's default window for the audit: it
// judges the cluster as it is.
const liveAuditWindow = time.Hour

// Audit checks every hygiene rule against the snapshot.
func (a *App) Audit(ctx context.Context, req AuditRequest) (*AuditResult, error) {
	if err := req.Validate(); err != nil {
		return nil, err
	}
	an, err := a.analyze(ctx, req.Data, liveAuditWindow)
	if err != nil {
		return nil, err
	}
	a.progress.phase("auditing")
	adm, admPartial, err := a.admission(ctx, req.Source, an.snap, req.Admission)
	if err != nil {
		return nil, err
	}
	return &AuditResult{Result: audit.Run(an.snap, an.prices, req.Audit), Admission: adm, Partial: errors.Join(an.partial, admPartial)}, nil
}
