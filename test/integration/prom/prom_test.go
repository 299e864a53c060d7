//go:build integration

// Package prom_test checks `gpuwise report --prometheus` against a real
// Prometheus holding simulated history (hack/prometheus/up.sh) and the
// simulator's own snapshot of that history.
package prom_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/gpuwise/gpuwise/internal/cli"
	"github.com/gpuwise/gpuwise/internal/cost"
	"github.com/gpuwise/gpuwise/test/integration/backend"
)

// The window up.sh backfills: 14 days from 2026-11-01.
const (
	window = "14d"
	end    = "2026-11-15T00:00:00Z"
)

// activityTolerance is the relative error allowed on activity-derived
// numbers: Prometheus answers on a step grid, so each series' last sample
// counts a whole step where the simulator counted the part of the step the
// pod still lived.
const activityTolerance = 0.005

func state(t *testing.T) (url, truth string) {
	return backend.State(t, "PROM_STATE", "/tmp/gpuwise-prom", "integration-prom")
}

func report(t *testing.T, args ...string) (*cost.Report, string, int) {
	return backend.Report(t, args...)
}

// TestReportFromPrometheusMatchesGroundTruth checks every way of reading
// usage series (--prometheus-read): raw samples by remote read (streamed
// XOR chunks) and over the JSON API, query_range, and auto, the default,
// which reads this history raw (one sample a step) by remote read.
func TestReportFromPrometheusMatchesGroundTruth(t *testing.T) {
	for _, read := range []string{"auto", "remote", "raw", "range"} {
		t.Run(read, func(t *testing.T) { checkGroundTruth(t, read) })
	}
}

func checkGroundTruth(t *testing.T, read string) {
	url, truthFile := state(t)
	got, stderr, code := report(t, "report", "--prometheus", url, "--window", window, "--end", end, "-o", "json", "--by", "namespace",
		"--prometheus-read", read)
	if code != cli.ExitOK {
		t.Fatalf("report --prometheus: exit %d: %s", code, stderr)
	}
	want, stderr, code := report(t, "report", "--from", truthFile, "--window", window, "-o", "json", "--by", "namespace")
	if code != cli.ExitOK {
		t.Fatalf("report --from truth: exit %d: %s", code, stderr)
	}
	if err := got.Reconcile(); err != nil {
		t.Errorf("report from Prometheus does not reconcile: %v", err)
	}
	if got.ActivityMetric != "DCGM_FI_PROF_GR_ENGINE_ACTIVE" {
		t.Errorf("activity metric %q, want DCGM_FI_PROF_GR_ENGINE_ACTIVE", got.ActivityMetric)
	}
	g, w := got.Totals, want.Totals
	counts := []struct {
		name      string
		got, want int
	}{{"nodes", g.Nodes, w.Nodes}, {"gpus", g.GPUs, w.GPUs}, {"pods", g.Pods, w.Pods}, {"gpu pods", g.GPUPods, w.GPUPods}}
	for _, c := range counts {
		if c.got != c.want {
			t.Errorf("%s: %d, want %d", c.name, c.got, c.want)
		}
	}
	// Allocation comes from kube-state-metrics timestamps and requests:
	// exact (to float rounding).
	exact := []struct {
		name      string
		got, want float64
	}{
		{"node cost", g.NodeCost, w.NodeCost},
		{"provisioned GPU-hours", g.GPUHours.Provisioned, w.GPUHours.Provisioned},
		{"allocated GPU-hours", g.GPUHours.Allocated, w.GPUHours.Allocated},
		{"unallocated GPU-hours", g.GPUHours.Unallocated, w.GPUHours.Unallocated},
		{"unmeasured GPU-hours", g.GPUHours.Unmeasured, w.GPUHours.Unmeasured},
		{"unallocated GPU cost", g.GPUCost.Unallocated, w.GPUCost.Unallocated},
		{"unmeasured GPU cost", g.GPUCost.Unmeasured, w.GPUCost.Unmeasured},
		{"total cost", g.TotalCost, w.TotalCost},
	}
	for _, c := range exact {
		if !near(c.got, c.want, 1e-9) {
			t.Errorf("%s: %.6f, want %.6f (exact)", c.name, c.got, c.want)
		}
	}
	approx := []struct {
		name      string
		got, want float64
	}{
		{"active GPU-hours", g.GPUHours.Active, w.GPUHours.Active},
		{"idle GPU-hours", g.GPUHours.Idle, w.GPUHours.Idle},
		{"SM-active GPU-hours", g.GPUHours.SMActive, w.GPUHours.SMActive},
		{"active GPU cost", g.GPUCost.Active, w.GPUCost.Active},
		{"allocated-idle GPU cost", g.GPUCost.AllocatedIdle, w.GPUCost.AllocatedIdle},
		{"CPU cost", g.CPUCost, w.CPUCost},
		{"memory cost", g.MemoryCost, w.MemoryCost},
	}
	for _, c := range approx {
		if !near(c.got, c.want, activityTolerance) {
			t.Errorf("%s: %.3f, want %.3f ± %.1f%%", c.name, c.got, c.want, 100*activityTolerance)
		}
	}
	checkRows(t, got, want)
}

