package app_test

import (
	"context"
	"math"
	"testing"
	"time"

	"github.com/gpuwise/gpuwise/internal/app"
	"github.com/gpuwise/gpuwise/internal/cost"
	"github.com/gpuwise/gpuwise/internal/history"
)

// One GPU unit from the history (/api/v1/history/unit): two half-hour
// cycles of one hour at two prices are one hour of the answer, each
// half at its own price; an unpriced hour has no dollars (not $0) and
// says so; the totals are the hours'; a unit of another cluster, or an
// unknown one, has no hours and a note.
func TestHistoryUnitHoursAndPrices(t *testing.T) {
	ctx := context.Background()
	h, err := app.OpenHistory(ctx, history.InMemory)
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	t0 := time.Date(2026, 11, 2, 10, 0, 0, 0, time.UTC)
	price := func(v float64) *float64 { return &v }
	cycle := func(start time.Time, secs float64, p *float64, holder string, held, measured, active float64) {
		t.Helper()
		u := cost.UnitHours{Unit: "n1/gpu0-mig1", Node: "n1", Model: "A100-80GB", Kind: "mig-slice", Profile: "3g.40gb", Fraction: 0.5,
			GPUUSDPerHour: p, LifeSeconds: secs, HeldSeconds: held, MeasuredSeconds: measured, ActiveSeconds: active, Holders: []string{holder}}
		if holder == "" {
			u.Holders = []string{}
		}
		c := history.Cycle{Cluster: "c1", Start: start, End: start.Add(time.Duration(secs) * time.Second), Units: []cost.UnitHours{u}}
		if _, err := h.Store().Record(ctx, c); err != nil {
			t.Fatal(err)
		}
	}
	// hour 10: $4/h then $6/h; hour 11: unpriced; hour 12: priced, unheld half
	cycle(t0, 1800, price(4), "ml/Job/a", 1800, 1800, 900)
	cycle(t0.Add(30*time.Minute), 1800, price(6), "ml/Job/b", 1800, 1200, 600)
	cycle(t0.Add(time.Hour), 3600, nil, "ml/Job/b", 3600, 3600, 3600)
	cycle(t0.Add(2*time.Hour), 3600, price(4), "", 1800, 0, 0)
	u, err := h.Unit(ctx, app.HistoryUnitRequest{Cluster: "c1", Unit: "n1/gpu0-mig1", From: t0, To: t0.Add(3 * time.Hour)})
	if err != nil {
		t.Fatal(err)
	}
	if len(u.Hours) != 3 || u.Node != "n1" || u.Profile != "3g.40gb" || u.Fraction != 0.5 {
		t.Fatalf("unit: %d hours, %+v", len(u.Hours), u)
	}
	near := func(got *float64, want float64) bool { return got != nil && math.Abs(*got-want) < 1e-9 }
	h10 := u.Hours[0]
	// $ = fraction × (0.5 h × $4 + 0.5 h × $6); active 0.25 h × $4 + 1/6 h × $6;
	// idle (measured − active) 0.25 h × $4 + 1/6 h × $6; unmeasured 1/6 h × $6
	if !near(h10.USD, 0.5*(0.5*4+0.5*6)) || !near(h10.ActiveUSD, 0.5*(0.25*4+600.0/3600*6)) || !near(h10.IdleUSD, 0.5*(0.25*4+600.0/3600*6)) ||
		!near(h10.UnmeasuredUSD, 0.5*(600.0/3600*6)) || !near(h10.UnallocatedUSD, 0) || h10.GPUUSDPerHour != nil {
		t.Errorf("hour 10 (two prices): %+v", h10)
	}
	if h10.LifeHours != 1 || !near(h10.Utilization, 1500.0/3000) || len(h10.Holders) != 2 {
		t.Errorf("hour 10: %v h, utilization %v, holders %v", h10.LifeHours, h10.Utilization, h10.Holders)
	}
	if h11 := u.Hours[1]; h11.USD != nil || h11.ActiveUSD != nil || !near(h11.Utilization, 1) {
		t.Errorf("hour 11 (unpriced): %+v", h11)
	}
	if h12 := u.Hours[2]; !near(h12.USD, 0.5*4) || !near(h12.UnallocatedUSD, 0.5*0.5*4) || !near(h12.UnmeasuredUSD, 0.5*0.5*4) || h12.Utilization != nil {
		t.Errorf("hour 12 (half unheld, unmeasured): %+v", h12)
	}
	if !near(u.Total.USD, *h10.USD+*u.Hours[2].USD) || u.Total.LifeHours != 3 || u.Total.UnpricedHours != 1 || len(u.Notes) != 1 ||
		len(u.Holders) != 2 || u.Coverage.Cycles != 4 {
		t.Errorf("totals %+v, holders %v, notes %v, coverage %+v", u.Total, u.Holders, u.Notes, u.Coverage)
	}
	for _, req := range []app.HistoryUnitRequest{
		{Cluster: "c2", Unit: "n1/gpu0-mig1", From: t0, To: t0.Add(3 * time.Hour)},
		{Cluster: "c1", Unit: "n1/gpu1", From: t0, To: t0.Add(3 * time.Hour)},
	} {
		v, err := h.Unit(ctx, req)
		if err != nil || len(v.Hours) != 0 || v.Total.USD != nil || len(v.Notes) != 1 {
			t.Errorf("%+v: %+v, %v", req, v, err)
		}
	}
	// every cluster: the unit of a cluster named cluster/unit
	if v, err := h.Unit(ctx, app.HistoryUnitRequest{Cluster: app.AllClusters, Unit: "c1/n1/gpu0-mig1", From: t0, To: t0.Add(3 * time.Hour)}); err != nil || len(v.Hours) != 3 {
		t.Errorf("c1/n1/gpu0-mig1 over every cluster: %v hours, %v", len(v.Hours), err)
	}
	if _, err := h.Unit(ctx, app.HistoryUnitRequest{From: t0, To: t0}); app.KindOf(err) != app.Usage {
		t.Errorf("no unit, empty range: %v", err)
	}
}
