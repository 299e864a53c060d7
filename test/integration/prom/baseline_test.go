//go:build integration

package prom_test

import (
	"encoding/json"
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"
)

// baselineFile holds the figures bench-prom last recorded (docs/prometheus.md
// says where and how they were measured). PROM_BENCH_RECORD=1 rewrites it
// from the run.
const baselineFile = "testdata/bench-baseline.json"

// baseline is one recorded run at one scale: what a later run must not
// fall behind by more than Tolerance (a fraction).
type baseline struct {
	Scale     int     `json:"scale"`
	Measured  string  `json:"measured"` // machine, load average, date
	Tolerance float64 `json:"tolerance"`
	// Speed-ups over per-container quantile_over_time, side by side in
	// one run: lower is slower.
	SpeedupReport float64 `json:"speedup_whole_report_remote"`
	SpeedupIngest float64 `json:"speedup_ingest_percentiles"`
	// The whole report by remote read: higher is dearer. CPU moves with
	// the machine's load less than walls do; allocation and reads not at
	// all.
	ReportCPU   float64 `json:"report_gpuwise_cpu_s"`
	ReportAlloc float64 `json:"report_heap_allocated_mib"`
	RemoteReads int     `json:"report_remote_reads"`
}

// benchRun is what this run measured of the same figures (0: not measured).
type benchRun = baseline

// checkBaseline compares the run with the recorded baseline at the run's
// scale and fails the test, with a loud FAIL line per figure, where it
// fell behind by more than the tolerance. With PROM_BENCH_RECORD=1 it
// writes the run as the new baseline instead.
func checkBaseline(t *testing.T, got benchRun) {
	t.Helper()
	got.Scale = benchScale()
	if os.Getenv("PROM_BENCH_RECORD") == "1" {
		got.Tolerance, got.Measured = 0.15, os.Getenv("PROM_BENCH_MEASURED")
		if got.Measured == "" {
			t.Fatal("PROM_BENCH_RECORD=1 needs PROM_BENCH_MEASURED (machine, load average, date) to say how the figures were measured")
		}
		b, err := json.MarshalIndent(got, "", "  ")
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(baselineFile, append(b, '\n'), 0o644); err != nil {
			t.Fatal(err)
		}
		t.Logf("recorded %s: %s", baselineFile, b)
		return
	}
	b, err := os.ReadFile(baselineFile)
	if err != nil {
		t.Fatalf("reading the recorded baseline: %v (record one with PROM_BENCH_RECORD=1)", err)
	}
	var want baseline
	if err := json.Unmarshal(b, &want); err != nil {
		t.Fatalf("%s: %v", baselineFile, err)
	}
	if want.Scale != got.Scale {
		t.Logf("no recorded baseline at scale %d (%s is scale %d): not compared", got.Scale, baselineFile, want.Scale)
		return
	}
	for _, f := range baselineFailures(want, got) {
		t.Log("FAIL: " + f)
		t.Error(f)
	}
}

// baselineFailures are the figures of got behind want by more than
// want's tolerance, each said with both values.
func baselineFailures(want, got baseline) []string {
	tol := want.Tolerance
	var out []string
	lower := func(what string, w, g float64) { // higher is better
		if w > 0 && g > 0 && g < w*(1-tol) {
			out = append(out, fmt.Sprintf("%s %.2f is below the recorded %.2f by more than %.0f%% (%s, measured %s): a change made ingest slower, or the machine's load hit one side harder; rerun before believing it", what, g, w, 100*tol, baselineFile, want.Measured))
		}
	}
	higher := func(what string, w, g float64) { // lower is better
		if w > 0 && g > w*(1+tol) {
			out = append(out, fmt.Sprintf("%s %.2f is above the recorded %.2f by more than %.0f%% (%s, measured %s): a change made ingest dearer", what, g, w, 100*tol, baselineFile, want.Measured))
		}
	}
	lower("speed-up of the whole report (remote read) over per-container quantile_over_time", want.SpeedupReport, got.SpeedupReport)
	lower("speed-up of ingest + percentiles over per-container quantile_over_time", want.SpeedupIngest, got.SpeedupIngest)
	higher("gpuwise CPU seconds of the whole report", want.ReportCPU, got.ReportCPU)
	higher("gpuwise heap allocated (MiB) by the whole report", want.ReportAlloc, got.ReportAlloc)
	if want.RemoteReads > 0 && got.RemoteReads > want.RemoteReads {
		out = append(out, fmt.Sprintf("the whole report made %d remote reads, more than the recorded %d (%s): a read another already answered?", got.RemoteReads, want.RemoteReads, baselineFile))
	}
	return out
}

// benchScale is the scale of the history under test (up.sh's PROM_SCALE).
func benchScale() int {
	if n, err := strconv.Atoi(os.Getenv("PROM_SCALE")); err == nil {
		return n
	}
	return 4
}

// The recorded baseline fails a run that falls behind it by more than its
// tolerance, figure by figure, and passes one within it.
func TestBaselineFailures(t *testing.T) {
	want := baseline{Scale: 21, Measured: "test", Tolerance: 0.15, SpeedupReport: 10, SpeedupIngest: 12, ReportCPU: 2, ReportAlloc: 400, RemoteReads: 200}
	if f := baselineFailures(want, baseline{SpeedupReport: 8.6, SpeedupIngest: 11, ReportCPU: 2.2, ReportAlloc: 450, RemoteReads: 200}); len(f) != 0 {
		t.Errorf("a run within 15%% fails: %q", f)
	}
	if f := baselineFailures(want, baseline{}); len(f) != 0 {
		t.Errorf("figures not measured (0) fail: %q", f)
	}
	got := baselineFailures(want, baseline{SpeedupReport: 8.4, SpeedupIngest: 10.1, ReportCPU: 2.31, ReportAlloc: 461, RemoteReads: 201})
	if len(got) != 5 {
		t.Fatalf("%d failures, want 5 (every figure behind): %q", len(got), got)
	}
	for i, w := range []string{"whole report", "ingest + percentiles", "CPU", "heap allocated", "201 remote reads"} {
		if !strings.Contains(got[i], w) {
			t.Errorf("failure %d %q does not name %q", i, got[i], w)
		}
	}
	b, err := os.ReadFile(baselineFile)
	if err != nil {
		t.Fatal(err)
	}
	var rec baseline
	if err := json.Unmarshal(b, &rec); err != nil || rec.Scale == 0 || rec.Tolerance <= 0 || rec.Measured == "" || rec.SpeedupReport <= 0 {
		t.Errorf("%s is not a complete baseline (%v): %s", baselineFile, err, b)
	}
}
