//go:build browser

package dashboard_test

import (
	"net/url"
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
