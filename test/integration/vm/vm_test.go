//go:build integration

// Package vm_test checks gpuwise's Prometheus reads against a second real
// backend: VictoriaMetrics single-node (built from its Go module by
// hack/tools/build.sh), loaded through its import API with the same
// simulated history the Prometheus tier backfills (hack/victoriametrics/
// up.sh), against the simulator's own ground truth.
package vm_test

import (
	"fmt"
	"math"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"strings"
	"sync"
	"testing"

	"github.com/gpuwise/gpuwise/internal/cli"
	"github.com/gpuwise/gpuwise/internal/cost"
	"github.com/gpuwise/gpuwise/test/integration/backend"
)

// The window up.sh loads: VM_DAYS (3) from 2026-11-01.
const (
	window = "3d"
	end    = "2026-11-04T00:00:00Z"
	// activityTolerance as in the Prometheus tier: each series' last
	// sample counts up to a step where the simulator counted the part of
	// the step the pod still lived.
	activityTolerance = 0.005
)

func state(t *testing.T) (url, truth string) {
	return backend.State(t, "VM_STATE", "/tmp/gpuwise-vm", "integration-vm")
}

func report(t *testing.T, args ...string) (*cost.Report, string, int) {
	return backend.Report(t, args...)
}

// recorder is a reverse proxy in front of VictoriaMetrics that counts the
// requests by method and path.
type recorder struct {
	mu     sync.Mutex
	counts map[string]int
	srv    *httptest.Server
}

func record(t *testing.T, target string) *recorder {
	t.Helper()
	u, err := url.Parse(target)
	if err != nil {
		t.Fatal(err)
	}
	r := &recorder{counts: map[string]int{}}
	proxy := httputil.NewSingleHostReverseProxy(u)
	r.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		r.mu.Lock()
		r.counts[req.Method+" "+req.URL.Path]++
		r.mu.Unlock()
		proxy.ServeHTTP(w, req)
	}))
	t.Cleanup(r.srv.Close)
	return r
}

func (r *recorder) count(key string) int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.counts[key]
}

// auto finds that VictoriaMetrics answers no remote read (one probe, 400)
// and reads raw samples instead; the report matches the ground truth:
// allocation exactly, activity within the step tolerance.
func TestVictoriaMetricsMatchesGroundTruth(t *testing.T) {
	vm, truth := state(t)
	rec := record(t, vm)
	got, stderr, code := report(t, "report", "--prometheus", rec.srv.URL, "--window", window, "--end", end, "-o", "json", "--prometheus-read", "auto")
	if code != cli.ExitOK {
		t.Fatalf("report --prometheus (VictoriaMetrics): exit %d: %s", code, stderr)
	}
	if n := rec.count("POST /api/v1/read"); n != 1 {
		t.Errorf("%d remote-read requests, want exactly one probe: %v", n, rec.counts)
	}
	if rec.count("POST /api/v1/query") == 0 {
		t.Errorf("no raw-sample reads (instant queries of range vectors): %v", rec.counts)
	}
	want, stderr, code := report(t, "report", "--from", truth, "--window", window, "-o", "json")
	if code != cli.ExitOK {
		t.Fatalf("report --from truth: exit %d: %s", code, stderr)
	}
	if err := got.Reconcile(); err != nil {
		t.Errorf("report does not reconcile: %v", err)
	}
	g, w := got.Totals, want.Totals
	for _, c := range []struct {
		name      string
		got, want float64
		tol       float64
	}{
		{"pods", float64(g.Pods), float64(w.Pods), 0},
		{"GPUs", float64(g.GPUs), float64(w.GPUs), 0},
		{"node cost", g.NodeCost, w.NodeCost, 1e-9},
		{"allocated GPU-hours", g.GPUHours.Allocated, w.GPUHours.Allocated, 1e-9},
		{"unmeasured GPU-hours", g.GPUHours.Unmeasured, w.GPUHours.Unmeasured, 1e-9},
		{"total cost", g.TotalCost, w.TotalCost, 1e-9},
		{"active GPU-hours", g.GPUHours.Active, w.GPUHours.Active, activityTolerance},
		{"idle GPU-hours", g.GPUHours.Idle, w.GPUHours.Idle, activityTolerance},
		{"allocated-idle GPU cost", g.GPUCost.AllocatedIdle, w.GPUCost.AllocatedIdle, activityTolerance},
		{"CPU cost", g.CPUCost, w.CPUCost, activityTolerance},
	} {
		if math.Abs(c.got-c.want) > c.tol*math.Max(1, math.Abs(c.want)) {
			t.Errorf("%s: %.6f from VictoriaMetrics, %.6f true (tolerance %g)", c.name, c.got, c.want, c.tol)
		}
	}
	rows := map[string]cost.Row{}
	for _, r := range got.Rows {
		rows[r.Key] = r
	}
	for _, w := range want.Rows {
		if g, ok := rows[w.Key]; !ok || g.Pods != w.Pods || math.Abs(g.GPUHours.Allocated-w.GPUHours.Allocated) > 1e-6 {
			t.Errorf("namespace %s: %+v from VictoriaMetrics, %d pods %.3f GPU-h true", w.Key, fmt.Sprint(g.Pods, " ", g.GPUHours.Allocated), w.Pods, w.GPUHours.Allocated)
		}
	}
}

// Asked for remote read, gpuwise says VictoriaMetrics does not serve it.
func TestRemoteReadIsRefusedClearly(t *testing.T) {
	vm, _ := state(t)
	_, stderr, code := report(t, "report", "--prometheus", vm, "--window", window, "--end", end, "-o", "json", "--prometheus-read", "remote")
	if code == cli.ExitOK || !strings.Contains(stderr, "/api/v1/read") {
		t.Errorf("--prometheus-read remote on VictoriaMetrics: exit %d: %s", code, stderr)
	}
}
