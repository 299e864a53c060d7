package serve_test

import (
	"encoding/json"
	"math"
	"net/http"
	"net/url"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/gpuwise/gpuwise/internal/app"
)

// podRow is the part of a report's pod row the drill-down reads.
type podRow struct {
	Key      string   `json:"key"`
	Workload string   `json:"workload"`
	GPUUnits []string `json:"gpu_units"`
	GPUCost  struct {
		Active        float64 `json:"active"`
		AllocatedIdle float64 `json:"allocated_idle"`
		Unmeasured    float64 `json:"unmeasured"`
	} `json:"gpu_cost_usd"`
	Total float64 `json:"total_cost_usd"`
}

// /api/v1/pods is a page of report?by=pod: the same rows, byte for byte
// as JSON, those of the workload asked for, in the report's order; the
// sum of every matched pod is the workload's row of report?by=workload
// to the cent; offset and limit page; bad parameters are 400s naming
// them.
func TestPodsAreTheReportsPodRows(t *testing.T) {
	t.Parallel()
	in := demo(t)
	var byPod struct {
		Rows []json.RawMessage `json:"rows"`
	}
	getJSON(t, in, "/api/v1/report?by=pod", &byPod)
	var byWorkload struct {
		Rows []struct {
			Key   string  `json:"key"`
			Pods  int     `json:"pods"`
			Total float64 `json:"total_cost_usd"`
		} `json:"rows"`
	}
	getJSON(t, in, "/api/v1/report?by=workload", &byWorkload)
	rowsOf := map[string][]json.RawMessage{}
	for _, raw := range byPod.Rows {
		var r podRow
		if err := json.Unmarshal(raw, &r); err != nil {
			t.Fatal(err)
		}
		if r.Key == "__unallocated__" {
			if r.Workload != "" || len(r.GPUUnits) != 0 {
				t.Errorf("the unallocated row names a workload %q or units %v", r.Workload, r.GPUUnits)
			}
			continue
		}
		if strings.Count(r.Workload, "/") != 2 || !strings.HasPrefix(r.Workload, strings.Split(r.Key, "/")[0]+"/") {
			t.Errorf("pod %s: workload %q is not namespace/Kind/name of its namespace", r.Key, r.Workload)
		}
		rowsOf[r.Workload] = append(rowsOf[r.Workload], raw)
	}
	checked := 0
	for _, w := range byWorkload.Rows {
		if w.Key == "__unallocated__" {
			continue
		}
		var page app.PodPage
		var raw struct {
			Rows []json.RawMessage `json:"rows"`
		}
		path := "/api/v1/pods?" + url.Values{"workload": {w.Key}, "limit": {"500"}}.Encode()
		getJSON(t, in, path, &page)
		getJSON(t, in, path, &raw)
		want := rowsOf[w.Key]
		if page.Matched != len(want) || page.Matched != w.Pods || len(raw.Rows) != len(want) {
			t.Errorf("%s: %d matched, %d rows; the report has %d pod rows and says %d pods", w.Key, page.Matched, len(raw.Rows), len(want), w.Pods)
			continue
		}
		for i := range want {
			if !jsonEqual(t, raw.Rows[i], want[i]) {
				t.Errorf("%s: row %d is\n%s\nthe report's\n%s", w.Key, i, raw.Rows[i], want[i])
			}
		}
		if toCents(page.Sum.Total) != toCents(w.Total) {
			t.Errorf("%s: its pods sum to $%.2f, its row of the report by workload is $%.2f", w.Key, page.Sum.Total, w.Total)
		}
		checked++
	}
	if checked < 5 {
		t.Fatalf("only %d workloads checked", checked)
	}
	t.Logf("%d workloads: their pods are the report's pod rows and sum to their rows to the cent", checked)

	// paging: offset 1, limit 1 is the second row
	wl := ""
	for k, rows := range rowsOf {
		if len(rows) >= 3 && (wl == "" || k < wl) {
			wl = k
		}
	}
	if wl == "" {
		t.Fatal("no workload of the demo has 3 pods")
	}
	var page struct {
		Matched int               `json:"matched"`
		Offset  int               `json:"offset"`
		Limit   int               `json:"limit"`
		Rows    []json.RawMessage `json:"rows"`
	}
	getJSON(t, in, "/api/v1/pods?"+url.Values{"workload": {wl}, "offset": {"1"}, "limit": {"1"}}.Encode(), &page)
	if page.Matched != len(rowsOf[wl]) || page.Offset != 1 || page.Limit != 1 || len(page.Rows) != 1 || !jsonEqual(t, page.Rows[0], rowsOf[wl][1]) {
		t.Errorf("%s offset 1 limit 1: %+v", wl, page)
	}
	var one struct {
		Matched int               `json:"matched"`
		Rows    []json.RawMessage `json:"rows"`
	}
	var second podRow
	if err := json.Unmarshal(rowsOf[wl][1], &second); err != nil {
		t.Fatal(err)
	}
	getJSON(t, in, "/api/v1/pods?"+url.Values{"workload": {wl}, "pod": {second.Key}}.Encode(), &one)
	if one.Matched != 1 || len(one.Rows) != 1 || !jsonEqual(t, one.Rows[0], rowsOf[wl][1]) {
		t.Errorf("%s pod %s: %+v", wl, second.Key, one)
	}
	var ns app.PodPage
	getJSON(t, in, "/api/v1/pods?namespace=inference&limit=500", &ns)
	n := 0
	for k, rows := range rowsOf {
		if strings.HasPrefix(k, "inference/") {
			n += len(rows)
		}
	}
	if ns.Matched != n || n == 0 {
		t.Errorf("namespace inference: %d matched, the report has %d pod rows in it", ns.Matched, n)
	}
	for _, c := range []struct{ q, want string }{
		{"limit=0", "limit: 0"},
		{"limit=501", "limit: 501"},
		{"offset=-1", "offset: -1"},
		{"pod=a/b/c", "is not namespace/name"},
		{"workload=chat-llm", "is not namespace/Kind/name"},
		{"workload=a/B/c&namespace=a", "namespace: give workload or namespace"},
		{"range=48h", "range: 48h is not this service's window"},
	} {
		code, _, body := in.get(t, "/api/v1/pods?"+c.q)
		if code != http.StatusBadRequest || !strings.Contains(string(body), c.want) {
			t.Errorf("pods?%s: %d %s; want 400 with %q", c.q, code, body, c.want)
		}
	}
}

