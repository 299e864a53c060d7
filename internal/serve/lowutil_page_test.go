package serve_test

import (
	"bytes"
	"context"
	"encoding/json"
	"net/url"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/gpuwise/gpuwise/internal/app"
	"github.com/gpuwise/gpuwise/internal/cost"
	"github.com/gpuwise/gpuwise/internal/serve"
)

// pagedLowUtil is the part of a (paged) history/low-util answer the
// paging checks read.
type pagedLowUtil struct {
	From     string          `json:"from"`
	To       string          `json:"to"`
	Coverage json.RawMessage `json:"coverage"`
	LowUtil  struct {
		Units []json.RawMessage `json:"units"`
		USD   float64           `json:"usd"`
	} `json:"low_utilization"`
	Page *cost.LowUtilPage `json:"page"`
}

// A page of the history's low-utilization list is the whole list's units
// from offset, byte for byte, in its order; its page counts the whole
// list's units and their dollars, which are the list's usd exactly on
// every page; the range, coverage and the list's usd stay the whole
// answer's (a page never changes a total). Without offset, limit or
// namespace the answer has no page.
func TestHistoryLowUtilPagesReconcile(t *testing.T) {
	t.Parallel()
	in := demo(t)
	const base = "/api/v1/history/low-util?low-util=30%25%3A1h"
	var all pagedLowUtil
	getJSON(t, in, base, &all)
	if all.Page != nil {
		t.Fatalf("the whole list has a page: %+v", all.Page)
	}
	if len(all.LowUtil.Units) < 6 {
		t.Fatalf("the demo's list has %d units: too few to page", len(all.LowUtil.Units))
	}
	const limit = 4
	seen := 0
	for off := 0; off < len(all.LowUtil.Units); off += limit {
		var p pagedLowUtil
		getJSON(t, in, base+"&limit=4&offset="+strconv.Itoa(off), &p)
		want := all.LowUtil.Units[off:min(len(all.LowUtil.Units), off+limit)]
		if !reflect.DeepEqual(p.LowUtil.Units, want) {
			t.Errorf("offset %d: %d units, not the list's %d from there", off, len(p.LowUtil.Units), len(want))
		}
		seen += len(p.LowUtil.Units)
		if p.Page == nil || p.Page.Units != len(all.LowUtil.Units) || p.Page.Offset != off || p.Page.Limit != limit {
			t.Fatalf("offset %d: page %+v, want %d units in all", off, p.Page, len(all.LowUtil.Units))
		}
		if p.Page.USD != all.LowUtil.USD || p.LowUtil.USD != all.LowUtil.USD || p.From != all.From || p.To != all.To ||
			!bytes.Equal(p.Coverage, all.Coverage) {
			t.Errorf("offset %d: page $%v, list $%v, %s–%s; the whole list's $%v, %s–%s", off, p.Page.USD, p.LowUtil.USD,
				p.From, p.To, all.LowUtil.USD, all.From, all.To)
		}
	}
	if seen != len(all.LowUtil.Units) {
		t.Errorf("the pages hold %d units, the list %d", seen, len(all.LowUtil.Units))
	}
	var none pagedLowUtil
	getJSON(t, in, base+"&limit=0", &none)
	if len(none.LowUtil.Units) != 0 || none.Page == nil || none.Page.Units != len(all.LowUtil.Units) {
		t.Errorf("limit=0: %d units, page %+v", len(none.LowUtil.Units), none.Page)
	}
}

