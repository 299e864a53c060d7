package app

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// The report's savings ledger is advise's, action for action, not just
// the headline: the report releases the snapshot's hourly series and its
// usage detail (all the pods' usage but the GPUs' activity) before the
// ledger, so every ledger input that reads them (the capacity levers',
// right-sizing's CPU starvation and its container and GPU usage) must be
// taken first. The demo has a CPU-starved GPU workload, whose CPU advise
// raises.
func TestReportLedgerIsAdvise(t *testing.T) {
	t.Parallel()
	a, ctx := testApp(), context.Background()
	rep, err := a.Report(ctx, demoReport())
	if err != nil || rep.Ledger == nil {
		t.Fatalf("report: %v (ledger: %v)", err, rep.LedgerErr)
	}
	ad := DefaultAdviseRequest()
	ad.Source = Source{Demo: DefaultDemo()}
	adv, err := a.Advise(ctx, ad)
	if err != nil {
		t.Fatal(err)
	}
	want, got := ledgerJSON(t, adv.Ledger), ledgerJSON(t, rep.Ledger)
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("the report's ledger differs from advise's (-advise +report):\n%s", d)
	}
}

func ledgerJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.MarshalIndent(v, "", " ")
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
