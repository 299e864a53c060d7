package serve_test

import (
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gpuwise/gpuwise/internal/app"
)

// serve --bill: the report the API serves (and the dashboard shows)
// carries the reconciliation, and /metrics exports the bill's matched
// and unmatched dollars.
func TestServeReconcilesTheBill(t *testing.T) {
	bill := filepath.Join(t.TempDir(), "bill.csv")
	req := app.DefaultReportRequest()
	req.Source, req.SaveBill = app.Source{Demo: app.DefaultDemo()}, bill
	if _, err := app.New(time.Now).Report(context.Background(), req); err != nil {
		t.Fatal(err)
	}
	prices, err := app.LoadPrices("", []string{bill})
	if err != nil {
		t.Fatal(err)
	}
	opts := demoOptions()
	opts.Prices = prices
	in := startWith(t, opts, time.Now, nil, nil)
	code, _, body := in.get(t, "/api/v1/report")
	if code != 200 {
		t.Fatalf("report: %d %s", code, body)
	}
	var rep struct {
		Reconciliation *struct {
			BillUSD    float64 `json:"bill_usd"`
			MatchedUSD float64 `json:"matched_usd"`
		} `json:"reconciliation"`
	}
	if err := json.Unmarshal(body, &rep); err != nil {
		t.Fatal(err)
	}
	if rep.Reconciliation == nil || rep.Reconciliation.MatchedUSD <= 0 || rep.Reconciliation.BillUSD < rep.Reconciliation.MatchedUSD {
		t.Fatalf("no reconciliation in the served report: %+v", rep.Reconciliation)
	}
	_, _, metrics := in.get(t, "/metrics")
	for _, want := range []string{`gpuwise_window_bill_usd{cluster="default",kind="matched"}`, `gpuwise_window_bill_usd{cluster="default",kind="unmatched"}`,
		`gpuwise_window_bill_unmatched_gpu_instances{cluster="default"} 1`} {
		if !strings.Contains(string(metrics), want) {
			t.Errorf("/metrics lacks %s", want)
		}
	}
	// SIGHUP's swap: without the bill, the next cycle's report has none.
	in.svc.SetPrices(nil)
	if err := in.svc.Cycle(context.Background()); err != nil {
		t.Fatal(err)
	}
	_, _, body = in.get(t, "/api/v1/report")
	if strings.Contains(string(body), `"reconciliation"`) {
		t.Error("the report still reconciles after the bill was swapped out")
	}
}
