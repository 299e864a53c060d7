package serve_test

import (
	"context"
	"math"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/gpuwise/gpuwise/internal/app"
	"github.com/gpuwise/gpuwise/internal/ledger"
	"github.com/gpuwise/gpuwise/internal/prom/promtest"
	"github.com/gpuwise/gpuwise/internal/serve"
)

// nearly compares floats to float32 rounding (the rolling window adds
// the intervals' sums in another order than one read), NaN equal to NaN.
var nearly = cmp.Options{
	cmp.Comparer(func(a, b float32) bool { return closeTo(float64(a), float64(b), 2e-6) }),
	cmp.Comparer(func(a, b float64) bool { return closeTo(a, b, 1e-6) }),
}

// roughly allows the dollars 0.1%.
var roughly = cmp.Options{
	cmp.Comparer(func(a, b float32) bool { return closeTo(float64(a), float64(b), 2e-6) }),
	cmp.Comparer(func(a, b float64) bool { return closeTo(a, b, 1e-3) }),
}

func closeTo(a, b, rel float64) bool {
	if a != a || b != b {
		return a != a && b != b
	}
	return math.Abs(a-b) <= rel*math.Max(1, math.Max(math.Abs(a), math.Abs(b)))
}

// Against a live Prometheus, the service's rolling window has the hourly
// series one read of the window has (it merges the intervals' raw hourly
// sums), so its report has the idle causes and the series-based levers
// that `gpuwise report --prometheus` over the same window has.
func TestLiveWindowHasTheHourlySeriesOfOneRead(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	srv := promtest.New(t, promtest.Cluster())
	clk := &clock{}
	clk.set(promtest.Window.Start.Add(30 * time.Hour))
	opts := liveOptions("")
	opts.Interval = 20 * time.Minute
	src := app.DefaultPromSource()
	src.Client.URL = srv.URL
	opts.Inventory, opts.Prometheus = serve.InventoryPrometheus, &src
	in := startWith(t, opts, clk.now, nil, nil)
	if err := in.svc.Cycle(ctx); err != nil {
		t.Fatal(err)
	}
	st := in.svc.State()
	w := st.Window
	once := src
	once.End = w.End
	a := app.New(clk.now)
	read, err := a.Snapshot(ctx, app.Data{Source: app.Source{Prometheus: &once}, Window: w.End.Sub(w.Start)})
	if err != nil {
		t.Fatal(err)
	}
	want := read.Snapshot.Hourly()
	if want == nil || len(want.Workloads) == 0 {
		t.Fatal("one read of the window has no hourly series: the test compares nothing")
	}
	if serve.WindowSpan(in.svc, w).Hours == nil {
		t.Fatal("the rolling window kept no hourly sums")
	}
	got, err := serve.WindowHourly(ctx, in.svc, clk.now(), w)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want, got, nearly); diff != "" {
		t.Errorf("window %s: hourly series (-one read +rolling window):\n%s", w, diff)
	}

	req := app.DefaultReportRequest()
	req.Source, req.Window = app.Source{Prometheus: &once}, w.End.Sub(w.Start)
	cli, err := a.Report(ctx, req)
	if err != nil {
		t.Fatal(err)
	}
	svc := st.Report
	if cli.IdleCauses == nil || len(cli.IdleCauses.Workloads) == 0 {
		t.Fatal("the CLI's report has no idle causes: the test compares nothing")
	}
	if svc.IdleCauses == nil {
		t.Fatal("the service's report has no idle causes")
	}
	// The dollars split are the cost engine's, whose usage the window
	// merges from the intervals too: it differs from one read's by the
	// samples at the intervals' edges (here 0.03% of the active hours).
	if diff := cmp.Diff(cli.IdleCauses, svc.IdleCauses, roughly); diff != "" {
		t.Errorf("idle causes (-CLI +service):\n%s", diff)
	}
	if got, want := svc.IdleCauses.IdleUSD, svc.Report.Totals.GPUCost.AllocatedIdle; !closeTo(got, want, 1e-9) {
		t.Errorf("the service's idle causes split $%.6f, its report's idle GPU cost is $%.6f", got, want)
	}
	if cli.Ledger == nil || svc.Ledger == nil {
		t.Fatalf("ledger: CLI %v (%v), service %v (%v)", cli.Ledger != nil, cli.LedgerErr, svc.Ledger != nil, svc.LedgerErr)
	}
	if diff := cmp.Diff(cli.Ledger.Levers, svc.Ledger.Levers, nearly, cmpopts.IgnoreUnexported(ledger.LeverResult{})); diff != "" {
		t.Errorf("ledger levers (-CLI +service):\n%s", diff)
	}
	if diff := cmp.Diff(cli.Ledger.NotCounted, svc.Ledger.NotCounted, nearly, cmpopts.IgnoreUnexported(ledger.NotCounted{})); diff != "" {
		t.Errorf("ledger's opportunities not counted (-CLI +service):\n%s", diff)
	}
}
