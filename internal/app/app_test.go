package app

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gpuwise/gpuwise/internal/cluster"
	"github.com/gpuwise/gpuwise/internal/packing"
	"github.com/gpuwise/gpuwise/internal/snapshot"
)

var clock = time.Date(2026, 11, 15, 12, 0, 0, 0, time.UTC)

func testApp() *App { return New(func() time.Time { return clock }) }

func demoReport() ReportRequest {
	req := DefaultReportRequest()
	req.Source = Source{Demo: DefaultDemo()}
	return req
}

func TestValidateListsEveryProblemAsOneUsageError(t *testing.T) {
	t.Parallel()
	req := demoReport()
	req.Source.File = "snap.json.gz"
	req.Source.Demo.Scale = 0
	req.Cost.IdleShare = "all"
	req.Report.By = "team"
	err := req.Validate()
	if KindOf(err) != Usage {
		t.Fatalf("kind %v (%v), want Usage", KindOf(err), err)
	}
	for _, want := range []string{"one source at a time", "scale: 0 is outside 1..1000", `idle share: "all"`, `by: "team"`} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("%q lacks %q", err, want)
		}
	}
	if _, err := testApp().Report(context.Background(), req); KindOf(err) != Usage {
		t.Errorf("Report ran an invalid request: %v", err)
	}
}

// The demo report reconciles and carries the savings ledger; the audit,
// plan, advise and generate use cases run on the same source.
func TestUseCasesOnTheDemo(t *testing.T) {
	t.Parallel()
	a, ctx := testApp(), context.Background()
	rep, err := a.Report(ctx, demoReport())
	if err != nil {
		t.Fatal(err)
	}
	if err := rep.Report.Reconcile(); err != nil || rep.Ledger == nil || rep.Partial != nil {
		t.Errorf("reconcile %v, ledger %v, partial %v", err, rep.Ledger != nil, rep.Partial)
	}
	ad := DefaultAdviseRequest()
	ad.Source = Source{Demo: DefaultDemo()}
	adv, err := a.Advise(ctx, ad)
	if err != nil || adv.Ledger.Saving() != rep.Ledger.Saving() || adv.Ledger.Saving() <= 0 {
		t.Fatalf("advise: %v; saves %v, the report's ledger %v", err, adv.Ledger.SavingUSDMonth, rep.Ledger.SavingUSDMonth)
	}
	au := DefaultAuditRequest()
	au.Source = Source{Demo: DefaultDemo()}
	ar, err := a.Audit(ctx, au)
	if err != nil || len(ar.Result.Findings) == 0 {
		t.Fatalf("audit: %v, %d findings", err, len(ar.Result.Findings))
	}
	pr := DefaultPlanRequest()
	pr.Source = Source{Demo: DefaultDemo()}
	plan, err := a.Plan(ctx, pr)
	if err != nil || plan.Recommendations == nil || plan.Plan.After.Nodes >= plan.Plan.Before.Nodes {
		t.Fatalf("plan: %v", err)
	}
	pr.Shapes = packing.CurrentShapes
	if cur, err := a.Plan(ctx, pr); err != nil || cur.Recommendations != nil {
		t.Errorf("plan with current shapes: %v, recommendations %v", err, cur)
	}
	gen, err := a.GenerateMIG(ctx, planFor(Source{Demo: DefaultDemo()}))
	if err != nil || len(gen.Files) == 0 {
		t.Errorf("generate mig: %v, %d files", err, len(gen.Files))
	}
}

func planFor(s Source) PlanRequest {
	r := DefaultPlanRequest()
	r.Source = s
	return r
}

func TestErrorKinds(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	bad := filepath.Join(dir, "dup.json.gz")
	dup := &cluster.Snapshot{Window: cluster.Window{Start: start, End: start.Add(time.Hour)}, Nodes: []cluster.Node{{Name: "a"}, {Name: "a"}}}
	if err := snapshot.WriteFile(bad, dup); err != nil {
		t.Fatal(err)
	}
	prices := filepath.Join(dir, "prices.yaml")
	os.WriteFile(prices, []byte("prices:\n  - match: {instanceType: x}\n    nodeUSDPerHour: -3\n"), 0o644)
	fromFile := func(path string, window time.Duration) ReportRequest {
		r := DefaultReportRequest()
		r.Source, r.Window = Source{File: path}, window
		return r
	}
	withPrices := demoReport()
	withPrices.Prices = MustLoadPrices(prices, nil)
	unwritable := demoReport()
	unwritable.SaveSnapshot = filepath.Join(dir, "missing-dir", "snap.json.gz")
	tests := []struct {
		name string
		req  ReportRequest
		want Kind
	}{
		{"missing snapshot", fromFile(filepath.Join(dir, "nope"), 0), Input},
		{"inconsistent snapshot", fromFile(bad, 0), Input},
		{"window the file lacks", fromFile(bad, 48*time.Hour), Usage},
		{"bad price file", withPrices, Input},
		{"snapshot that cannot be saved", unwritable, Output},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := testApp().Report(context.Background(), tt.req)
			if KindOf(err) != tt.want {
				t.Errorf("kind %v (%v), want %v", KindOf(err), err, tt.want)
			}
		})
	}
}

