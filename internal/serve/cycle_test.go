package serve_test

import (
	"context"
	"encoding/json"
	"errors"
	"math"
	"net/http"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gpuwise/gpuwise/internal/app"
	"github.com/gpuwise/gpuwise/internal/cluster"
	"github.com/gpuwise/gpuwise/internal/cost"
	"github.com/gpuwise/gpuwise/internal/pricing"
	"github.com/gpuwise/gpuwise/internal/rolling"
	"github.com/gpuwise/gpuwise/internal/serve"
	"github.com/gpuwise/gpuwise/internal/sim"
)

// world is the simulated week cut into 5-minute spans: a fake Prometheus
// that answers any interval of whole spans, and the ground truth.
type world struct {
	snap  *cluster.Snapshot
	spans []*rolling.Span
}

var (
	worldOnce sync.Once
	theWorld  *world
)

func simWorld(t *testing.T) *world {
	t.Helper()
	worldOnce.Do(func() {
		snap, spans, err := sim.Spans(sim.DefaultConfig(), 5*time.Minute)
		if err != nil {
			panic(err)
		}
		theWorld = &world{snap: snap, spans: spans}
	})
	return theWorld
}

// usage merges the spans inside w.
func (wd *world) usage(w cluster.Window) *rolling.Span {
	var in []*rolling.Span
	for _, s := range wd.spans {
		if !s.Window.Start.Before(w.Start) && !s.Window.End.After(w.End) {
			in = append(in, s)
		}
	}
	u := rolling.Merge(in...)
	u.Window = w
	return u
}