func jsonEqual(t *testing.T, a, b json.RawMessage) bool {
	t.Helper()
	var x, y any
	if err := json.Unmarshal(a, &x); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &y); err != nil {
		t.Fatal(err)
	}
	return reflect.DeepEqual(x, y)
}

// /api/v1/history/unit is one GPU unit's hours from the history: each
// hour's dollars add up from its split, the totals are the hours' sums,
// and over the service's window the units a workload held alone cost,
// held, what the report's row of that workload says its GPUs cost: the
// unit level reaches the workload's dollars to the cent.
func TestUnitHistoryReachesTheWorkloadsDollars(t *testing.T) {
	t.Parallel()
	in := demo(t)
	var byPod struct {
		Rows []podRow `json:"rows"`
	}
	getJSON(t, in, "/api/v1/report?by=pod", &byPod)
	var byWorkload struct {
		Rows []podRow `json:"rows"`
	}
	getJSON(t, in, "/api/v1/report?by=workload", &byWorkload)
	unitsOf := map[string][]string{}
	for _, r := range byPod.Rows {
		for _, u := range r.GPUUnits {
			if !slices.Contains(unitsOf[r.Workload], u) {
				unitsOf[r.Workload] = append(unitsOf[r.Workload], u)
			}
		}
	}
	units := map[string]*app.HistoryUnit{}
	for _, us := range unitsOf {
		for _, u := range us {
			if units[u] != nil {
				continue
			}
			var h app.HistoryUnit
			getJSON(t, in, "/api/v1/history/unit?"+url.Values{"unit": {u}}.Encode(), &h)
			units[u] = &h
			checkUnitArithmetic(t, &h)
		}
	}
	checked := 0
	for _, w := range byWorkload.Rows {
		us := unitsOf[w.Key]
		if len(us) == 0 {
			continue
		}
		alone := true
		var held float64
		for _, u := range us {
			h := units[u]
			if !reflect.DeepEqual(h.Holders, []string{w.Key}) || h.Total.USD == nil {
				alone = false
				break
			}
			held += *h.Total.ActiveUSD + *h.Total.IdleUSD + *h.Total.UnmeasuredUSD
		}
		if !alone {
			continue
		}
		want := w.GPUCost.Active + w.GPUCost.AllocatedIdle + w.GPUCost.Unmeasured
		if toCents(held) != toCents(want) {
			t.Errorf("%s: its %d GPU units cost $%.4f held over the window; its report row's GPUs $%.4f", w.Key, len(us), held, want)
		}
		checked++
	}
	if checked < 3 {
		t.Fatalf("only %d workloads held their units alone", checked)
	}
	t.Logf("%d workloads: their units' held dollars from the history equal their report rows' GPU dollars to the cent (%d units read)", checked, len(units))

	var none app.HistoryUnit
	getJSON(t, in, "/api/v1/history/unit?unit=no-such-node/gpu0", &none)
	if len(none.Hours) != 0 || len(none.Notes) == 0 || none.Total.USD != nil {
		t.Errorf("an unknown unit: %d hours, notes %v, $%v", len(none.Hours), none.Notes, none.Total.USD)
	}
	for _, c := range []struct{ q, want string }{
		{"", "unit: required"},
		{"unit=x&range=100d", "is not a range"},
		{"unit=x&from=2026-11-05T00:00:00Z&to=2026-11-04T00:00:00Z", "is not after from"},
	} {
		code, _, body := in.get(t, "/api/v1/history/unit?"+c.q)
		if code != http.StatusBadRequest || !strings.Contains(string(body), c.want) {
			t.Errorf("history/unit?%s: %d %s; want 400 with %q", c.q, code, body, c.want)
		}
	}
}