func TestCancelledContextStopsBeforeReading(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := testApp().Report(ctx, demoReport()); !errors.Is(err, context.Canceled) {
		t.Errorf("err = %v, want context.Canceled", err)
	}
}

// Prometheus' window ends at the injected clock, rounded down to the step,
// or at End.
func TestPromWindowUsesTheClock(t *testing.T) {
	t.Parallel()
	s := DefaultPromSource()
	w := s.window(7*24*time.Hour, clock.Add(3*time.Minute))
	if !w.End.Equal(clock) || !w.Start.Equal(clock.Add(-7*24*time.Hour)) {
		t.Errorf("window %v, want 7d ending %v", w, clock)
	}
	s.End = clock.Add(-time.Hour)
	if w := s.window(time.Hour, clock); !w.End.Equal(s.End) {
		t.Errorf("window %v, want it to end at --end %v", w, s.End)
	}
}

func TestParseAndFormatWindow(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]time.Duration{"7d": 7 * 24 * time.Hour, "36h": 36 * time.Hour, "1.5d": 36 * time.Hour, "90m": 90 * time.Minute} {
		got, err := ParseWindow(in)
		if err != nil || got != want {
			t.Errorf("ParseWindow(%q) = %v, %v; want %v", in, got, err, want)
		}
	}
	for _, in := range []string{"soon", "-1d", "0h", "", "NaNd", "Infd", "1e300d", "300000d", "1e-30d", "1ns", "59m", "367d"} {
		if _, err := ParseWindow(in); KindOf(err) != Usage {
			t.Errorf("ParseWindow(%q) = %v, want a usage error", in, err)
		}
	}
	for d, want := range map[time.Duration]string{24 * time.Hour: "1d", 36 * time.Hour: "36h", 90 * time.Minute: "1h30m0s"} {
		if got := FormatWindow(d); got != want {
			t.Errorf("FormatWindow(%v) = %q, want %q", d, got, want)
		}
	}
}

func TestAuditRequestValidatesGlobs(t *testing.T) {
	t.Parallel()
	req := DefaultAuditRequest()
	req.Source = Source{Demo: DefaultDemo()}
	req.Audit.DevNamespaces = []string{"dev-["}
	if err := req.Validate(); KindOf(err) != Usage || !strings.Contains(err.Error(), `"dev-[" is not a valid glob`) {
		t.Errorf("Validate() = %v", err)
	}
}

// Only the live cluster is asked for its admission policies: a snapshot
// a front end holds (the service's window) or several clusters' files are
// not live, and reading policies there reached for a kubeconfig.
func TestOnlyTheLiveClusterIsLive(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		src  Source
		want bool
	}{
		{"kube", Source{}, true},
		{"file", Source{File: "snap.gwsnap"}, false},
		{"clusters", Source{Clusters: []ClusterFile{{Name: "a", Path: "a.gwsnap"}}}, false},
		{"prometheus", Source{Prometheus: &PromSource{}}, false},
		{"demo", Source{Demo: &DemoSource{}}, false},
		{"in memory", Source{Snapshot: &InMemory{}}, false},
	}
	for _, tt := range tests {
		if got := live(tt.src); got != tt.want {
			t.Errorf("%s: live = %v, want %v", tt.name, got, tt.want)
		}
	}
}

// The service's interval reads are minutes long: Snapshot takes them,
// where a report's window starts at an hour (regression: after the report
// minimum every 10-minute cycle was refused).
func TestSnapshotTakesShortIntervals(t *testing.T) {
	t.Parallel()
	for d, ok := range map[time.Duration]bool{0: true, time.Minute: true, 10 * time.Minute: true, time.Hour: true,
		30 * time.Second: false, MaxWindow + time.Hour: false} {
		if err := validateInterval(d); (err == nil) != ok {
			t.Errorf("validateInterval(%s) = %v, want ok %v", d, err, ok)
		}
	}
	if validateWindow(10*time.Minute, true) == nil {
		t.Error("a report's window of 10m is accepted; the interval rule must stay Snapshot's own")
	}
}