// namespace keeps the units a workload of that namespace held: each
// namespace's page holds exactly the whole list's units with such a
// holder, in the list's order, and their dollars; a unit no pod held is
// in no namespace.
func TestHistoryLowUtilNamespaceIsItsHoldersUnits(t *testing.T) {
	t.Parallel()
	in := demo(t)
	var all app.HistoryLowUtil
	getJSON(t, in, "/api/v1/history/low-util?low-util=30%25%3A1h", &all)
	byNS := map[string][]cost.LowUtilUnit{}
	for _, u := range all.LowUtilization.Units {
		added := map[string]bool{}
		for _, h := range u.Holders {
			ns, _, _ := strings.Cut(h, "/")
			if !added[ns] {
				byNS[ns], added[ns] = append(byNS[ns], u), true
			}
		}
	}
	if len(byNS) < 2 {
		t.Fatalf("the list's units are held in %d namespaces: too few to filter", len(byNS))
	}
	for ns, want := range byNS {
		var p app.HistoryLowUtil
		getJSON(t, in, "/api/v1/history/low-util?"+url.Values{"low-util": {"30%:1h"}, "namespace": {ns}, "limit": {"500"}}.Encode(), &p)
		if !reflect.DeepEqual(p.LowUtilization.Units, want) {
			t.Errorf("namespace %s: %d units, want the list's %d held there", ns, len(p.LowUtilization.Units), len(want))
		}
		var usd float64
		for _, u := range want {
			if u.USD != nil {
				usd += *u.USD
			}
		}
		if p.Page == nil || p.Page.Namespace != ns || p.Page.Units != len(want) || p.Page.USD != usd ||
			p.LowUtilization.USD != all.LowUtilization.USD {
			t.Errorf("namespace %s: page %+v, list $%v; want %d units $%v, the list's $%v", ns, p.Page, p.LowUtilization.USD, len(want), usd, all.LowUtilization.USD)
		}
	}
}

// The answers the dashboard's idle view asks for first and the cycle does
// not build are computed for the state before it is published: a new
// service holds them before any request, and they are the answers
// computed apart: the history's page the list app.History.LowUtil reads
// paged, byte for byte, and the report's page the one a request the
// cache does not hold computes (low-util=30% is 30%:6h).
func TestTheFirstAnswersArePreparedBeforeTheStateIsPublished(t *testing.T) {
	t.Parallel()
	in := startWith(t, demoOptions(), time.Now, nil, nil)
	svc := in.svc
	for _, a := range serve.PreparedAnswers(serve.DefaultHistoryLabels()) {
		if !serve.Prepared(svc, a.Request) {
			t.Errorf("%s: not prepared for the published state", a.Request)
		}
	}
	st := svc.State()
	list, err := serve.HistoryOf(svc).LowUtil(context.Background(), app.HistoryLowUtilRequest{From: st.Window.Start, To: st.Window.End, Cluster: demoOptions().Cluster})
	if err != nil {
		t.Fatal(err)
	}
	page, err := app.PagedHistoryLowUtil(list, app.ReportPage{Offset: 0, Limit: 50})
	if err != nil {
		t.Fatal(err)
	}
	want, err := json.MarshalIndent(page, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	if got := mustGet(t, in, "/api/v1/history/low-util?offset=0&limit=50"); !bytes.Equal(got, append(want, '\n')) {
		t.Errorf("the prepared history page is not the list read apart and paged:\n%.400s\nwant\n%.400s", got, want)
	}
	prepared := mustGet(t, in, "/api/v1/report?low-util=30%25%3A6h&offset=0&limit=50")
	if apart := mustGet(t, in, "/api/v1/report?low-util=30%25&offset=0&limit=50"); !bytes.Equal(prepared, apart) {
		t.Errorf("the prepared report page (%d bytes) is not the one computed on request (%d bytes)", len(prepared), len(apart))
	}
	// the showback and costs-by-workload pages: the same bytes as the
	// service computes on request (output=json is the default format,
	// another question to the cache)
	for _, u := range []string{"/api/v1/showback?by=label%3Ateam&idle-share=cluster", "/api/v1/report?by=workload&limit=50&offset=0", "/api/v1/report?by=workload&limit=0&top=50"} {
		if got, want := mustGet(t, in, u), mustGet(t, in, u+"&output=json"); !bytes.Equal(got, want) {
			t.Errorf("%s: the prepared answer (%d bytes) is not the one computed on request (%d bytes)", u, len(got), len(want))
		}
	}
}
