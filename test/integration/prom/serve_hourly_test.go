//go:build integration

package prom_test

import (
	"context"
	"io"
	"log/slog"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/gpuwise/gpuwise/internal/app"
	"github.com/gpuwise/gpuwise/internal/serve"
)

// gpuwise serve's window against the real Prometheus has hourly series
// (merged from the intervals' raw hourly sums), so its report has the
// idle causes and the series-based savings levers (autoscale, reclaim)
// that one read of the same window has: the same causes per workload,
// and GPU-hours and dollars within the activity tolerance.
func TestServeWindowHasTheIdleCausesAndLeversOfOneRead(t *testing.T) {
	url, _ := state(t)
	at := time.Date(2026, 11, 12, 0, 0, 0, 0, time.UTC)
	now := func() time.Time { return at }
	src := app.DefaultPromSource()
	src.Client.URL = url
	opts := serve.DefaultOptions()
	opts.Inventory, opts.Prometheus, opts.Lag = serve.InventoryPrometheus, &src, 0
	reg := prometheus.NewRegistry()
	a := app.New(now)
	svc, err := serve.New(context.Background(), opts, serve.Deps{App: a, Log: slog.New(slog.NewTextHandler(io.Discard, nil)), Registry: reg})
	if err != nil {
		t.Fatal(err)
	}
	defer svc.Close()
	if err := svc.Cycle(context.Background()); err != nil {
		t.Fatal(err)
	}
	st := svc.State()
	w := st.Window
	once := src
	once.End = w.End
	req := app.DefaultReportRequest()
	req.Source, req.Window = app.Source{Prometheus: &once}, w.End.Sub(w.Start)
	want, err := a.Report(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	got := st.Report
	if want.IdleCauses == nil || len(want.IdleCauses.Workloads) == 0 || got.IdleCauses == nil {
		t.Fatalf("idle causes: one read %v, service %v", want.IdleCauses != nil, got.IdleCauses != nil)
	}
	causes := func(r *app.ReportResult) map[string]string {
		m := map[string]string{}
		for _, wl := range r.IdleCauses.Workloads {
			m[wl.Workload] = string(wl.Main)
		}
		return m
	}
	g, wt := causes(got), causes(want)
	for k, c := range wt {
		if g[k] != c {
			t.Errorf("workload %s: main idle cause %q in the service, %q in one read", k, g[k], c)
		}
	}
	for i, s := range want.IdleCauses.Totals {
		gs := got.IdleCauses.Totals[i]
		if gs.Cause != s.Cause || !near(gs.GPUHours, s.GPUHours, activityTolerance) {
			t.Errorf("cause %s: %.3f idle GPU-hours in the service, %s %.3f in one read", gs.Cause, gs.GPUHours, s.Cause, s.GPUHours)
		}
	}
	if want.Ledger == nil || got.Ledger == nil {
		t.Fatalf("ledger: one read %v (%v), service %v (%v)", want.Ledger != nil, want.LedgerErr, got.Ledger != nil, got.LedgerErr)
	}
	for i, l := range want.Ledger.Levers {
		gl := got.Ledger.Levers[i]
		t.Logf("lever %s: $%.2f/month service, $%.2f one read", l.Name, gl.SavingUSDMonth, l.SavingUSDMonth)
		if gl.Name != l.Name || !near(gl.SavingUSDMonth, l.SavingUSDMonth, activityTolerance) {
			t.Errorf("lever %s: $%.2f/month in the service, %s $%.2f in one read", gl.Name, gl.SavingUSDMonth, l.Name, l.SavingUSDMonth)
		}
	}
}
