//go:build browser

package dashboard_test

import (
	"fmt"
	"math"
	"strings"
	"testing"
)

// The idle view lists the low-utilization units from the history too
// (issue 26.5): the panel's rows are api/v1/history/low-util's units, its
// dollars that answer's, and, over the demo's recorded week, the same
// dollars and units as the snapshot's list above it (report ?low-util).
// The panel asks for the page of units it shows (offset 0, 50 units), and
// its pager counts the whole list's.
func TestIdleViewListsLowUtilFromTheHistory(t *testing.T) {
	d := start(t)
	const whole, hist, snap = "api/v1/history/low-util", "api/v1/history/low-util?offset=0&limit=50", "api/v1/report?low-util=30%25%3A6h"
	h := d.answer(t, whole).(map[string]any)["low_utilization"].(map[string]any)
	s := d.answer(t, snap).(map[string]any)["low_utilization"].(map[string]any)
	units := h["units"].([]any)
	if len(units) == 0 || len(units) != len(s["units"].([]any)) || math.Round(h["usd"].(float64)*100) != math.Round(s["usd"].(float64)*100) {
		t.Fatalf("history: %d units $%v; snapshot: %d units $%v", len(units), h["usd"], len(s["units"].([]any)), s["usd"])
	}
	pg := d.answer(t, hist).(map[string]any)
	shown := len(pg["low_utilization"].(map[string]any)["units"].([]any))
	if shown != min(50, len(units)) || pg["page"].(map[string]any)["units"].(float64) != float64(len(units)) {
		t.Fatalf("the page holds %d units of %v; the whole list %d", shown, pg["page"], len(units))
	}
	tb := newTab(t, 1366, 768, false)
	tb.open(t, d.url+"/?view=idle")
	if n := eval[int](t, tb, `document.querySelectorAll('#low-util-history table tbody tr').length`); n != shown {
		t.Errorf("the history panel shows %d units, the API's page has %d", n, shown)
	}
	if p := tb.text(t, "#luh-pager"); !strings.Contains(p, fmt.Sprintf("of %d", len(units))) {
		t.Errorf("the history panel's pager says %q, want the whole list's %d units", p, len(units))
	}
	figs := eval[[]figure](t, tb, `[...document.querySelectorAll("#low-util-history [data-path]")].map(e => ({src: e.dataset.src, path: e.dataset.path, unit: e.dataset.unit, text: e.textContent}))`)
	seen := false
	for _, f := range figs {
		if f.Src != hist {
			t.Errorf("history panel figure %s comes from %s, want %s", f.Path, f.Src, hist)
		}
		seen = seen || f.Path == "low_utilization.usd"
	}
	if !seen {
		t.Error("the history panel does not show low_utilization.usd")
	}
	checkFigures(t, tb, d)
	tb.open(t, d.url+"/?view=idle&lurange=24h")
	if n := eval[int](t, tb, `document.querySelectorAll('#low-util-history table tbody tr').length`); n == 0 {
		t.Error("the last 24 hours of the history list no unit")
	}
	if p := tb.problems(); len(p) > 0 {
		t.Errorf("console: %v", p)
	}
	if f := d.failed.list(); len(f) > 0 {
		t.Errorf("failed requests: %v", f)
	}
}

// The actions view per cluster (issue 26.4): with by=cluster it shows each
// cluster's own ledger from api/v1/advise?by=cluster (the demo: one
// cluster), every figure that answer's, and the cluster's saving is the
// one the plain view shows.
func TestActionsViewByCluster(t *testing.T) {
	d := start(t)
	const src = "api/v1/advise?by=cluster"
	a := d.answer(t, src).(map[string]any)
	cls := a["clusters"].([]any)
	plain := d.answer(t, "api/v1/advise").(map[string]any)
	if len(cls) != 1 || math.Round(a["saving_usd_month"].(float64)*100) != math.Round(plain["saving_usd_month"].(float64)*100) {
		t.Fatalf("by cluster: %d clusters saving $%v; the plain ledger $%v", len(cls), a["saving_usd_month"], plain["saving_usd_month"])
	}
	tb := newTab(t, 1366, 768, false)
	d.failed.reset()
	tb.open(t, d.url+"/?view=actions&by=cluster")
	if n := eval[int](t, tb, `document.querySelectorAll('table[data-table="clusters"] tbody tr').length`); n != len(cls) {
		t.Errorf("the clusters table shows %d rows, the API has %d", n, len(cls))
	}
	want := map[string]bool{"saving_usd_month": false, "clusters.0.ledger.saving_usd_month": false, "clusters.0.ledger.actions.0.saving_usd_month": false}
	for _, f := range eval[[]figure](t, tb, figuresJS) {
		if f.Src != src {
			t.Errorf("figure %s comes from %s, want %s", f.Path, f.Src, src)
		}
		if _, ok := want[f.Path]; ok {
			want[f.Path] = true
		}
	}
	for p, seen := range want {
		if !seen {
			t.Errorf("the per-cluster view does not show %s", p)
		}
	}
	if n := checkFigures(t, tb, d); n < 20 {
		t.Errorf("%d figures shown, want at least 20", n)
	}
	if p := tb.problems(); len(p) > 0 {
		t.Errorf("console: %v", p)
	}
	if f := d.failed.list(); len(f) > 0 {
		t.Errorf("failed requests: %v", f)
	}
}
