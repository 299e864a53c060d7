//go:build browser

package dashboard_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/gpuwise/gpuwise/internal/app"
	"github.com/gpuwise/gpuwise/internal/sim"
)

// The browser tier: every view of the dashboard in a real headless
// Chromium (Debian's chromium; hack/chromium/install.sh), against a
// `serve --demo` service. It fails on a console error or exception, a
// failed request, a figure that differs from the API's answer, or a page
// wider than its viewport; it keeps a screenshot of every view in
// $GPUWISE_BROWSER_OUT (default: a folder under the system temp dir).

// chromium is the browser binary: $GPUWISE_CHROMIUM, else chromium on the
// PATH.
func chromium(t *testing.T) string {
	if p := os.Getenv("GPUWISE_CHROMIUM"); p != "" {
		return p
	}
	p, err := exec.LookPath("chromium")
	if err != nil {
		t.Fatal("chromium not found: run hack/chromium/install.sh (Debian's chromium) or set GPUWISE_CHROMIUM")
	}
	return p
}

// outDir is where screenshots and measurements go (never committed).
func outDir(t *testing.T) string {
	dir := os.Getenv("GPUWISE_BROWSER_OUT")
	if dir == "" {
		dir = filepath.Join(os.TempDir(), "gpuwise-browser")
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	return dir
}

var (
	browserOnce sync.Once
	browserCtx  context.Context
)

// browser is one Chromium for the whole test binary (each test opens its
// own tabs); TestMain stops it.
func browser(t *testing.T) context.Context {
	t.Helper()
	browserOnce.Do(func() {
		opts := append(chromedp.DefaultExecAllocatorOptions[:], chromedp.ExecPath(chromium(t)), chromedp.NoSandbox,
			chromedp.WindowSize(1366, 768))
		actx, _ := chromedp.NewExecAllocator(context.Background(), opts...)
		ctx, _ := chromedp.NewContext(actx)
		if err := chromedp.Do(ctx); err != nil {
			t.Fatalf("starting chromium: %v", err)
		}
		browserCtx = ctx
		stopBrowser = func() { chromedp.Cancel(ctx) }
	})
	if browserCtx == nil {
		t.Fatal("chromium did not start")
	}
	return browserCtx
}

// tab is a new tab with its console messages collected until the tab
// closes; check reports errors and exceptions.
type tab struct {
	ctx    context.Context
	cancel context.CancelFunc
	mu     sync.Mutex
	msgs   []chromedp.ConsoleMessage
	done   chan struct{}
}

func newTab(t *testing.T, width, height int64, mobile bool) *tab {
	t.Helper()
	ctx, cancel := chromedp.NewContext(browser(t))
	ctx, cancelTimeout := context.WithTimeout(ctx, 90*time.Second)
	tb := &tab{ctx: ctx, done: make(chan struct{})}
	tb.cancel = func() { cancelTimeout(); cancel() }
	msgs := chromedp.Console(ctx)
	go func() {
		defer close(tb.done)
		for m, err := range msgs {
			if err != nil {
				return
			}
			tb.mu.Lock()
			tb.msgs = append(tb.msgs, m)
			tb.mu.Unlock()
		}
	}()
	var emu []chromedp.EmulateViewportOption
	if mobile {
		emu = append(emu, chromedp.EmulateMobile)
	}
	if err := chromedp.Do(ctx, chromedp.EmulateViewport(width, height, emu...)); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(tb.close)
	return tb
}

func (tb *tab) close() {
	tb.cancel()
	<-tb.done
}

// problems are the console errors, exceptions and warnings so far.
func (tb *tab) problems() []string {
	tb.mu.Lock()
	defer tb.mu.Unlock()
	var out []string
	for _, m := range tb.msgs {
		if m.Type == chromedp.ConsoleError || m.Type == chromedp.ConsoleWarning || m.IsException() {
			out = append(out, m.String())
		}
	}
	return out
}

// open loads url and waits until the page says it is ready.
func (tb *tab) open(t *testing.T, url string) {
	t.Helper()
	if err := chromedp.Do(tb.ctx, chromedp.Navigate(url)); err != nil {
		t.Fatalf("opening %s: %v", url, err)
	}
	tb.waitReady(t, url)
}

func (tb *tab) waitReady(t *testing.T, url string) {
	t.Helper()
	state, err := chromedp.Run(tb.ctx, chromedp.Poll[string](`document.body.dataset.ready || ""`+` ? document.body.dataset.ready : false`,
		chromedp.WithPollingTimeout(60*time.Second)))
	if err != nil {
		t.Fatalf("%s never became ready: %v (console: %v)", url, err, tb.problems())
	}
	if state != "true" {
		t.Fatalf("%s failed to load: %s (console: %v)", url, tb.text(t, "main"), tb.problems())
	}
}

func (tb *tab) text(t *testing.T, sel string) string {
	s, err := chromedp.Run(tb.ctx, chromedp.Evaluate[string](`document.querySelector(`+strconv.Quote(sel)+`)?.innerText ?? ""`))
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func eval[T any](t *testing.T, tb *tab, js string) T {
	t.Helper()
	v, err := chromedp.Run(tb.ctx, chromedp.Evaluate[T](js))
	if err != nil {
		t.Fatalf("evaluating %s: %v", js, err)
	}
	return v
}

// figure is one number on the page and where it says it came from.
type figure struct {
	Src  string `json:"src"`
	Path string `json:"path"`
	Unit string `json:"unit"`
	Text string `json:"text"`
}

const figuresJS = `[...document.querySelectorAll("[data-path]")].map(e => ({src: e.dataset.src, path: e.dataset.path, unit: e.dataset.unit, text: e.textContent}))`

// checkFigures compares every figure on the page with the API's answer,
// to the precision shown; it returns how many it checked.
func checkFigures(t *testing.T, tb *tab, d *demo) int {
	t.Helper()
	figs := eval[[]figure](t, tb, figuresJS)
	for _, f := range figs {
		want, ok := lookup(d.answer(t, f.Src), f.Path)
		if !ok {
			t.Errorf("%s %s: no such place in the answer (shown %q)", f.Src, f.Path, f.Text)
			continue
		}
		if msg := compare(f.Text, f.Unit, want); msg != "" {
			t.Errorf("%s %s: %s", f.Src, f.Path, msg)
		}
	}
	return len(figs)
}

// lookup follows a dotted path ("rows.3.gpu_hours.active") in decoded JSON;
// a field the last object leaves out is missing (nil), as the JSON means.
func lookup(v any, path string) (any, bool) {
	keys := strings.Split(path, ".")
	for i, k := range keys {
		switch x := v.(type) {
		case map[string]any:
			var ok bool
			if v, ok = x[k]; !ok {
				return nil, i == len(keys)-1
			}
		case []any:
			i, err := strconv.Atoi(k)
			if err != nil || i < 0 || i >= len(x) {
				return nil, false
			}
			v = x[i]
		default:
			return nil, false
		}
	}
	return v, true
}

// shownPrecision is half the last digit each unit shows.
var shownPrecision = map[string]float64{"usd": 0.005, "pct": 0.0005, "h": 0.05, "int": 0.5, "num": 0.005, "pts": 0.05}

// compare says how text differs from the API value want ("" when equal as
// shown): missing values must read n/a, numbers must round to the text.
func compare(text, unit string, want any) string {
	if want == nil {
		if text != "n/a" {
			return fmt.Sprintf("API has no value, page shows %q", text)
		}
		return ""
	}
	w, ok := want.(float64)
	if !ok {
		return fmt.Sprintf("API value %v is not a number", want)
	}
	got, err := parseShown(text, unit)
	if err != nil {
		return err.Error()
	}
	tol, ok := shownPrecision[unit]
	if !ok {
		return fmt.Sprintf("unknown unit %q", unit)
	}
	if math.Abs(got-w) > tol*(1+1e-9)+1e-9*math.Abs(w) {
		return fmt.Sprintf("page shows %q, API has %v", text, w)
	}
	return ""
}

func parseShown(text, unit string) (float64, error) {
	s := strings.NewReplacer(",", "", "$", "", "%", "", " pts", "").Replace(text)
	v, err := strconv.ParseFloat(s, 64)
	if err != nil {
		return 0, fmt.Errorf("shown %q is not a %s figure", text, unit)
	}
	if unit == "pct" {
		v /= 100
	}
	if unit == "usd" && strings.HasPrefix(text, "-") != (v < 0) {
		return 0, fmt.Errorf("shown %q: sign lost", text)
	}
	return v, nil
}

// fits says whether the page is no wider than its viewport.
func fits(t *testing.T, tb *tab) (int, int) {
	wh := eval[[]int](t, tb, `[document.documentElement.scrollWidth, window.innerWidth]`)
	return wh[0], wh[1]
}

// shotName is a view's query as a file name: view=costs&by=label:team →
// costs-by-label-team.
func shotName(q string) string {
	return strings.NewReplacer("view=", "", "&", "-", "=", "-", ":", "-", "%", "", "/", "-").Replace(q)
}

func screenshot(t *testing.T, tb *tab, name string) {
	t.Helper()
	png, err := chromedp.Run(tb.ctx, chromedp.FullScreenshot(100))
	if err != nil {
		t.Fatalf("screenshot %s: %v", name, err)
	}
	path := filepath.Join(outDir(t), name+".png")
	if err := os.WriteFile(path, png, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("screenshot %s (%d bytes)", path, len(png))
}

// answer fetches an API URL of the page (relative to /) once.
func (d *demo) answer(t *testing.T, src string) any {
	t.Helper()
	d.mu.Lock()
	defer d.mu.Unlock()
	if v, ok := d.answers[src]; ok {
		return v
	}
	resp, err := http.Get(d.url + "/" + src)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil || resp.StatusCode != 200 {
		t.Fatalf("GET %s: %d %v", src, resp.StatusCode, err)
	}
	var v any
	if err := json.Unmarshal(b, &v); err != nil {
		t.Fatalf("GET %s: %v", src, err)
	}
	d.answers[src] = v
	return v
}

// views are the dashboard's pages and the fewest figures each must show.
var views = []struct {
	query      string
	minFigures int
}{
	{"view=overview", 20},
	{"view=overview&range=24h", 20},
	{"view=overview&from=2026-11-03T00:00:00Z&to=2026-11-05T00:00:00Z&compare=none", 20},
	{"view=costs&by=namespace", 40},
	{"view=costs&by=label:team", 40},
	{"view=showback", 60},
	{"view=showback&by=namespace&idle-share=none&range=24h", 60},
	{"view=drill&ns=inference", 30},
	{"view=drill&workload=inference%2FDeployment%2Fchat-llm", 20},
	{"view=drill&pod=inference%2Fchat-llm-p458tsddf7-zrh4f&workload=inference%2FDeployment%2Fchat-llm", 10},
	{"view=drill&unit=serve-h100-1%2Fgpu5", 6},
	{"view=progress", 40},
	{"view=costs&by=workload", 100},
	{"view=costs&by=node", 50},
	{"view=idle", 60},
	{"view=actions", 20},
	{"view=audit", 50},
	{"view=notes", 0},
}

func TestEveryViewRendersTheAPIsFigures(t *testing.T) {
	d := start(t)
	for _, size := range []struct {
		name          string
		width, height int64
		mobile        bool
	}{{"laptop", 1440, 900, false}, {"phone", 390, 844, true}} {
		for _, v := range views {
			t.Run(size.name+"/"+v.query, func(t *testing.T) {
				tb := newTab(t, size.width, size.height, size.mobile)
				d.failed.reset()
				tb.open(t, d.url+"/?"+v.query)
				n := checkFigures(t, tb, d)
				if n < v.minFigures {
					t.Errorf("%d figures shown, want at least %d", n, v.minFigures)
				}
				if w, vw := fits(t, tb); w > vw {
					t.Errorf("page is %d px wide in a %d px viewport", w, vw)
				}
				screenshot(t, tb, size.name+"-"+shotName(v.query))
				if p := tb.problems(); len(p) > 0 {
					t.Errorf("console: %v", p)
				}
				if f := d.failed.list(); len(f) > 0 {
					t.Errorf("failed requests: %v", f)
				}
			})
		}
	}
}

// rowValues are the visible rows' values of one column, read from the
// API answer by each cell's data-path (text columns: the cell text).
func rowValues(t *testing.T, tb *tab, d *demo, col string) []any {
	t.Helper()
	cells := eval[[]figure](t, tb, `[...document.querySelectorAll('tbody tr td[data-col=`+strconv.Quote(col)+`]')].map(td => {
		const n = td.querySelector("[data-path]");
		return n ? {src: n.dataset.src, path: n.dataset.path, unit: n.dataset.unit, text: n.textContent} : {text: td.innerText};
	})`)
	out := make([]any, len(cells))
	for i, c := range cells {
		if c.Path == "" {
			out[i] = c.Text
			continue
		}
		v, ok := lookup(d.answer(t, c.Src), c.Path)
		if !ok {
			t.Fatalf("%s %s: not in the answer", c.Src, c.Path)
		}
		out[i] = v
	}
	return out
}

func sortedBy(vals []any, desc bool) bool {
	return slices.IsSortedFunc(vals, func(a, b any) int {
		c := order(a, b)
		if desc {
			return -c
		}
		return c
	})
}

// order is the page's order: missing first, then numbers, then text.
func order(a, b any) int {
	if a == nil || b == nil {
		switch {
		case a == nil && b == nil:
			return 0
		case a == nil:
			return -1
		}
		return 1
	}
	fa, oka := a.(float64)
	fb, okb := b.(float64)
	if oka && okb {
		switch {
		case fa < fb:
			return -1
		case fa > fb:
			return 1
		}
		return 0
	}
	return strings.Compare(strings.ToLower(fmt.Sprint(a)), strings.ToLower(fmt.Sprint(b)))
}

func TestSortingAndFilteringWithStableURLs(t *testing.T) {
	d := start(t)
	tb := newTab(t, 1366, 768, false)
	tb.open(t, d.url+"/?view=costs&by=workload")
	if vals := rowValues(t, tb, d, "total_cost_usd"); len(vals) < 20 || !sortedBy(vals, true) {
		t.Fatalf("default order is not total $ descending: %v", vals)
	}
	click := func(col string) {
		if err := chromedp.Do(tb.ctx, chromedp.Click(chromedp.CSS(`th[data-col="`+col+`"] button`))); err != nil {
			t.Fatal(err)
		}
	}
	click("gpu_utilization")
	if vals := rowValues(t, tb, d, "gpu_utilization"); !sortedBy(vals, true) {
		t.Errorf("after one click utilization is not descending: %v", vals)
	}
	click("gpu_utilization")
	if vals := rowValues(t, tb, d, "gpu_utilization"); !sortedBy(vals, false) {
		t.Errorf("after two clicks utilization is not ascending: %v", vals)
	}
	if err := chromedp.Do(tb.ctx, chromedp.SendKeys(chromedp.CSS("#filter"), "batch")); err != nil {
		t.Fatal(err)
	}
	keys := rowValues(t, tb, d, "key")
	want := 0
	// the filter is the page's: the view shows one page of rows (most dollars first)
	for _, r := range d.answer(t, "api/v1/report?by=workload&offset=0&limit=50").(map[string]any)["rows"].([]any) {
		if strings.Contains(strings.ToLower(r.(map[string]any)["key"].(string)), "batch") {
			want++
		}
	}
	if len(keys) != want || want == 0 {
		t.Errorf("filter batch shows %d rows, the API's page has %d workloads with batch in their key", len(keys), want)
	}
	for _, k := range keys {
		if !strings.Contains(strings.ToLower(k.(string)), "batch") {
			t.Errorf("filter batch shows %q", k)
		}
	}
	if vals := rowValues(t, tb, d, "gpu_utilization"); !sortedBy(vals, false) {
		t.Errorf("filtering lost the order: %v", vals)
	}
	loc := eval[string](t, tb, `location.search`)
	for _, p := range []string{"view=costs", "by=workload", "sort=gpu_utilization", "dir=asc", "q=batch"} {
		if !strings.Contains(loc, p) {
			t.Errorf("URL %s lacks %s", loc, p)
		}
	}
	// The URL alone reproduces the view.
	other := newTab(t, 1366, 768, false)
	other.open(t, d.url+"/"+loc)
	if got := rowValues(t, other, d, "key"); !slices.Equal(got, keys) {
		t.Errorf("shared URL shows %v, the page it came from %v", got, keys)
	}
	if v := eval[string](t, other, `document.querySelector("#filter").value`); v != "batch" {
		t.Errorf("shared URL's filter box holds %q", v)
	}
	if p := append(tb.problems(), other.problems()...); len(p) > 0 {
		t.Errorf("console: %v", p)
	}
}

func TestAuditSeverityFilter(t *testing.T) {
	d := start(t)
	tb := newTab(t, 1366, 768, false)
	tb.open(t, d.url+"/?view=audit&severity=info")
	sev := rowValues(t, tb, d, "severity")
	summary := d.answer(t, "api/v1/audit").(map[string]any)["summary"].(map[string]any)
	if float64(len(sev)) != summary["info"].(float64) {
		t.Errorf("severity=info shows %d findings, the audit has %v", len(sev), summary["info"])
	}
	for _, s := range sev {
		if s != "info" {
			t.Errorf("severity=info shows a %v finding", s)
		}
	}
}

// Page weight, server time and time to render of the first page, written
// to measurements.json beside the screenshots (docs/performance.md).
// GPUWISE_DASHBOARD_URL measures a running service instead of the test's
// demo (make bench-dashboard: serve --demo --scale 104, 10,000 GPUs).
func TestFirstPageWeightAndTiming(t *testing.T) {
	base := os.Getenv("GPUWISE_DASHBOARD_URL")
	if base == "" {
		base = start(t).url
	}
	tb := newTab(t, 1366, 768, false)
	tb.open(t, base+"/")
	m := eval[map[string]float64](t, tb, `(() => {
		const nav = performance.getEntriesByType("navigation")[0];
		const all = [nav, ...performance.getEntriesByType("resource")];
		const server = all.map(e => e.responseStart - e.requestStart);
		return {requests: all.length, transfer_bytes: all.reduce((s, e) => s + e.transferSize, 0),
			decoded_bytes: all.reduce((s, e) => s + e.decodedBodySize, 0),
			server_ms_max: Math.max(...server), server_ms_sum: server.reduce((a, b) => a + b, 0),
			ready_ms: Number(document.body.dataset.readyMs), dom_content_loaded_ms: nav.domContentLoadedEventEnd};
	})()`)
	b, _ := json.MarshalIndent(m, "", "  ")
	t.Logf("first page of %s: %s", base, b)
	if err := os.WriteFile(filepath.Join(outDir(t), "measurements.json"), b, 0o644); err != nil {
		t.Fatal(err)
	}
	if m["transfer_bytes"] <= 0 || m["transfer_bytes"] > 1<<20 {
		t.Errorf("first page transfers %v bytes, want 1..1 MiB", m["transfer_bytes"])
	}
	if !(m["ready_ms"] > 0) || m["requests"] < 7 {
		t.Errorf("no render time or too few requests: %v", m)
	}
	if p := tb.problems(); len(p) > 0 {
		t.Errorf("console: %v", p)
	}
}

// Two tables on one page keep their own order: sorting the overview's
// before/after table leaves the cost table's order, and the URL names
// which table it sorted.
func TestTablesOnOnePageSortApart(t *testing.T) {
	d := start(t)
	tb := newTab(t, 1366, 768, false)
	tb.open(t, d.url+"/?view=overview")
	costOrder := eval[[]string](t, tb, `[...document.querySelectorAll('table[data-table="rows"] tbody tr')].map(r => r.dataset.index)`)
	if err := chromedp.Do(tb.ctx, chromedp.Click(chromedp.CSS(`table[data-table="changes"] th[data-col="total_usd_change"] button`))); err != nil {
		t.Fatal(err)
	}
	if got := eval[[]string](t, tb, `[...document.querySelectorAll('table[data-table="rows"] tbody tr')].map(r => r.dataset.index)`); !slices.Equal(got, costOrder) {
		t.Errorf("sorting the comparison reordered the cost table: %v, was %v", got, costOrder)
	}
	loc := eval[string](t, tb, `location.search`)
	if !strings.Contains(loc, "compare-sort=total_usd_change") || strings.Contains(loc, "&sort=") {
		t.Errorf("URL %s does not name the comparison's sort alone", loc)
	}
	// Reloading the URL keeps both orders.
	tb.open(t, d.url+"/"+loc)
	if got := eval[[]string](t, tb, `[...document.querySelectorAll('table[data-table="rows"] tbody tr')].map(r => r.dataset.index)`); !slices.Equal(got, costOrder) {
		t.Errorf("after reload the cost table is in order %v, was %v", got, costOrder)
	}
}

// The idle view says why GPUs idle: the "Why GPUs idle" panel has one row
// per cause of the API's idle_causes.totals with its idle GPU-hours and
// dollars (each tagged with the API path and equal to it), and every
// leaderboard workload the API classified shows its main cause, that
// cause's share and the API's evidence line; at laptop and phone size,
// with no console problem and no sideways scrolling.
func TestIdleViewShowsWhyGPUsIdle(t *testing.T) {
	d := start(t)
	const src = "api/v1/report?by=workload&top=50&limit=0" // the idle view reads the leaderboard, not the rows
	ic := d.answer(t, src).(map[string]any)["idle_causes"].(map[string]any)
	totals := ic["totals"].([]any)
	byWorkload := map[string]map[string]any{}
	for _, w := range ic["workloads"].([]any) {
		byWorkload[w.(map[string]any)["workload"].(string)] = w.(map[string]any)
	}
	for _, size := range []struct {
		name          string
		width, height int64
		mobile        bool
	}{{"laptop", 1366, 768, false}, {"phone", 390, 844, true}} {
		t.Run(size.name, func(t *testing.T) {
			tb := newTab(t, size.width, size.height, size.mobile)
			tb.open(t, d.url+"/?view=idle")
			checkCausePanel(t, tb, d, src, totals)
			checkLeaderboardCauses(t, tb, byWorkload, d.answer(t, src))
			if w, vw := fits(t, tb); w > vw {
				t.Errorf("page is %d px wide in a %d px viewport", w, vw)
			}
			if p := tb.problems(); len(p) > 0 {
				t.Errorf("console: %v", p)
			}
		})
	}
}

// checkCausePanel: the panel's figures are the API's, per cause.
func checkCausePanel(t *testing.T, tb *tab, d *demo, src string, totals []any) {
	t.Helper()
	if n := eval[int](t, tb, `document.querySelectorAll('#idle-causes table tbody tr').length`); n != len(totals) || n == 0 {
		t.Fatalf("Why GPUs idle shows %d causes, the API has %d", n, len(totals))
	}
	figs := eval[[]figure](t, tb, `[...document.querySelectorAll("#idle-causes [data-path]")].map(e => ({src: e.dataset.src, path: e.dataset.path, unit: e.dataset.unit, text: e.textContent}))`)
	shown := map[string]figure{}
	for _, f := range figs {
		if f.Src != src {
			t.Errorf("panel figure %s comes from %s, want %s", f.Path, f.Src, src)
		}
		shown[f.Path] = f
	}
	want := []string{"idle_causes.idle_gpu_hours", "idle_causes.idle_usd"}
	for i := range totals {
		for _, field := range []string{"share", "idle_gpu_hours", "idle_usd", "monthly_idle_usd", "hours"} {
			want = append(want, fmt.Sprintf("idle_causes.totals.%d.%s", i, field))
		}
	}
	for _, p := range want {
		f, ok := shown[p]
		if !ok {
			t.Errorf("Why GPUs idle does not show %s", p)
			continue
		}
		v, _ := lookup(d.answer(t, src), p)
		if msg := compare(f.Text, f.Unit, v); msg != "" {
			t.Errorf("%s: %s", p, msg)
		}
	}
	names := eval[[]string](t, tb, `[...document.querySelectorAll('#idle-causes td[data-col="cause"]')].map(td => td.innerText.trim())`)
	for i, c := range totals {
		cause := c.(map[string]any)["cause"].(string)
		if !slices.Contains(names, cause) {
			t.Errorf("cause %d (%s) is not in the panel: %v", i, cause, names)
		}
	}
}

// checkLeaderboardCauses: each classified workload's cause cell holds the
// API's main cause and evidence, and its share figure is tagged with that
// cause's share (its value is checked with the page's other figures in
// TestEveryViewRendersTheAPIsFigures).
func checkLeaderboardCauses(t *testing.T, tb *tab, byWorkload map[string]map[string]any, answer any) {
	t.Helper()
	type row struct {
		Key, Cause, Evidence, SharePath string
	}
	rows := eval[[]row](t, tb, `[...document.querySelectorAll('table[data-table="top_idle_workloads"] tbody tr')].map(tr => {
		const c = tr.querySelector('td[data-col="cause"] .cause');
		return {Key: tr.querySelector('td[data-col="key"]').innerText.trim(), Cause: c ? c.dataset.cause : "",
			Evidence: c ? c.querySelector(".evidence").innerText.trim() : "", SharePath: c?.querySelector("[data-path]")?.dataset.path ?? ""};
	})`)
	classified := 0
	for _, r := range rows {
		w, ok := byWorkload[r.Key]
		if !ok {
			if r.Cause != "" {
				t.Errorf("%s shows cause %q, the API did not classify it", r.Key, r.Cause)
			}
			continue
		}
		classified++
		if r.Cause != w["main_cause"] || r.Evidence != w["evidence"] {
			t.Errorf("%s shows %q (%q), the API has %q (%q)", r.Key, r.Cause, r.Evidence, w["main_cause"], w["evidence"])
		}
		if c, _ := lookup(answer, strings.TrimSuffix(r.SharePath, ".share")+".cause"); !strings.HasSuffix(r.SharePath, ".share") || c != w["main_cause"] {
			t.Errorf("%s: cause share tagged %q, which is not the share of its main cause", r.Key, r.SharePath)
		}
	}
	if len(rows) == 0 || classified == 0 {
		t.Errorf("leaderboard shows %d rows, %d with a cause", len(rows), classified)
	}
}

// serve --bill: the idle view's Bill reconciliation panel shows the
// API's reconciliation to the cent (every figure, and the orphan
// instance billed but not in the cluster), and /metrics exports the same
// matched and unmatched dollars.
func TestBillReconciliationPanel(t *testing.T) {
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
	d, err := newDemo(prices, false)
	if err != nil {
		t.Fatal(err)
	}
	const src = "api/v1/report?by=workload&top=50&limit=0" // the idle view reads the leaderboard, not the rows
	rc, ok := d.answer(t, src).(map[string]any)["reconciliation"].(map[string]any)
	if !ok {
		t.Fatal("the served report has no reconciliation")
	}
	for _, size := range []struct {
		name          string
		width, height int64
		mobile        bool
	}{{"laptop", 1366, 768, false}, {"phone", 390, 844, true}} {
		t.Run(size.name, func(t *testing.T) {
			tb := newTab(t, size.width, size.height, size.mobile)
			d.failed.reset()
			tb.open(t, d.url+"/?view=idle")
			figs := eval[[]figure](t, tb, `[...document.querySelectorAll("#bill [data-path]")].map(e => ({src: e.dataset.src, path: e.dataset.path, unit: e.dataset.unit, text: e.textContent}))`)
			shown := map[string]bool{}
			for _, f := range figs {
				want, ok := lookup(d.answer(t, f.Src), f.Path)
				if !ok || f.Src != src {
					t.Errorf("%s %s: not the report's reconciliation (shown %q)", f.Src, f.Path, f.Text)
					continue
				}
				if f.Unit == "usd" {
					if w, ok := want.(float64); !ok || f.Text != usdText(w) {
						t.Errorf("%s: page shows %q, API has %v (to the cent: %s)", f.Path, f.Text, want, usdText(w))
					}
				} else if msg := compare(f.Text, f.Unit, want); msg != "" {
					t.Errorf("%s: %s", f.Path, msg)
				}
				shown[f.Path] = true
			}
			for _, k := range []string{"bill_usd", "matched_usd", "gpuwise_matched_usd", "difference_usd", "unmatched_bill_usd", "cpu_nodes_usd",
				"unbilled_node_usd", "commitment_coverage", "committed_usd", "unused_commitment_usd", "unmatched_gpu_lines.0.usd"} {
				if !shown["reconciliation."+k] {
					t.Errorf("the panel does not show reconciliation.%s", k)
				}
			}
			if txt := tb.text(t, "#bill"); !strings.Contains(txt, sim.OrphanInstance) {
				t.Errorf("the panel does not name the orphan instance %s:\n%s", sim.OrphanInstance, txt)
			}
			if w, vw := fits(t, tb); w > vw {
				t.Errorf("page is %d px wide in a %d px viewport", w, vw)
			}
			screenshot(t, tb, size.name+"-bill")
			if p := tb.problems(); len(p) > 0 {
				t.Errorf("console: %v", p)
			}
			if f := d.failed.list(); len(f) > 0 {
				t.Errorf("failed requests: %v", f)
			}
		})
	}
	resp, err := http.Get(d.url + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	metric := func(name string) float64 {
		for _, line := range strings.Split(string(body), "\n") {
			if v, ok := strings.CutPrefix(line, name+" "); ok {
				f, err := strconv.ParseFloat(v, 64)
				if err != nil {
					t.Fatalf("%s: %v", line, err)
				}
				return f
			}
		}
		t.Fatalf("/metrics has no %s", name)
		return 0
	}
	for kind, field := range map[string]string{"matched": "matched_usd", "unmatched": "unmatched_bill_usd", "bill": "bill_usd"} {
		got, want := metric(`gpuwise_window_bill_usd{cluster="default",kind="`+kind+`"}`), rc[field].(float64)
		if math.Round(got*100) != math.Round(want*100) {
			t.Errorf("/metrics bill %s $%.4f, the API's %s $%.4f", kind, got, field, want)
		}
	}
	if got, want := metric(`gpuwise_window_bill_unmatched_gpu_instances{cluster="default"}`), len(rc["unmatched_gpu_lines"].([]any)); got != float64(want) || want == 0 {
		t.Errorf("/metrics unmatched GPU instances %v, the API lists %d", got, want)
	}
}

// usdText is dollars as the dashboard shows them: $1,234.56.
func usdText(v float64) string {
	neg := v < 0
	s := strconv.FormatFloat(math.Abs(math.Round(v*100)/100), 'f', 2, 64)
	whole, frac, _ := strings.Cut(s, ".")
	var b strings.Builder
	for i, c := range whole {
		if i > 0 && (len(whole)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	out := "$" + b.String() + "." + frac
	if neg {
		out = "-" + out
	}
	return out
}
