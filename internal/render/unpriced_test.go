package render

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/gpuwise/gpuwise/internal/cost"
)

// allUnpriced is sampleReport with no priced node: every dollar is absent.
func allUnpriced() *cost.Report {
	r := sampleReport()
	r.Rows = r.Rows[len(r.Rows)-1:] // the unpriced "research" row
	r.TopIdle = nil                 // cost leaves unpriced workloads out of the dollar ranking
	r.Totals = cost.Totals{Nodes: 1, GPUs: 1, Unpriced: true, UnpricedGPUHours: 168,
		Costs: cost.Costs{GPUHours: r.Rows[0].GPUHours}}
	return r
}

// With every node unpriced no format may show a dollar figure as $0.
func TestNothingPricedIsNeverZeroDollars(t *testing.T) {
	r := allUnpriced()
	for _, f := range []Format{Table, Markdown, HTML} {
		got := render(t, r, f, Options{})
		if strings.Contains(got, "$0") {
			t.Errorf("%s shows $0 with nothing priced:\n%s", f, got)
		}
		if !strings.Contains(got, "n/a (unpriced)") {
			t.Errorf("%s headline does not say the cost is n/a (unpriced)", f)
		}
	}
	var m map[string]any
	if err := json.Unmarshal([]byte(render(t, r, JSON, Options{})), &m); err != nil {
		t.Fatal(err)
	}
	totals := m["totals"].(map[string]any)
	if totals["total_cost_usd"] != nil || totals["node_cost_usd"] != nil || totals["unpriced"] != true {
		t.Errorf("json totals: total %v, node %v, unpriced %v; want null, null, true",
			totals["total_cost_usd"], totals["node_cost_usd"], totals["unpriced"])
	}
	csvOut := render(t, r, CSV, Options{})
	if row := strings.Split(csvOut, "\n")[1]; !strings.HasSuffix(row, ",,,,,,,,,true,168,false,") {
		t.Errorf("csv unpriced row %q, want empty dollars then unpriced true, 168 GPU-hours, not partial, no mechanism", row)
	}
}

// A partly priced report says what its cost leaves out.
func TestCostHeadlineNamesUnpricedHours(t *testing.T) {
	got := render(t, sampleReport(), Table, Options{})
	if line := lineWith(got, "Cost  "); !strings.Contains(line, "168.0 unpriced GPU-hours not in it") {
		t.Errorf("cost line %q does not say unpriced hours are left out", line)
	}
}

// "Idle GPU-hours" counts time below the threshold; the dollar figure
// weights held time by 1 − activity. They are two figures with two names,
// and the dollars say they do not follow the threshold.
func TestIdleFiguresAreNamedApart(t *testing.T) {
	r := sampleReport()
	r.IdleThreshold = 0.3
	got := render(t, r, Table, Options{})
	if line := lineWith(got, "Idle GPU-hours"); !strings.Contains(line, "below 30% activity") {
		t.Errorf("idle hours line %q does not name the threshold", line)
	}
	if strings.Contains(got, "Idle cost") {
		t.Error(`the dollar figure is still called "Idle cost", as if it counted the idle hours`)
	}
	if line := lineWith(got, "Unused GPU cost"); !strings.Contains(line, "the idle threshold does not change it") {
		t.Errorf("unused cost line %q does not say the threshold does not change it", line)
	}
}

// The HTML table keeps names whole (breaking only after a "/"), scrolls in
// its own box rather than widening the page, and paints only idle dollars
// above $0 red.
func TestHTMLKeysAndIdleCells(t *testing.T) {
	r := sampleReport()
	r.Rows[0].Key = "ml-training/Deployment/train"
	got := render(t, r, HTML, Options{})
	for _, want := range []string{
		`<span class="name">__unallocated__</span>`,
		`<span class="name">ml-training/<wbr>Deployment/<wbr>train</span>`,
		`<div class="wide"><table>`,
	} {
		if !strings.Contains(got, want) {
			t.Errorf("html lacks %s", want)
		}
	}
	if strings.Contains(got, "break-all") {
		t.Error("html still lets keys break anywhere (word-break: break-all)")
	}
	if strings.Contains(got, `idle">$0<`) || strings.Contains(got, `idle">n/a<`) {
		t.Error("html paints a $0 or n/a cell red")
	}
	if !strings.Contains(got, `idle">$2,000<`) {
		t.Error("html no longer paints real idle dollars red")
	}
}