// checkRows compares each namespace: pods and allocation exactly,
// activity within tolerance.
func checkRows(t *testing.T, got, want *cost.Report) {
	t.Helper()
	rows := map[string]cost.Row{}
	for _, r := range got.Rows {
		rows[r.Key] = r
	}
	for _, w := range want.Rows {
		g, ok := rows[w.Key]
		switch {
		case !ok:
			t.Errorf("row %s missing from the Prometheus report", w.Key)
		case g.Pods != w.Pods:
			t.Errorf("row %s: %d pods, want %d", w.Key, g.Pods, w.Pods)
		case !near(g.GPUHours.Allocated, w.GPUHours.Allocated, 1e-9):
			t.Errorf("row %s: %.4f allocated GPU-hours, want %.4f", w.Key, g.GPUHours.Allocated, w.GPUHours.Allocated)
		case !near(g.GPUHours.Active, w.GPUHours.Active, 2*activityTolerance):
			t.Errorf("row %s: %.3f active GPU-hours, want %.3f ± %.1f%%", w.Key, g.GPUHours.Active, w.GPUHours.Active, 200*activityTolerance)
		}
	}
}

// A dead dcgm-exporter leaves GPU pods unmeasured: coverage below 100%,
// named in the notes, never counted as idle.
func TestCoverageShowsDeadExporter(t *testing.T) {
	url, _ := state(t)
	got, stderr, code := report(t, "report", "--prometheus", url, "--window", window, "--end", end, "-o", "json")
	if code != cli.ExitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if s := got.Totals.MeasuredShare; s == nil || *s >= 1 || *s < 0.5 {
		t.Errorf("measured share %v, want below 100%% (serve-l4-1's exporter is down)", s)
	}
	var covered, silent bool
	for _, n := range got.Notes {
		covered = covered || strings.Contains(n.Text, "DCGM data (DCGM_FI_PROF_GR_ENGINE_ACTIVE) covers")
		silent = silent || strings.Contains(n.Text, "no DCGM series from") && strings.Contains(n.Text, "serve-l4-1")
	}
	if !covered || !silent {
		t.Errorf("notes lack coverage (%v) or the silent exporter (%v): %+v", covered, silent, got.Notes)
	}
}

func TestUnreachablePrometheus(t *testing.T) {
	_, stderr, code := report(t, "report", "--prometheus", "http://127.0.0.1:1", "--window", window, "--end", end,
		"--prometheus-retries", "0", "-o", "json")
	if code != cli.ExitUnreachable || !strings.Contains(stderr, "http://127.0.0.1:1") || !strings.Contains(stderr, "kube_node_info") {
		t.Errorf("exit %d, stderr %q; want exit %d naming the URL and the query", code, stderr, cli.ExitUnreachable)
	}
}

func near(got, want, rel float64) bool {
	return math.Abs(got-want) <= rel*math.Max(math.Abs(want), 1e-9)
}

// TestRemoteReadMatchesRaw: remote read reads the same raw samples as the
// JSON raw read, but each series over the whole window into one
// accumulator (raw: a day per request, merged), and the facts as raw
// samples mapped onto the query_range grid. Every string and count of the
// per-pod report must be equal and every number equal to 1e-9 relative:
// the sums are only taken in another order.
func TestRemoteReadMatchesRaw(t *testing.T) {
	url, _ := state(t)
	reports := map[string]any{}
	for _, read := range []string{"raw", "remote"} {
		var out, errb bytes.Buffer
		args := []string{"report", "--prometheus", url, "--window", window, "--end", end, "-o", "json", "--by", "pod", "--prometheus-read", read}
		if code := cli.Execute(args, cli.Streams{Out: &out, Err: &errb}); code != cli.ExitOK {
			t.Fatalf("report --prometheus-read %s: exit %d: %s", read, code, errb.String())
		}
		var v any
		if err := json.Unmarshal(out.Bytes(), &v); err != nil {
			t.Fatal(err)
		}
		reports[read] = v
	}
	var diffs []string
	sameJSON(reports["raw"], reports["remote"], "$", &diffs)
	for i, d := range diffs {
		if i == 20 {
			t.Errorf("… and %d more", len(diffs)-20)
			break
		}
		t.Error(d)
	}
}

// sameJSON lists where got differs from want beyond 1e-9 relative.
func sameJSON(want, got any, path string, diffs *[]string) {
	switch w := want.(type) {
	case map[string]any:
		g, ok := got.(map[string]any)
		if !ok || len(g) != len(w) {
			*diffs = append(*diffs, fmt.Sprintf("%s: %v, want %v", path, got, want))
			return
		}
		for k, wv := range w {
			sameJSON(wv, g[k], path+"."+k, diffs)
		}
	case []any:
		g, ok := got.([]any)
		if !ok || len(g) != len(w) {
			*diffs = append(*diffs, fmt.Sprintf("%s: %d elements, want %d", path, len(g), len(w)))
			return
		}
		if wk, gk := byKey(w), byKey(g); wk != nil && gk != nil {
			// Rows are ordered by money: near-ties may swap.
			sameJSON(wk, gk, path, diffs)
			return
		}
		for i := range w {
			sameJSON(w[i], g[i], fmt.Sprintf("%s[%d]", path, i), diffs)
		}
	case float64:
		if g, ok := got.(float64); !ok || !(g == w || near(g, w, 1e-9)) {
			*diffs = append(*diffs, fmt.Sprintf("%s: %v, want %v", path, got, want))
		}
	default:
		if got != want {
			*diffs = append(*diffs, fmt.Sprintf("%s: %v, want %v", path, got, want))
		}
	}
}

// byKey maps rows (objects with a "key") by their key; nil for anything
// else.
func byKey(rows []any) map[string]any {
	out := map[string]any{}
	for _, r := range rows {
		m, ok := r.(map[string]any)
		k, isString := m["key"].(string)
		if _, dup := out[k]; !ok || !isString || dup {
			return nil
		}
		out[k] = r
	}
	return out
}
