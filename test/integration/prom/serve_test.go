//go:build integration

package prom_test

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/gpuwise/gpuwise/internal/app"
	"github.com/gpuwise/gpuwise/internal/cli"
	"github.com/gpuwise/gpuwise/internal/cost"
	"github.com/gpuwise/gpuwise/internal/serve"
)

// gpuwise serve reading the real Prometheus incrementally (the window
// interval by interval at start, then only each new 10 minutes, the
// inventory from kube-state-metrics) gives the report one read of the same
// window gives: allocation exactly, activity within the step tolerance.
func TestServeReadsIncrementallyLikeOneRead(t *testing.T) {
	url, _ := state(t)
	var clock atomic.Int64
	at := time.Date(2026, 11, 12, 0, 0, 0, 0, time.UTC)
	clock.Store(at.UnixNano())
	now := func() time.Time { return time.Unix(0, clock.Load()).UTC() }
	src := app.DefaultPromSource()
	src.Client.URL = url
	opts := serve.DefaultOptions()
	opts.Inventory, opts.Prometheus, opts.Lag = serve.InventoryPrometheus, &src, 0
	reg := prometheus.NewRegistry()
	svc, err := serve.New(context.Background(), opts, serve.Deps{App: app.New(now), Log: slog.New(slog.NewTextHandler(io.Discard, nil)), Registry: reg})
	if err != nil {
		t.Fatal(err)
	}
	defer svc.Close()
	h, err := svc.Handler(reg)
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(h)
	defer srv.Close()
	began := time.Now()
	for i := range 3 {
		clock.Store(at.Add(time.Duration(i) * 10 * time.Minute).UnixNano())
		if err := svc.Cycle(context.Background()); err != nil {
			t.Fatalf("cycle %d: %v", i, err)
		}
	}
	t.Logf("three cycles (the first reads the window) in %s", time.Since(began))
	resp, err := http.Get(srv.URL + "/api/v1/report")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var got cost.Report
	if err := json.NewDecoder(resp.Body).Decode(&got); err != nil {
		t.Fatal(err)
	}
	if p := resp.Header.Get(serve.PartialHeader); p != "" {
		t.Errorf("incremental reads marked partial: %s", p)
	}
	w := got.Window
	if w.End != at.Add(20*time.Minute) {
		t.Fatalf("window %v, want it to end at the last cycle %v", w, at.Add(20*time.Minute))
	}
	want, stderr, code := report(t, "report", "--prometheus", url, "--window", w.End.Sub(w.Start).String(), "--end", w.End.Format(time.RFC3339), "-o", "json")
	if code != cli.ExitOK {
		t.Fatalf("one read of the window: exit %d: %s", code, stderr)
	}
	g, wt := got.Totals, want.Totals
	if g.Pods != wt.Pods || g.GPUPods != wt.GPUPods || g.Nodes != wt.Nodes {
		t.Errorf("pods %d/%d GPU pods %d/%d nodes %d/%d (incremental/one read)", g.Pods, wt.Pods, g.GPUPods, wt.GPUPods, g.Nodes, wt.Nodes)
	}
	for _, c := range []struct {
		name      string
		got, want float64
		tol       float64
	}{
		{"node cost", g.NodeCost, wt.NodeCost, 1e-9},
		{"allocated GPU-hours", g.GPUHours.Allocated, wt.GPUHours.Allocated, 1e-9},
		{"unmeasured GPU-hours", g.GPUHours.Unmeasured, wt.GPUHours.Unmeasured, 1e-9},
		{"active GPU-hours", g.GPUHours.Active, wt.GPUHours.Active, activityTolerance},
		{"idle GPU-hours", g.GPUHours.Idle, wt.GPUHours.Idle, activityTolerance},
		{"total cost", g.TotalCost, wt.TotalCost, activityTolerance},
	} {
		if !near(c.got, c.want, c.tol) {
			t.Errorf("%s: %.6f incremental, %.6f in one read (tolerance %g)", c.name, c.got, c.want, c.tol)
		}
	}
}
