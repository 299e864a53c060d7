//go:build integration

package grafana

import (
	"encoding/json"
	"math"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/gpuwise/gpuwise/internal/grafana"
)

// value is a PromQL instant query's single value (NaN when it has none
// or several).
func value(t *testing.T, base, q string) float64 {
	t.Helper()
	resp, err := http.Get(base + "/api/v1/query?query=" + url.QueryEscape(q))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var r struct {
		Data struct {
			Result []struct{ Value [2]any }
		}
	}
	if err := json.NewDecoder(resp.Body).Decode(&r); err != nil || len(r.Data.Result) != 1 {
		return math.NaN()
	}
	v, _ := strconv.ParseFloat(r.Data.Result[0].Value[1].(string), 64)
	return v
}

// TestHeadlinePanelsAgreeWithTheAPI (issue 26.6): on the same data (a
// real Prometheus scraping serve --demo), each headline panel's query
// answers the number the API's report carries under the same name: Spend
// in the window is totals.total_cost_usd (the dashboard card's), Unused
// GPU cost the allocated-idle plus unallocated GPU dollars, GPU
// utilization of provisioned and Usage coverage the report's ratios, to
// the cent or to 1e-9.
func TestHeadlinePanelsAgreeWithTheAPI(t *testing.T) {
	target := demoService(t)
	base := startPrometheus(t, target)
	deadline := time.Now().Add(90 * time.Second)
	for instant(t, base, `count_over_time(up{job="gpuwise"}[1m]) >= 2`) == 0 {
		if time.Now().After(deadline) {
			t.Fatal("prometheus did not scrape gpuwise in 90 s")
		}
		time.Sleep(time.Second)
	}
	resp, err := http.Get("http://" + target + "/api/v1/report")
	if err != nil {
		t.Fatal(err)
	}
	var rep struct {
		Totals struct {
			Total   float64 `json:"total_cost_usd"`
			GPUCost struct {
				Idle        float64 `json:"allocated_idle"`
				Unallocated float64 `json:"unallocated"`
			} `json:"gpu_cost_usd"`
			Utilization *float64 `json:"gpu_utilization_of_provisioned"`
			Measured    *float64 `json:"measured_share"`
		} `json:"totals"`
	}
	err = json.NewDecoder(resp.Body).Decode(&rep)
	resp.Body.Close()
	if err != nil || rep.Totals.Utilization == nil || rep.Totals.Measured == nil {
		t.Fatalf("report: %v %+v", err, rep.Totals)
	}
	want := map[string]struct {
		v   float64
		tol float64
	}{
		"Spend in the window":            {rep.Totals.Total, 0.005},
		"Unused GPU cost":                {rep.Totals.GPUCost.Idle + rep.Totals.GPUCost.Unallocated, 0.005},
		"GPU utilization of provisioned": {*rep.Totals.Utilization, 1e-9},
		"Usage coverage":                 {*rep.Totals.Measured, 1e-9},
	}
	qs, err := grafana.Queries(dashboardJSON(t))
	if err != nil {
		t.Fatal(err)
	}
	seen := 0
	for _, q := range qs {
		title := strings.TrimPrefix(q.Where, "panel ")
		w, ok := want[title]
		if !ok {
			continue
		}
		seen++
		if got := value(t, base, grafana.Substitute(q.Expr, "30s")); math.IsNaN(got) || math.Abs(got-w.v) > w.tol {
			t.Errorf("%s: %s = %v; the API's report says %v", title, q.Expr, got, w.v)
		}
	}
	if seen != len(want) {
		t.Errorf("found %d of the %d headline panels in the dashboard", seen, len(want))
	}
}