// checkUnitArithmetic: every hour's dollars are its split's sum and its
// hours at its rate; the totals are the hours' sums.
func checkUnitArithmetic(t *testing.T, h *app.HistoryUnit) {
	t.Helper()
	if len(h.Hours) == 0 || h.Coverage.Cycles == 0 {
		t.Errorf("unit %s: %d hours, %d cycles", h.Unit, len(h.Hours), h.Coverage.Cycles)
		return
	}
	near := func(a, b float64) bool { return math.Abs(a-b) <= 1e-9*(1+math.Abs(b)) }
	var usd, active, life float64
	for _, hr := range h.Hours {
		life += hr.LifeHours
		if hr.USD == nil {
			continue
		}
		if split := *hr.ActiveUSD + *hr.IdleUSD + *hr.UnmeasuredUSD + *hr.UnallocatedUSD; !near(split, *hr.USD) {
			t.Errorf("unit %s %s: split $%v, usd $%v", h.Unit, hr.Bucket, split, *hr.USD)
		}
		if hr.GPUUSDPerHour != nil && !near(*hr.USD, *hr.GPUUSDPerHour*h.Fraction*(hr.HeldHours+hr.UnheldHours)) {
			t.Errorf("unit %s %s: $%v is not %v/h × %v × %v h", h.Unit, hr.Bucket, *hr.USD, *hr.GPUUSDPerHour, h.Fraction, hr.HeldHours+hr.UnheldHours)
		}
		usd += *hr.USD
		active += *hr.ActiveUSD
	}
	if !near(h.Total.LifeHours, life) {
		t.Errorf("unit %s: %v hours in all, the hours sum to %v", h.Unit, h.Total.LifeHours, life)
	}
	if h.Total.USD == nil { // an unpriced node's unit: no dollars, its hours said
		if h.Total.UnpricedHours != life || len(h.Notes) == 0 {
			t.Errorf("unit %s: no dollars, %v unpriced hours of %v, notes %v", h.Unit, h.Total.UnpricedHours, life, h.Notes)
		}
		return
	}
	if !near(*h.Total.USD, usd) || !near(*h.Total.ActiveUSD, active) {
		t.Errorf("unit %s: totals %+v, the hours sum to $%v (active $%v), %v h", h.Unit, h.Total, usd, active, life)
	}
}
