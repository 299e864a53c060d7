package collector

import (
	"context"
	"time"

	"github.com/gpuwise/gpuwise/internal/app"
	"github.com/gpuwise/gpuwise/internal/cluster"
	"github.com/gpuwise/gpuwise/internal/exporter"
)

// build computes the state of window w: its snapshot, the default report
// and audit, and the metrics frame.
func (s *Collector) build(ctx context.Context, inv *cluster.Snapshot, w cluster.Window, partial error, now time.Time) (*State, error) {
	mem, err := s.windowSnapshot(inv, w, partial)
	if err != nil {
		return nil, err
	}
	return s.results(ctx, mem, now)
}

// results runs the default use cases on a window's snapshot.
func (s *Collector) results(ctx context.Context, mem *app.InMemory, now time.Time) (*State, error) {
	src, prices := app.Source{Snapshot: mem}, s.prices.Load()
	rep := app.DefaultReportRequest()
	rep.Source, rep.Prices, rep.Policies = src, prices, s.policies.Load()
	rr, err := s.app.Report(ctx, rep)
	if err != nil {
		return nil, err
	}
	aud := app.DefaultAuditRequest()
	aud.Source, aud.Prices = src, prices
	ar, err := s.app.Audit(ctx, aud)
	if err != nil {
		return nil, err
	}
	br := app.DefaultBreakdownRequest()
	br.Source, br.Prices, br.By = src, prices, []string{"gpu-model", "mechanism"}
	if s.opts.PodMetrics {
		br.By = append(br.By, "pod")
	}
	bd, err := s.app.Breakdown(ctx, br)
	if err != nil {
		return nil, err
	}
	w := mem.Prepared.Window()
	f := &exporter.Frame{Totals: s.totals, Window: w, Partial: mem.Partial != nil, Report: rr.Report,
		GPUModels: bd.Reports["gpu-model"], Mechanisms: bd.Reports["mechanism"], Pods: bd.Reports["pod"], Audit: ar.Result, Ledger: rr.Ledger,
		Fleet: exporter.NewFleet(mem.Prepared.Nodes(), w), Reconciliation: rr.Reconciliation, Kueue: rr.Kueue}
	prog := s.trackPlan(ctx, rr, mem)
	if prog != nil {
		f.Plan, f.Proof = prog.Plan, prog.Proof
	}
	return &State{Built: now, Checked: now, Window: w, Snapshot: mem, Report: rr, Audit: ar, Frame: f, Prices: prices, Progress: prog}, nil
}
