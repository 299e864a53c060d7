//go:build browser

package dashboard_test

import (
	"encoding/csv"
	"io"
	"math"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// sizes are the widths every FinOps view is checked at.
var sizes = []struct {
	name          string
	width, height int64
	mobile        bool
}{{"laptop", 1440, 900, false}, {"phone", 390, 844, true}}

// checkView opens url at each size: ready, every figure equal to its API
// answer, no wider than the viewport, no console problem, no failed
// request, a screenshot kept.
func checkView(t *testing.T, d *demo, url, name string, minFigures int) {
	t.Helper()
	for _, size := range sizes {
		t.Run(size.name, func(t *testing.T) {
			tb := newTab(t, size.width, size.height, size.mobile)
			d.failed.reset()
			tb.open(t, url)
			if n := checkFigures(t, tb, d); n < minFigures {
				t.Errorf("%d figures shown, want at least %d", n, minFigures)
			}
			if w, vw := fits(t, tb); w > vw {
				t.Errorf("page is %d px wide in a %d px viewport", w, vw)
			}
			screenshot(t, tb, size.name+"-"+name)
			if p := tb.problems(); len(p) > 0 {
				t.Errorf("console: %v", p)
			}
			if f := d.failed.list(); len(f) > 0 {
				t.Errorf("failed requests: %v", f)
			}
		})
	}
}

// Changing the range in the header's picker reloads the view with the
// range in its URL, every card then reads the API's answer for that range
// (and its figures equal it), and the trends refetch for it.
func TestRangeChangeRefetchesEveryCard(t *testing.T) {
	d := start(t)
	tb := newTab(t, 1440, 900, false)
	tb.open(t, d.url+"/?view=overview")
	before := eval[[]string](t, tb, `[...document.querySelectorAll("#range-cards [data-src]")].map(e => e.dataset.src)`)
	for _, src := range before {
		if strings.Contains(src, "range=") {
			t.Fatalf("the window's cards already read a range: %s", src)
		}
	}
	if err := chromedp.Do(tb.ctx, chromedp.SetValue(chromedp.CSS("#range"), "24h")); err != nil {
		t.Fatal(err)
	}
	if err := chromedp.Do(tb.ctx, chromedp.Click(chromedp.CSS("#range-apply"))); err != nil {
		t.Fatal(err)
	}
	// the click reloads the page: poll across the navigation
	deadline := time.Now().Add(60 * time.Second)
	for {
		ok, err := chromedp.Run(tb.ctx, chromedp.Evaluate[bool](`location.search.includes("range=24h") && document.body.dataset.ready === "true"`))
		if err == nil && ok {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the page never reloaded with range=24h (last: %v, console: %v)", err, tb.problems())
		}
		time.Sleep(200 * time.Millisecond)
	}
	srcs := eval[[]string](t, tb, `[...document.querySelectorAll("#range-cards [data-src], .chart[data-src*='history']")].map(e => e.dataset.src)`)
	if len(srcs) < 8 {
		t.Fatalf("only %d range-card figures and charts", len(srcs))
	}
	for _, src := range srcs {
		if !strings.Contains(src, "range=24h") {
			t.Errorf("after the range change %s does not read the range", src)
		}
	}
	checkFigures(t, tb, d)
	// the spend card is the showback's total over the last day, which is the
	// day's hourly history summed by the service
	total, _ := lookup(d.answer(t, "api/v1/showback?by=namespace&idle-share=none&range=24h"), "total.total_usd")
	shown := eval[string](t, tb, `document.querySelector("#range-cards .card .big").textContent`)
	if msg := compare(shown, "usd", total); msg != "" {
		t.Errorf("spend card: %s", msg)
	}
	if got := eval[string](t, tb, `document.querySelector("#range").value`); got != "24h" {
		t.Errorf("the picker shows %q after the change", got)
	}
	if p := tb.problems(); len(p) > 0 {
		t.Errorf("console: %v", p)
	}
}

// Every view shows the range picker and, when a range other than the
// window is asked, says which of its panels are on the window.
func TestEveryViewHasTheRangePicker(t *testing.T) {
	d := start(t)
	tb := newTab(t, 1440, 900, false)
	for _, v := range []string{"overview", "costs", "showback", "idle", "actions", "audit", "notes"} {
		tb.open(t, d.url+"/?view="+v+"&range=7d")
		if n := eval[int](t, tb, `document.querySelectorAll("#rangepicker #range option").length`); n != 6 {
			t.Errorf("%s: the range picker has %d choices, want 6", v, n)
		}
		if got := eval[string](t, tb, `document.querySelector("#range").value`); got != "7d" {
			t.Errorf("%s: the picker shows %q for range=7d", v, got)
		}
		if v == "idle" || v == "actions" || v == "audit" || v == "costs" {
			if !strings.Contains(tb.text(t, "#window-note"), "computed on the service's window") {
				t.Errorf("%s: no note that the view is on the service's window", v)
			}
		}
	}
}

// The showback view: by team (the default), each team row linked to its
// page, every figure from the API, its CSV download summing to the
// report's total to the cent.
func TestShowbackViewAndCSV(t *testing.T) {
	d := start(t)
	checkView(t, d, d.url+"/?view=showback", "showback-team", 60)
	tb := newTab(t, 1440, 900, false)
	tb.open(t, d.url+"/?view=showback")
	href := eval[string](t, tb, `document.querySelector('a[data-download="csv"]').href`)
	resp, err := http.Get(href)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	recs, err := csv.NewReader(strings.NewReader(string(body))).ReadAll()
	if err != nil || resp.StatusCode != 200 || len(recs) < 5 {
		t.Fatalf("CSV %s: %d, %v, %d records", href, resp.StatusCode, err, len(recs))
	}
	col := -1
	for i, h := range recs[0] {
		if h == "total_usd" {
			col = i
		}
	}
	var cents int64
	for _, r := range recs[1:] {
		c, err := strconv.ParseInt(strings.Replace(r[col], ".", "", 1), 10, 64)
		if err != nil {
			t.Fatalf("total_usd %q", r[col])
		}
		cents += c
	}
	total, _ := lookup(d.answer(t, "api/v1/report?by=label:team&idle-share=cluster"), "totals.total_cost_usd")
	if want := int64(math.Round(total.(float64) * 100)); cents != want {
		t.Errorf("the showback CSV sums to %d cents, the report's total is %d", cents, want)
	}
	if n := eval[int](t, tb, `document.querySelectorAll('table[data-table="rows"] td[data-col="key"] a[href*="team/"]').length`); n < 10 {
		t.Errorf("%d team rows link to their page", n)
	}
	focus := eval[string](t, tb, `document.querySelector('a[data-download="focus"]').href`)
	if !strings.Contains(focus, "output=focus") {
		t.Errorf("FOCUS link %s", focus)
	}
}

// /team/VALUE is a team's page: its showback row's figures (equal to the
// API's), breadcrumbs back to the showback, its hourly charts; the same
// team's figures as the showback table's row.
func TestTeamPage(t *testing.T) {
	d := start(t)
	checkView(t, d, d.url+"/team/assistant", "team-assistant", 8)
	tb := newTab(t, 1440, 900, false)
	tb.open(t, d.url+"/team/assistant?range=24h")
	src := eval[string](t, tb, `document.querySelector("#team-cards [data-src]").dataset.src`)
	path := eval[string](t, tb, `document.querySelector("#team-cards [data-src]").dataset.path`)
	key, _ := lookup(d.answer(t, src), strings.TrimSuffix(path, ".total_usd")+".key")
	if key != "assistant" || !strings.Contains(src, "range=24h") || !strings.Contains(src, "by=label%3Ateam") {
		t.Errorf("team card reads %s %s (key %v)", src, path, key)
	}
	if c := tb.text(t, ".crumbs"); !strings.Contains(c, "Showback by team") || !strings.Contains(c, "assistant") {
		t.Errorf("breadcrumbs %q", c)
	}
	if n := eval[int](t, tb, `document.querySelectorAll(".chart svg").length`); n != 2 {
		t.Errorf("%d charts on the team page", n)
	}
	checkFigures(t, tb, d)
}

// Every chart has hover values (a title per bucket or bar), the
// utilization chart its 60–85 % band, the spend chart stacks, and the
// actions view's waterfall runs from the ledger's before, one step per
// action that saves, to its after — where the last step ends.
func TestChartsCarryThePoint(t *testing.T) {
	d := start(t)
	tb := newTab(t, 1440, 900, false)
	for _, v := range []string{"overview", "idle", "actions", "showback"} {
		tb.open(t, d.url+"/?view="+v)
		charts := eval[[]int](t, tb, `[...document.querySelectorAll(".chart svg")].map(s => s.querySelectorAll("title").length)`)
		for i, n := range charts {
			if n == 0 {
				t.Errorf("%s: chart %d has no hover values", v, i)
			}
		}
		if v == "overview" {
			if len(charts) < 4 {
				t.Errorf("overview: %d charts", len(charts))
			}
			if n := eval[int](t, tb, `document.querySelectorAll('.chart[data-chart^="GPU utilization"] rect.band').length`); n != 1 {
				t.Errorf("utilization chart: %d target bands", n)
			}
			if n := eval[int](t, tb, `document.querySelectorAll('.chart[data-chart^="Spend by namespace"] path[fill-opacity]').length`); n < 3 {
				t.Errorf("spend chart: %d stacked areas", n)
			}
			legend := tb.text(t, `.chart[data-chart^="GPU utilization"] .legend`)
			if strings.Contains(legend, "__unallocated__") || strings.Contains(legend, "gpu-operator") {
				t.Errorf("the utilization legend names a GPU-less namespace: %q", legend)
			}
		}
		if v == "actions" {
			l := d.answer(t, "api/v1/advise").(map[string]any)
			steps := 0
			for _, a := range l["actions"].([]any) {
				if a.(map[string]any)["saving_usd_month"].(float64) > 0 {
					steps++
				}
			}
			bars := eval[[]string](t, tb, `[...document.querySelectorAll(".waterfall rect[data-bar]")].map(r => r.dataset.bar)`)
			if len(bars) != steps+2 || bars[0] != "before" || bars[len(bars)-1] != "after" {
				t.Errorf("waterfall bars %v, want before, %d steps, after", bars, steps)
			}
			// the last step ends where the after bar's top is
			ends := eval[[]float64](t, tb, `(() => { const r = [...document.querySelectorAll(".waterfall rect[data-bar]")];
				const last = r[r.length - 2], after = r[r.length - 1]; return [Number(last.dataset.lo), Number(after.getAttribute("y"))]; })()`)
			if math.Abs(ends[0]-ends[1]) > 0.5 {
				t.Errorf("the last step ends at y=%v, the after bar starts at y=%v: the savings do not add up to after", ends[0], ends[1])
			}
		}
	}
	if p := tb.problems(); len(p) > 0 {
		t.Errorf("console: %v", p)
	}
}

// The idle leaderboard links each workload an action names to that
// action: chat-llm to the autoscaling action, not only its GPU shape
// (keep-whole: one replica's GPU, not the replica count).
func TestLeaderboardLinksTheLedgerAction(t *testing.T) {
	d := start(t)
	tb := newTab(t, 1440, 900, false)
	tb.open(t, d.url+"/?view=idle")
	want := map[string]string{}
	for _, a := range d.answer(t, "api/v1/advise").(map[string]any)["actions"].([]any) {
		a := a.(map[string]any)
		for _, tg := range a["targets"].([]any) {
			tg := tg.(map[string]any)
			if tg["kind"] == "workload" {
				want[tg["name"].(string)] += a["id"].(string) + " "
			}
		}
	}
	if !strings.Contains(want["inference/Deployment/chat-llm"], "A") {
		t.Fatalf("the ledger names no action for chat-llm: %v", want)
	}
	got := eval[map[string]string](t, tb, `Object.fromEntries([...document.querySelectorAll('table[data-table="top_idle_workloads"] tbody tr')].map(tr =>
		[tr.querySelector('td[data-col="key"]').innerText, [...tr.querySelectorAll('td[data-col="action"] a[data-action]')].map(a => a.dataset.action + " ").join("")]))`)
	if len(got) < 10 {
		t.Fatalf("%d leaderboard rows", len(got))
	}
	for w, ids := range got {
		if ids != want[w] {
			t.Errorf("%s links %q, the ledger names it in %q", w, ids, want[w])
		}
	}
	href := eval[string](t, tb, `document.querySelector('td[data-col="action"] a[data-action]')?.getAttribute("href") || ""`)
	if !strings.Contains(href, "view=actions") || !strings.Contains(href, "#A") {
		t.Errorf("action link %q", href)
	}
	tb.open(t, d.url+"/"+strings.TrimPrefix(href, "./"))
	id := href[strings.Index(href, "#")+1:]
	if n := eval[int](t, tb, `document.querySelectorAll("article.action#`+id+`").length`); n != 1 {
		t.Errorf("the actions view has no article %s", id)
	}
}

// The drill-down from the costs by namespace to a GPU unit: each level a
// page (breadcrumbs, cost split, hourly charts) reached by a row's link,
// each figure equal to the API's; the namespace's and the workload's
// totals those of the report's rows, the workload's pods summing to its
// row, the pod's dollars its row of report?by=pod and the GPU unit's its
// hours of the history (api/v1/history/unit).
func TestDrillDownFromNamespaceToGPU(t *testing.T) {
	d := start(t)
	tb := newTab(t, 1440, 900, false)
	follow := func(sel string) string {
		t.Helper()
		href := eval[string](t, tb, `document.querySelector(`+strconv.Quote(sel)+`)?.getAttribute("href") || ""`)
		if href == "" {
			t.Fatalf("no link %s on %s", sel, eval[string](t, tb, "location.href"))
		}
		tb.open(t, d.url+"/"+strings.TrimPrefix(href, "./"))
		if n := checkFigures(t, tb, d); n < 4 {
			t.Errorf("%s: %d figures", href, n)
		}
		if p := tb.problems(); len(p) > 0 {
			t.Errorf("%s: console %v", href, p)
		}
		if f := d.failed.list(); len(f) > 0 {
			t.Errorf("%s: failed requests %v", href, f)
		}
		return href
	}
	d.failed.reset()
	tb.open(t, d.url+"/?view=costs&by=namespace")
	follow(`table[data-table="rows"] td[data-col="key"] a[href*="ns=inference"]`)
	ns := tb.text(t, "#drill-cards")
	total, _ := lookup(d.answer(t, "api/v1/report"), rowPath(t, d, "api/v1/report", "inference")+".total_cost_usd")
	if !strings.Contains(ns, fmtUSD(total.(float64))) {
		t.Errorf("namespace page %q lacks the report's total %s", ns, fmtUSD(total.(float64)))
	}
	if c := tb.text(t, ".crumbs"); !strings.Contains(c, "Costs by namespace") || !strings.Contains(c, "inference") {
		t.Errorf("breadcrumbs %q", c)
	}
	href := follow(`table[data-table="rows"] td[data-col="key"] a[href*="chat-llm"]`)
	if !strings.Contains(href, "workload=inference%2FDeployment%2Fchat-llm") {
		t.Errorf("workload link %s", href)
	}
	wl := "inference/Deployment/chat-llm"
	total, _ = lookup(d.answer(t, "api/v1/report?by=workload&top=50"), rowPath(t, d, "api/v1/report?by=workload&top=50", wl)+".total_cost_usd")
	if got := tb.text(t, "#drill-cards"); !strings.Contains(got, fmtUSD(total.(float64))) {
		t.Errorf("workload page lacks the report's total %s", fmtUSD(total.(float64)))
	}
	// the workload's pods (a page of them) sum to its row
	if got := tb.text(t, "#pods"); !strings.Contains(got, fmtUSD(total.(float64))) {
		t.Errorf("the pods of %s do not show their sum %s: %q", wl, fmtUSD(total.(float64)), got)
	}
	if !strings.Contains(tb.text(t, "#drill-actions"), "Autoscale") {
		t.Errorf("chat-llm's page does not list its autoscaling action: %q", tb.text(t, "#drill-actions"))
	}
	if n := eval[int](t, tb, `document.querySelectorAll(".chart svg").length`); n != 2 {
		t.Errorf("%d hourly charts on the workload page", n)
	}
	href = follow(`#pods table[data-table="rows"] td[data-col="key"] a`)
	if !strings.Contains(href, "pod=inference%2Fchat-llm") {
		t.Errorf("pod link %s", href)
	}
	pod := eval[string](t, tb, `new URLSearchParams(location.search).get("pod")`)
	psrc := "api/v1/pods?" + url.Values{"pod": {pod}, "workload": {wl}}.Encode()
	ptotal, ok := lookup(d.answer(t, psrc), "rows.0.total_cost_usd")
	if !ok || ptotal == nil {
		t.Fatalf("%s: no row", psrc)
	}
	if got := tb.text(t, "#drill-cards"); !strings.Contains(got, fmtUSD(ptotal.(float64))) {
		t.Errorf("pod page lacks the API's total %s: %q", fmtUSD(ptotal.(float64)), got)
	}
	if c := tb.text(t, ".crumbs"); !strings.Contains(c, wl) || !strings.Contains(c, pod) {
		t.Errorf("pod page breadcrumbs %q", c)
	}
	if n := eval[int](t, tb, `document.querySelectorAll(".chart svg").length`); n != 2 {
		t.Errorf("%d hourly charts on the pod page", n)
	}
	follow(`table[data-table="units"] td[data-col="unit"] a`)
	unit := eval[string](t, tb, `new URLSearchParams(location.search).get("unit")`)
	usrc := "api/v1/history/unit?" + url.Values{"unit": {unit}}.Encode()
	utotal, ok := lookup(d.answer(t, usrc), "total.usd")
	if !ok || utotal == nil {
		t.Fatalf("%s: no dollars", usrc)
	}
	if got := tb.text(t, "#drill-cards"); !strings.Contains(got, fmtUSD(utotal.(float64))) {
		t.Errorf("GPU page lacks the history's $%s: %q", fmtUSD(utotal.(float64)), got)
	}
	if c := tb.text(t, ".crumbs"); !strings.Contains(c, "inference") || !strings.Contains(c, wl) || !strings.Contains(c, pod) || !strings.Contains(c, unit) {
		t.Errorf("GPU page breadcrumbs %q", c)
	}
	if n := eval[int](t, tb, `document.querySelectorAll(".chart svg").length`); n != 2 {
		t.Errorf("%d hourly charts on the GPU page", n)
	}
	t.Logf("namespace inference → %s ($%.2f) → %s ($%.2f) → %s ($%.2f over the range)", wl, total, pod, ptotal, unit, utotal)
	screenshot(t, tb, "laptop-drill-gpu")
}

// rowPath is the path of the row keyed key in an answer's rows.
func rowPath(t *testing.T, d *demo, src, key string) string {
	t.Helper()
	for i, r := range d.answer(t, src).(map[string]any)["rows"].([]any) {
		if r.(map[string]any)["key"] == key {
			return "rows." + strconv.Itoa(i)
		}
	}
	t.Fatalf("%s has no row %s", src, key)
	return ""
}

// fmtUSD is the page's dollar format.
func fmtUSD(v float64) string {
	s := strconv.FormatFloat(math.Round(v*100)/100, 'f', 2, 64)
	whole, frac, _ := strings.Cut(s, ".")
	var b strings.Builder
	for i, c := range whole {
		if i > 0 && (len(whole)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	return "$" + b.String() + "." + frac
}
