package serve_test

import (
	"encoding/json"
	"maps"
	"math"
	"net/http"
	"net/url"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// pagedReport is the part of a (paged) report the paging checks read.
type pagedReport struct {
	Totals struct {
		Total float64 `json:"total_cost_usd"`
	} `json:"totals"`
	Rows []json.RawMessage `json:"rows"`
	Page *struct {
		Namespace string `json:"namespace"`
		Offset    int    `json:"offset"`
		Limit     int    `json:"limit"`
		Rows      int    `json:"rows"`
		Sum       struct {
			Total   float64 `json:"total_cost_usd"`
			GPUCost struct {
				Active float64 `json:"active"`
			} `json:"gpu_cost_usd"`
		} `json:"sum"`
		LowUtilUnits *int `json:"low_utilization_units"`
	} `json:"page"`
	LowUtil *struct {
		Units []json.RawMessage `json:"units"`
		USD   float64           `json:"usd"`
	} `json:"low_utilization"`
}

func keyOf(t *testing.T, raw json.RawMessage) string {
	t.Helper()
	var r struct {
		Key string `json:"key"`
	}
	if err := json.Unmarshal(raw, &r); err != nil {
		t.Fatal(err)
	}
	return r.Key
}

// A page of the report is the whole report's rows from offset, byte for
// byte, in its order; its page says how many rows there are in all and
// their sum, which is the totals' to the cent on every page (a page never
// changes a total); without offset, limit or namespace the report has no
// page (the CLI's answer, TestAPIAnswersTheCLIsOutput).
func TestReportPagesReconcile(t *testing.T) {
	t.Parallel()
	in := demo(t)
	var all pagedReport
	getJSON(t, in, "/api/v1/report?by=workload", &all)
	if all.Page != nil {
		t.Fatalf("the unpaged report has a page: %+v", all.Page)
	}
	if len(all.Rows) < 6 {
		t.Fatalf("the demo has %d workload rows: too few to page", len(all.Rows))
	}
	const limit = 4
	seen := 0
	for off := 0; off < len(all.Rows); off += limit {
		var p pagedReport
		getJSON(t, in, "/api/v1/report?by=workload&limit=4&offset="+strconv.Itoa(off), &p)
		want := all.Rows[off:min(len(all.Rows), off+limit)]
		if !reflect.DeepEqual(p.Rows, want) {
			t.Errorf("offset %d: rows %d, not the report's %d from there", off, len(p.Rows), len(want))
		}
		seen += len(p.Rows)
		if p.Page == nil || p.Page.Rows != len(all.Rows) || p.Page.Offset != off || p.Page.Limit != limit {
			t.Fatalf("offset %d: page %+v, want rows %d", off, p.Page, len(all.Rows))
		}
		if math.Abs(p.Page.Sum.Total-all.Totals.Total) > 0.005 || p.Totals.Total != all.Totals.Total {
			t.Errorf("offset %d: sum %.4f, totals %.4f; the report's totals %.4f", off, p.Page.Sum.Total, p.Totals.Total, all.Totals.Total)
		}
	}
	if seen != len(all.Rows) {
		t.Errorf("the pages hold %d rows, the report %d", seen, len(all.Rows))
	}
	var none pagedReport
	getJSON(t, in, "/api/v1/report?by=workload&limit=0", &none)
	if len(none.Rows) != 0 || none.Page == nil || none.Page.Rows != len(all.Rows) {
		t.Errorf("limit=0: %d rows, page %+v", len(none.Rows), none.Page)
	}
}

// namespace keeps one namespace's rows: grouped by workload, its
// workloads' rows, whose sum is the namespace's row of the report by
// namespace to the cent; grouped by pod, its pods'; never the
// unallocated row.
func TestReportNamespaceFilterIsTheNamespacesRow(t *testing.T) {
	t.Parallel()
	in := demo(t)
	var byNS struct {
		Rows []struct {
			Key   string  `json:"key"`
			Total float64 `json:"total_cost_usd"`
		} `json:"rows"`
	}
	getJSON(t, in, "/api/v1/report", &byNS)
	checked := 0
	for _, ns := range byNS.Rows {
		if ns.Key == "__unallocated__" {
			continue
		}
		for _, by := range []string{"workload", "pod", "namespace"} {
			var p pagedReport
			getJSON(t, in, "/api/v1/report?"+url.Values{"by": {by}, "namespace": {ns.Key}, "limit": {"500"}}.Encode(), &p)
			if p.Page == nil || p.Page.Namespace != ns.Key || p.Page.Rows != len(p.Rows) || len(p.Rows) == 0 {
				t.Fatalf("by %s namespace %s: %d rows, page %+v", by, ns.Key, len(p.Rows), p.Page)
			}
			for _, raw := range p.Rows {
				if k := keyOf(t, raw); k != ns.Key && !strings.HasPrefix(k, ns.Key+"/") {
					t.Errorf("by %s namespace %s: row %s", by, ns.Key, k)
				}
			}
			if math.Abs(p.Page.Sum.Total-ns.Total) > 0.005 {
				t.Errorf("by %s namespace %s: sum %.4f, the namespace's row %.4f", by, ns.Key, p.Page.Sum.Total, ns.Total)
			}
		}
		checked++
	}
	if checked < 2 {
		t.Fatalf("%d namespaces checked", checked)
	}
}

// The low-utilization list pages with the rows: the page's units are the
// list's from offset, the count is the whole list's and its dollars stay
// the whole list's.
func TestReportPagesTheLowUtilList(t *testing.T) {
	t.Parallel()
	in := demo(t)
	var all, p pagedReport
	getJSON(t, in, "/api/v1/report?low-util=30%25%3A1h", &all)
	if all.LowUtil == nil || len(all.LowUtil.Units) < 2 {
		t.Fatalf("the demo's low-utilization list is too short to page: %+v", all.LowUtil)
	}
	getJSON(t, in, "/api/v1/report?low-util=30%25%3A1h&offset=1&limit=1", &p)
	if p.LowUtil == nil || !reflect.DeepEqual(p.LowUtil.Units, all.LowUtil.Units[1:2]) || p.LowUtil.USD != all.LowUtil.USD {
		t.Errorf("offset 1 limit 1: units %v, usd %v; want the list's second of %d, usd %v", p.LowUtil, p.LowUtil.USD, len(all.LowUtil.Units), all.LowUtil.USD)
	}
	if p.Page == nil || p.Page.LowUtilUnits == nil || *p.Page.LowUtilUnits != len(all.LowUtil.Units) {
		t.Errorf("page %+v: want %d units in all", p.Page, len(all.LowUtil.Units))
	}
}

// recommend pages each list and keeps the workloads asked for; the
// savings stay the whole answer's.
func TestRecommendPages(t *testing.T) {
	t.Parallel()
	in := demo(t)
	type rec struct {
		GPU []struct {
			Workload string `json:"workload"`
		} `json:"gpu"`
		Containers []json.RawMessage `json:"containers"`
		Savings    float64           `json:"monthly_savings_usd"`
		Page       *struct {
			GPU        int `json:"gpu"`
			Containers int `json:"containers"`
		} `json:"page"`
	}
	var all, first, some rec
	getJSON(t, in, "/api/v1/recommend", &all)
	if all.Page != nil || len(all.GPU) < 3 || len(all.Containers) < 3 {
		t.Fatalf("the whole answer: page %+v, %d gpu, %d containers", all.Page, len(all.GPU), len(all.Containers))
	}
	getJSON(t, in, "/api/v1/recommend?limit=2", &first)
	if len(first.GPU) != 2 || first.GPU[1] != all.GPU[1] || !reflect.DeepEqual(first.Containers, all.Containers[:2]) ||
		first.Page == nil || first.Page.GPU != len(all.GPU) || first.Page.Containers != len(all.Containers) || first.Savings != all.Savings {
		t.Errorf("limit=2: %d gpu, page %+v, savings %v (want %d, %d, %v)", len(first.GPU), first.Page, first.Savings, len(all.GPU), len(all.Containers), all.Savings)
	}
	w := all.GPU[2].Workload
	getJSON(t, in, "/api/v1/recommend?"+url.Values{"workload": {w + "," + all.GPU[0].Workload}}.Encode(), &some)
	for _, g := range some.GPU {
		if g.Workload != w && g.Workload != all.GPU[0].Workload {
			t.Errorf("workload filter: %s", g.Workload)
		}
	}
	if len(some.GPU) < 2 {
		t.Errorf("workload filter: %d gpu entries, want both workloads'", len(some.GPU))
	}
}

// Bad paging parameters are 400s naming the parameter, on every endpoint
// that pages.
func TestPagingParametersAreValidated(t *testing.T) {
	t.Parallel()
	in := demo(t)
	for _, c := range []struct{ q, want string }{
		{"/api/v1/report?by=workload&limit=501", "limit: 501 is not in 0..500"},
		{"/api/v1/report?by=workload&limit=-1", "limit: -1"},
		{"/api/v1/report?by=workload&offset=-3", "offset: -3 is negative"},
		{"/api/v1/report?by=workload&offset=x", "is not a whole number"},
		{"/api/v1/report?by=node&namespace=inference", "namespace: filters rows grouped by namespace, workload or pod, not by node"},
		{"/api/v1/report?by=workload&namespace=a%2Fb", "is a namespace's name, without /"},
		{"/api/v1/history/low-util?limit=501", "limit: 501 is not in 0..500"},
		{"/api/v1/history/low-util?offset=-1&limit=-2", "offset: -1 is negative; limit: -2 is not in 0..500"},
		{"/api/v1/history/low-util?offset=x", "is not a whole number"},
		{"/api/v1/history/low-util?namespace=a%2Fb", "a namespace's name, without /"},
		{"/api/v1/audit?namespace=a%2Fb", "namespace: \\\"a/b\\\" is a namespace's name, without /"},
		{"/api/v1/recommend?limit=9999", "limit: 9999 is not in 0..500"},
		{"/api/v1/recommend?workload=nope", "is not namespace/Kind/name"},
		{"/api/v1/recommend?workload=a/B/c&namespace=a", "give workload or namespace, not both"},
	} {
		code, _, body := in.get(t, c.q)
		if code != http.StatusBadRequest || !strings.Contains(string(body), c.want) {
			t.Errorf("%s: %d %s; want 400 with %q", c.q, code, body, c.want)
		}
	}
}

// audit?namespace keeps the whole audit's findings on that namespace's
// objects, in its order; the summary stays the whole audit's and page
// counts and prices what it kept. A namespace with no finding answers an
// empty list, not the whole audit.
func TestAuditNamespaceKeepsItsFindings(t *testing.T) {
	t.Parallel()
	in := demo(t)
	var whole, part struct {
		Findings []struct {
			Object     string   `json:"object"`
			MonthlyUSD *float64 `json:"monthly_usd"`
		} `json:"findings"`
		Summary json.RawMessage `json:"summary"`
		Page    *struct {
			Namespace  string  `json:"namespace"`
			Findings   int     `json:"findings"`
			MonthlyUSD float64 `json:"monthly_usd"`
		} `json:"page"`
	}
	if err := json.Unmarshal(mustGet(t, in, "/api/v1/audit"), &whole); err != nil {
		t.Fatal(err)
	}
	counts := map[string]int{}
	for _, f := range whole.Findings {
		if _, o, ok := strings.Cut(f.Object, " "); ok {
			ns, _, _ := strings.Cut(o, "/")
			counts[ns]++
		}
	}
	if len(counts) < 2 {
		t.Fatalf("the demo's audit has findings in %d namespaces; the test needs two", len(counts))
	}
	for _, ns := range append(slices.Sorted(maps.Keys(counts)), "no-such-namespace") {
		if err := json.Unmarshal(mustGet(t, in, "/api/v1/audit?namespace="+ns), &part); err != nil {
			t.Fatal(err)
		}
		var want []string
		usd := 0.0
		for _, f := range whole.Findings {
			if strings.HasPrefix(f.Object, strings.SplitN(f.Object, " ", 2)[0]+" "+ns+"/") {
				want = append(want, f.Object)
				if f.MonthlyUSD != nil {
					usd += *f.MonthlyUSD
				}
			}
		}
		var got []string
		for _, f := range part.Findings {
			got = append(got, f.Object)
		}
		if !slices.Equal(got, want) || len(got) != counts[ns] {
			t.Errorf("%s: findings %v, want %v", ns, got, want)
		}
		if part.Page == nil || part.Page.Namespace != ns || part.Page.Findings != len(want) || math.Abs(part.Page.MonthlyUSD-usd) > 1e-6 {
			t.Errorf("%s: page %+v, want %d findings, $%.2f", ns, part.Page, len(want), usd)
		}
		if string(part.Summary) != string(whole.Summary) {
			t.Errorf("%s: summary %s, want the whole audit's %s", ns, part.Summary, whole.Summary)
		}
	}
}
