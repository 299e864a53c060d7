package app

import (
	"io"

	"github.com/gpuwise/gpuwise/internal/audit"
	"github.com/gpuwise/gpuwise/internal/capacity"
	"github.com/gpuwise/gpuwise/internal/cost"
	"github.com/gpuwise/gpuwise/internal/generate"
	"github.com/gpuwise/gpuwise/internal/ledger"
	"github.com/gpuwise/gpuwise/internal/packing"
	"github.com/gpuwise/gpuwise/internal/policy"
)

// What the front ends name of the engines' settings, with their defaults
// and parsers: the CLI and the service import app (and render) and never
// an engine or a store (internal/archtest checks it). Each is the engine's
// own type, so a request carries exactly what the engine validates.
type (
	// CostOptions are the allocation settings of ReportRequest.Cost.
	CostOptions = cost.Options
	// ReportOptions are the report's settings (ReportRequest.Report).
	ReportOptions = cost.ReportOptions
	// IdleShare is how idle GPU time is shared (CostOptions.IdleShare).
	IdleShare = cost.IdleShare
	// Severity grades audit findings (AuditRequest's fail-on level).
	Severity = audit.Severity
	// Shapes are the GPU shapes a plan packs (PlanRequest.Shapes).
	Shapes = packing.Shapes
	// RegionPolicy is the region lever's settings (AdviseRequest.Region).
	RegionPolicy = capacity.RegionPolicy
	// PolicyEngine and PolicyMode select the admission policies written
	// (PolicyRequest).
	PolicyEngine = policy.Engine
	PolicyMode   = policy.Mode
)

// Defaults the front ends show in their flags' help.
const (
	DefaultEngineerUSDPerHour     = ledger.DefaultEngineerUSDPerHour
	DefaultRegionMaxPaybackMonths = capacity.DefaultRegionMaxPaybackMonths
	DefaultShapes                 = packing.DefaultShapes
	NativePolicies                = policy.Native
)

// DefaultCostOptions are the allocation defaults (settings only: the use
// case prices with Data.Prices); DefaultReportOptions the report's.
func DefaultCostOptions() CostOptions         { return cost.DefaultOptions() }
func DefaultReportOptions() ReportOptions     { return cost.DefaultReportOptions() }
func DefaultAutoscalePolicy() AutoscalePolicy { return capacity.DefaultAutoscalePolicy() }

// AutoscalePolicy is the autoscaling lever's settings (the defaults of
// AutoscaleOverrides).
type AutoscalePolicy = capacity.AutoscalePolicy

// ParseSeverity reads an audit severity: critical, warning or info.
func ParseSeverity(s string) (Severity, error) { return audit.ParseSeverity(s) }

// WriteFiles writes generated files to w as one multi-document YAML
// stream (generate.WriteStream): what `-d -` prints.
func WriteFiles(w io.Writer, files []generate.File) error { return generate.WriteStream(w, files) }
