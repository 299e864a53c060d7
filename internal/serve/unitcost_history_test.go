package serve_test

import (
	"encoding/json"
	"math"
	"net/http"
	"testing"

	"github.com/gpuwise/gpuwise/internal/app"
)

// TestHistoryUnitCostsAddUpToTheWindow (issue 27): the demo week recorded
// hour by hour, read back as the hourly unit-cost trend: each serving
// workload's and model name's requests and tokens summed over the hours
// are the counts advise divides over the window, and its hourly costs sum
// to the window cost it divides (to the cent), so the trend and the
// window figure are one number from two paths. Every hour has a cluster
// row, and the per-unit figures are the hour's cost over its counts.
func TestHistoryUnitCostsAddUpToTheWindow(t *testing.T) {
	t.Parallel()
	in := demo(t)
	code, _, body := in.get(t, "/api/v1/history/unit-costs")
	if code != http.StatusOK {
		t.Fatalf("status %d: %s", code, body)
	}
	var h app.HistoryUnitCosts
	if err := json.Unmarshal(body, &h); err != nil {
		t.Fatal(err)
	}
	var adv struct {
		Metrics []struct {
			Name      string `json:"name"`
			UnitCosts []struct {
				Workload string  `json:"workload"`
				Model    string  `json:"model"`
				CostUSD  float64 `json:"cost_usd"`
				Count    float64 `json:"count"`
			} `json:"unit_costs"`
		} `json:"metrics"`
	}
	if err := json.Unmarshal(cliOut(t, "advise", "--demo", "-o", "json"), &adv); err != nil {
		t.Fatal(err)
	}
	type sums struct{ usd, reqs, toks, tokUSD float64 }
	got := map[[2]string]*sums{}
	hours := map[int64]bool{}
	for _, p := range h.Points {
		if p.Workload == "" && p.Model == "" {
			hours[p.Bucket.Unix()] = true
			continue
		}
		k := [2]string{p.Workload, p.Model}
		if got[k] == nil {
			got[k] = &sums{}
		}
		s := got[k]
		s.usd, s.reqs = s.usd+p.CostUSD, s.reqs+p.Requests
		if p.Tokens != nil {
			s.toks += *p.Tokens
		}
		if p.TokensCostUSD != nil {
			s.tokUSD += *p.TokensCostUSD
		}
		if p.Requests > 0 && (p.PerThousandRequests == nil || math.Abs(*p.PerThousandRequests-p.CostUSD/p.Requests*1000) > 1e-9) {
			t.Errorf("%s %s at %s: per 1,000 %v, cost %v over %v requests", p.Workload, p.Model, p.Bucket, p.PerThousandRequests, p.CostUSD, p.Requests)
		}
	}
	if len(hours) < 24 {
		t.Fatalf("%d hours with a cluster row: the week was not recorded", len(hours))
	}
	checked := 0
	for _, m := range adv.Metrics {
		for _, u := range m.UnitCosts {
			s := got[[2]string{u.Workload, u.Model}]
			if s == nil {
				t.Errorf("%s: %s %s is not in the hourly trend", m.Name, u.Workload, u.Model)
				continue
			}
			count, usd := s.reqs, s.usd
			if m.Name == "cost_per_100k_tokens" {
				count, usd = s.toks, s.tokUSD
			}
			if math.Abs(count-u.Count) > 1e-6*math.Max(1, u.Count) || math.Round(usd*100) != math.Round(u.CostUSD*100) {
				t.Errorf("%s: %s %s: hours sum to $%.2f over %.0f, the window's figure is $%.2f over %.0f", m.Name, u.Workload, u.Model, usd, count, u.CostUSD, u.Count)
			}
			checked++
		}
	}
	if checked == 0 {
		t.Fatal("advise gives no unit costs for the demo: nothing compared")
	}
	t.Logf("%d hourly points over %d hours; %d window figures match their hours' sums", len(h.Points), len(hours), checked)
}
