package render

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/gpuwise/gpuwise/internal/ledger"
)

// The savings summary is the ledger's saving and the first actions in
// every human format, and one JSON object; without it the report has no
// savings figure at all.
func TestSavingsSummary(t *testing.T) {
	t.Parallel()
	sav := &Savings{BeforeUSDMonth: 20000, AfterUSDMonth: 7654.33, SavingUSDMonth: 12345.67, Actions: 2, Command: "gpuwise advise",
		First: []ledger.FirstAction{{ID: "A1", Title: "Remove 1 node", SavingUSDMonth: 10000, Confidence: ledger.High}, {ID: "A3", Title: "Re-pack", SavingUSDMonth: 2345.67, Confidence: ledger.Medium}}}
	for _, f := range []Format{Table, Markdown, HTML} {
		var b bytes.Buffer
		if err := Report(&b, sampleReport(), f, Options{Savings: sav}); err != nil {
			t.Fatal(err)
		}
		out := b.String()
		for _, want := range []string{"$12,346/month", "Do first", "$10,000/month", "A1 Remove 1 node (high confidence)", "$2,346/month", "gpuwise advise", "a cost, not a saving"} {
			if got := strings.Count(out, want); got != 1 {
				t.Errorf("%s: %q appears %d times, want once", f, want, got)
			}
		}
	}
	var b bytes.Buffer
	if err := Report(&b, sampleReport(), JSON, Options{Savings: sav}); err != nil {
		t.Fatal(err)
	}
	var doc map[string]json.RawMessage
	if err := json.Unmarshal(b.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(doc["savings"]), `"saving_usd_month": 12345.67`) || doc["totals"] == nil {
		t.Errorf("json lacks savings or the report fields: %s", b.String())
	}
	b.Reset()
	if err := Report(&b, sampleReport(), JSON, Options{}); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(b.String(), "savings") {
		t.Error("json has a savings field without a ledger")
	}
}

func TestSavingsNoneFound(t *testing.T) {
	t.Parallel()
	var b bytes.Buffer
	if err := Report(&b, sampleReport(), Table, Options{Savings: &Savings{Command: "gpuwise advise"}}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "Savings          none found by the savings ledger's levers") || strings.Contains(b.String(), "Do first") {
		t.Errorf("no actions:\n%s", b.String())
	}
}
