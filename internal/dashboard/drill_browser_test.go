//go:build browser

package dashboard_test

import (
	"net/url"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// A workload's pods come a page at a time (issue 30.6: a view stays small
// at 10,000 GPUs): 50 rows of api/v1/pods, a next link to the rest, the
// sum of every pod on each page; every figure the API's.
func TestPodsPageAtATime(t *testing.T) {
	d := start(t)
	const wl = "batch/CronJob/thumbnail-render"
	all := d.answer(t, "api/v1/pods?"+url.Values{"workload": {wl}, "limit": {"500"}}.Encode()).(map[string]any)
	matched := int(all["matched"].(float64))
	if matched <= 50 {
		t.Fatalf("%s has %d pods: the demo no longer pages it", wl, matched)
	}
	tb := newTab(t, 1440, 900, false)
	d.failed.reset()
	tb.open(t, d.url+"/?view=drill&workload="+url.QueryEscape(wl))
	rows := `document.querySelectorAll('#pods table[data-table="rows"] tbody tr').length`
	if n := eval[int](t, tb, rows); n != 50 {
		t.Errorf("first page: %d pod rows, want 50", n)
	}
	checkFigures(t, tb, d)
	next := eval[string](t, tb, `document.querySelector('#pods-pager a[rel="next"]')?.getAttribute("href") || ""`)
	if !strings.Contains(next, "podoffset=50") {
		t.Fatalf("no next page link: %q", next)
	}
	tb.open(t, d.url+"/"+strings.TrimPrefix(next, "./"))
	if n := eval[int](t, tb, rows); n != matched-50 {
		t.Errorf("second page: %d pod rows, want %d", n, matched-50)
	}
	if n := checkFigures(t, tb, d); n < 4*(matched-50) {
		t.Errorf("second page: %d figures", n)
	}
	if prev := eval[string](t, tb, `document.querySelector('#pods-pager a[rel="prev"]')?.getAttribute("href") || ""`); !strings.Contains(prev, "podoffset=0") {
		t.Errorf("no previous page link: %q", prev)
	}
	if p := tb.problems(); len(p) > 0 {
		t.Errorf("console: %v", p)
	}
	if f := d.failed.list(); len(f) > 0 {
		t.Errorf("failed requests: %v", f)
	}
}

// Costs by workload come a page at a time (issue 30.6: a view asks for the
// rows it shows): 50 rows of the report, most dollars first, a "more
// rows" link to the next 50, each page's rows the API's rows from its
// offset and its totals the whole report's; the drill's workload table
// is its namespace's rows (namespace, server-side) with their sum.
func TestCostRowsPageAtATime(t *testing.T) {
	d := start(t)
	all := d.answer(t, "api/v1/report?by=workload").(map[string]any)["rows"].([]any)
	if len(all) <= 50 {
		t.Fatalf("the demo has %d workloads: no second page", len(all))
	}
	keys := func(rows []any) []any {
		out := []any{}
		for _, r := range rows {
			out = append(out, r.(map[string]any)["key"])
		}
		return out
	}
	tb := newTab(t, 1440, 900, false)
	d.failed.reset()
	tb.open(t, d.url+"/?view=costs&by=workload")
	if got := rowValues(t, tb, d, "key"); !slices.Equal(got, keys(all[:50])) {
		t.Errorf("first page: %d rows, want the report's first 50", len(got))
	}
	checkFigures(t, tb, d)
	next := eval[string](t, tb, `document.querySelector('#rows-pager a[rel="next"]')?.getAttribute("href") || ""`)
	if !strings.Contains(next, "rowoffset=50") || eval[string](t, tb, `document.querySelector('#rows-pager a[rel="next"]').textContent`) != "more rows" {
		t.Fatalf("no more-rows link: %q", next)
	}
	tb.open(t, d.url+"/"+strings.TrimPrefix(next, "./"))
	if got := rowValues(t, tb, d, "key"); !slices.Equal(got, keys(all[50:min(100, len(all))])) {
		t.Errorf("second page: %v, want the report's rows 51–%d", got, min(100, len(all)))
	}
	if n := checkFigures(t, tb, d); n < 8*min(50, len(all)-50) {
		t.Errorf("second page: %d figures", n)
	}
	if !strings.Contains(eval[string](t, tb, `document.querySelector('#rows-pager').textContent`), "of "+strconv.Itoa(len(all))) {
		t.Errorf("pager %q does not say %d rows in all", eval[string](t, tb, `document.querySelector('#rows-pager').textContent`), len(all))
	}
	tb.open(t, d.url+"/?view=drill&ns=batch")
	page := d.answer(t, "api/v1/report?by=workload&top=50&namespace=batch&offset=0&limit=50").(map[string]any)
	for _, r := range page["rows"].([]any) {
		if k := r.(map[string]any)["key"].(string); !strings.HasPrefix(k, "batch/") {
			t.Errorf("the drill's page of batch holds %s", k)
		}
	}
	if n := eval[int](t, tb, `document.querySelectorAll('table[data-table="rows"] tbody tr').length`); n != len(page["rows"].([]any)) || n == 0 {
		t.Errorf("drill batch: %d workload rows, the API's page %d", n, len(page["rows"].([]any)))
	}
	checkFigures(t, tb, d)
	if p := tb.problems(); len(p) > 0 {
		t.Errorf("console: %v", p)
	}
	if f := d.failed.list(); len(f) > 0 {
		t.Errorf("failed requests: %v", f)
	}
}