// truth is the cost report of w computed at once.
func (wd *world) truth(t *testing.T, w cluster.Window) *cost.Report {
	t.Helper()
	prep, err := cluster.Prepare(rolling.Attach(wd.snap, w, wd.usage(w)))
	if err != nil {
		t.Fatal(err)
	}
	a, err := cost.Allocate(prep, pricing.Embedded(), cost.DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	r, err := cost.NewReport(a, cost.DefaultReportOptions())
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// fakeProm answers interval reads from the world, remembering each read;
// fail makes reads fail, partial makes them partial.
type fakeProm struct {
	wd      *world
	mu      sync.Mutex
	reads   []cluster.Window
	fail    atomic.Bool
	partial atomic.Bool
}

func (f *fakeProm) ReadUsage(_ context.Context, w cluster.Window) (*app.SnapshotResult, error) {
	f.mu.Lock()
	f.reads = append(f.reads, w)
	f.mu.Unlock()
	if f.fail.Load() {
		return nil, &app.Error{Kind: app.Unreachable, Err: errors.New("prometheus at http://prom:9090: connection refused")}
	}
	prep, err := app.Prepare(rolling.Attach(f.wd.snap, w, f.wd.usage(w)))
	if err != nil {
		return nil, err
	}
	res := &app.SnapshotResult{Snapshot: prep}
	if f.partial.Load() {
		res.Partial = errors.New("1 of 9 prometheus queries failed")
	}
	return res, nil
}

func (f *fakeProm) takeReads() []cluster.Window {
	f.mu.Lock()
	defer f.mu.Unlock()
	r := f.reads
	f.reads = nil
	return r
}

// staticInv is the world's inventory (its pods' lives and units).
type staticInv struct{ s *cluster.Snapshot }

func (i staticInv) Inventory(context.Context, time.Time, time.Duration) (*cluster.Snapshot, error) {
	return i.s, nil
}
func (staticInv) Health() error { return nil }

type clock struct{ t atomic.Int64 }

func (c *clock) now() time.Time  { return time.Unix(0, c.t.Load()).UTC() }
func (c *clock) set(t time.Time) { c.t.Store(t.UnixNano()) }

var week = sim.DefaultConfig().Start

func liveOptions(history string) serve.Options {
	o := serve.DefaultOptions()
	o.Listen, o.Lag, o.HistoryPath = "127.0.0.1:0", 0, history
	return o
}

func startLive(t *testing.T, opts serve.Options, clk *clock, inv serve.Inventory, prom *fakeProm) *instance {
	t.Helper()
	in := startWith(t, opts, clk.now, inv, prom)
	return in
}

func reportTotals(t *testing.T, in *instance) (cost.Report, http.Header) {
	t.Helper()
	code, hdr, body := in.get(t, "/api/v1/report")
	if code != http.StatusOK {
		t.Fatalf("report: %d %s", code, body)
	}
	var r cost.Report
	if err := json.Unmarshal(body, &r); err != nil {
		t.Fatal(err)
	}
	return r, hdr
}

func close(a, b float64) bool { return math.Abs(a-b) <= 1e-9*math.Max(1, math.Abs(b)) }

// The first cycle reads the window once, interval by interval; each later
// cycle reads only the new interval; the rolling window's report equals
// the window read at once.
func TestCyclesReadOnlyTheNewInterval(t *testing.T) {
	t.Parallel()
	wd := simWorld(t)
	clk := &clock{}
	clk.set(week.Add(30 * time.Hour))
	prom := &fakeProm{wd: wd}
	in := startLive(t, liveOptions(""), clk, staticInv{wd.snap}, prom)
	if code, _, _ := in.get(t, "/readyz"); code != http.StatusServiceUnavailable {
		t.Errorf("readyz before the first cycle: %d, want 503", code)
	}
	if err := in.svc.Cycle(context.Background()); err != nil {
		t.Fatal(err)
	}
	first := prom.takeReads()
	checkContiguous(t, first, week.Add(6*time.Hour), week.Add(30*time.Hour))
	if len(first) != 24 {
		t.Errorf("backfill read %d intervals, want 24 (one per hour)", len(first))
	}
	for i := 1; i <= 3; i++ {
		clk.set(week.Add(30*time.Hour + time.Duration(i)*10*time.Minute))
		if err := in.svc.Cycle(context.Background()); err != nil {
			t.Fatal(err)
		}
		reads := prom.takeReads()
		if len(reads) != 1 || reads[0].End.Sub(reads[0].Start) != 10*time.Minute {
			t.Fatalf("cycle %d read %v, want one 10-minute interval", i, reads)
		}
	}
	got, hdr := reportTotals(t, in)
	w := cluster.Window{Start: week.Add(6 * time.Hour), End: week.Add(30*time.Hour + 30*time.Minute)}
	want := wd.truth(t, w)
	if !got.Window.Start.Equal(w.Start) || !got.Window.End.Equal(w.End) {
		t.Errorf("window %v, want %v", got.Window, w)
	}
	checkTotals(t, got.Totals, want.Totals)
	if hdr.Get(serve.PartialHeader) != "" {
		t.Errorf("complete reads marked partial: %s", hdr.Get(serve.PartialHeader))
	}
}

func checkContiguous(t *testing.T, ws []cluster.Window, from, to time.Time) {
	t.Helper()
	at := from
	for _, w := range ws {
		if !w.Start.Equal(at) || !w.End.After(w.Start) {
			t.Fatalf("reads %v are not contiguous from %v", ws, from)
		}
		at = w.End
	}
	if !at.Equal(to) {
		t.Fatalf("reads end at %v, want %v", at, to)
	}
}

func checkTotals(t *testing.T, got, want cost.Totals) {
	t.Helper()
	for _, c := range []struct {
		name      string
		got, want float64
	}{
		{"allocated", got.GPUHours.Allocated, want.GPUHours.Allocated},
		{"active", got.GPUHours.Active, want.GPUHours.Active},
		{"idle", got.GPUHours.Idle, want.GPUHours.Idle},
		{"unmeasured", got.GPUHours.Unmeasured, want.GPUHours.Unmeasured},
		{"total $", got.TotalCost, want.TotalCost},
		{"idle $", got.GPUCost.AllocatedIdle, want.GPUCost.AllocatedIdle},
	} {
		if !close(c.got, c.want) {
			t.Errorf("%s: %.9f, the window read at once %.9f", c.name, c.got, c.want)
		}
	}
}

// When Prometheus fails, the last good result stays (same numbers, never
// zeros), marked stale; the failed interval is read again once it is back.
func TestOutageKeepsTheLastGoodResult(t *testing.T) {
	t.Parallel()
	wd := simWorld(t)
	clk := &clock{}
	clk.set(week.Add(48 * time.Hour))
	prom := &fakeProm{wd: wd}
	in := startLive(t, liveOptions(""), clk, staticInv{wd.snap}, prom)
	if err := in.svc.Cycle(context.Background()); err != nil {
		t.Fatal(err)
	}
	before, _ := reportTotals(t, in)
	prom.takeReads()
	prom.fail.Store(true)
	clk.set(week.Add(48*time.Hour + 10*time.Minute))
	if err := in.svc.Cycle(context.Background()); err == nil {
		t.Fatal("a cycle with Prometheus down succeeded")
	}
	during, hdr := reportTotals(t, in)
	if during.Totals.TotalCost != before.Totals.TotalCost || during.Totals.GPUHours.Active != before.Totals.GPUHours.Active || before.Totals.TotalCost == 0 {
		t.Errorf("during the outage: $%.2f, %.2f active; before: $%.2f, %.2f", during.Totals.TotalCost, during.Totals.GPUHours.Active,
			before.Totals.TotalCost, before.Totals.GPUHours.Active)
	}
	if p := hdr.Get(serve.PartialHeader); !strings.Contains(p, "connection refused") {
		t.Errorf("%s = %q, want the reason", serve.PartialHeader, p)
	}
	if code, _, _ := in.get(t, "/readyz"); code != http.StatusOK {
		t.Errorf("readyz during an outage: %d, want 200 (the last good result is served)", code)
	}
	prom.fail.Store(false)
	prom.takeReads()
	clk.set(week.Add(48*time.Hour + 20*time.Minute))
	if err := in.svc.Cycle(context.Background()); err != nil {
		t.Fatal(err)
	}
	checkContiguous(t, prom.takeReads(), week.Add(48*time.Hour), week.Add(48*time.Hour+20*time.Minute))
	after, hdr := reportTotals(t, in)
	if hdr.Get(serve.PartialHeader) != "" || !after.Window.End.Equal(week.Add(48*time.Hour+20*time.Minute)) {
		t.Errorf("after recovery: partial %q, window %v", hdr.Get(serve.PartialHeader), after.Window)
	}
	metrics := string(mustGet(t, in, "/metrics"))
	for _, want := range []string{`gpuwise_cycles_total{cluster="default",result="failure"} 1`, `gpuwise_cycles_total{cluster="default",result="success"} 2`} {
		if !strings.Contains(metrics, want) {
			t.Errorf("metrics lack %s", want)
		}
	}
}

func mustGet(t *testing.T, in *instance, path string) []byte {
	t.Helper()
	code, _, body := in.get(t, path)
	if code != http.StatusOK {
		t.Fatalf("%s: %d %s", path, code, body)
	}
	return body
}

// A partial read still publishes, marked partial.
func TestPartialReadIsMarked(t *testing.T) {
	t.Parallel()
	wd := simWorld(t)
	clk := &clock{}
	clk.set(week.Add(24 * time.Hour))
	prom := &fakeProm{wd: wd}
	prom.partial.Store(true)
	in := startLive(t, liveOptions(""), clk, staticInv{wd.snap}, prom)
	if err := in.svc.Cycle(context.Background()); err != nil {
		t.Fatal(err)
	}
	_, hdr := reportTotals(t, in)
	if !strings.Contains(hdr.Get(serve.PartialHeader), "queries failed") {
		t.Errorf("partial header %q", hdr.Get(serve.PartialHeader))
	}
	if !strings.Contains(string(mustGet(t, in, "/metrics")), `gpuwise_window_partial{cluster="default"} 1`) {
		t.Error("gpuwise_window_partial is not 1")
	}
}

// A restarted service goes on from its history: no interval recorded
// twice, only the new interval recorded; its counters start again from
// zero (a reset increase() handles) and count the new interval only.
func TestRestartGoesOnFromTheHistory(t *testing.T) {
	t.Parallel()
	wd := simWorld(t)
	path := filepath.Join(t.TempDir(), "history.db")
	clk := &clock{}
	clk.set(week.Add(30 * time.Hour))
	a := startWith(t, liveOptions(path), clk.now, staticInv{wd.snap}, &fakeProm{wd: wd})
	if err := a.svc.Cycle(context.Background()); err != nil {
		t.Fatal(err)
	}
	counter := func(in *instance) string {
		for _, l := range strings.Split(string(mustGet(t, in, "/metrics")), "\n") {
			if strings.HasPrefix(l, `gpuwise_workload_gpu_allocated_seconds_total{cluster="default",namespace="ml-training"`) {
				return l
			}
		}
		return ""
	}
	before := counter(a)
	a.srv.Close()
	a.svc.Close()
	prom := &fakeProm{wd: wd}
	b := startWith(t, liveOptions(path), clk.now, staticInv{wd.snap}, prom)
	if before == "" || counter(b) != "" {
		t.Errorf("counter before the restart %q, after it before a cycle %q (want none)", before, counter(b))
	}
	clk.set(week.Add(30*time.Hour + 10*time.Minute))
	if err := b.svc.Cycle(context.Background()); err != nil {
		t.Fatal(err)
	}
	if reads := prom.takeReads(); len(reads) != 25 {
		t.Errorf("%d reads after the restart, want 24 to refill the window and 1 new", len(reads))
	}
	var cov struct{ Coverage struct{ Cycles int } }
	json.Unmarshal(mustGet(t, b, "/api/v1/history?kind=namespace&from=2026-11-01T00:00:00Z&to=2026-11-03T00:00:00Z"), &cov)
	if cov.Coverage.Cycles != 25 {
		t.Errorf("%d cycles recorded, want 24 before the restart and 1 after", cov.Coverage.Cycles)
	}
}

// With --inventory prometheus the inventory comes from the intervals
// themselves, and the window's report is the window read at once.
func TestInventoryFromPrometheus(t *testing.T) {
	t.Parallel()
	wd := simWorld(t)
	clk := &clock{}
	clk.set(week.Add(60 * time.Hour))
	opts := liveOptions("")
	src := app.DefaultPromSource()
	src.Client.URL = "http://replaced-by-the-fake"
	opts.Inventory, opts.Prometheus = serve.InventoryPrometheus, &src
	in := startWith(t, opts, clk.now, nil, &fakeProm{wd: wd})
	if err := in.svc.Cycle(context.Background()); err != nil {
		t.Fatal(err)
	}
	got, _ := reportTotals(t, in)
	checkTotals(t, got.Totals, wd.truth(t, got.Window).Totals)
}
