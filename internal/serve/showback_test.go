package serve_test

import (
	"encoding/csv"
	"encoding/json"
	"math"
	"net/http"
	"strconv"
	"strings"
	"testing"
)

// The showback over the service's window is the window's report grouped
// the same way (the history records the cost engine's figures each
// cycle): each team's total equals report?by=label:team's to the cent, under
// both idle-share rules, and the CSV's rows (in cents) add up to the
// report's total exactly.
func TestShowbackIsTheReportOverTheWindow(t *testing.T) {
	t.Parallel()
	in := demo(t)
	for _, rule := range []string{"none", "cluster"} {
		t.Run(rule, func(t *testing.T) {
			var rep struct {
				Totals struct {
					Total float64 `json:"total_cost_usd"`
				} `json:"totals"`
				Rows []struct {
					Key   string   `json:"key"`
					Total *float64 `json:"total_cost_usd"`
				} `json:"rows"`
			}
			getJSON(t, in, "/api/v1/report?by=label:team&idle-share="+rule, &rep)
			var sb struct {
				Rows []struct {
					Key   string  `json:"key"`
					Total float64 `json:"total_usd"`
				} `json:"rows"`
				Total struct {
					Total float64 `json:"total_usd"`
				} `json:"total"`
				Comparison *struct{ Start string } `json:"comparison"`
				Notes      []string                `json:"notes"`
			}
			getJSON(t, in, "/api/v1/showback?by=label:team&idle-share="+rule, &sb)
			if math.Abs(sb.Total.Total-rep.Totals.Total) > 0.005 {
				t.Errorf("showback total %.4f, report %.4f", sb.Total.Total, rep.Totals.Total)
			}
			got := map[string]float64{}
			for _, r := range sb.Rows {
				got[r.Key] = r.Total
			}
			n := 0
			for _, r := range rep.Rows {
				if r.Total == nil || *r.Total == 0 {
					continue
				}
				n++
				if math.Abs(got[r.Key]-*r.Total) > 0.005 {
					t.Errorf("%s: showback %.4f, report %.4f", r.Key, got[r.Key], *r.Total)
				}
			}
			if n < 10 {
				t.Fatalf("only %d priced teams in the report", n)
			}
			// the demo's history is its week: the week before is not covered
			if sb.Comparison == nil || len(sb.Notes) == 0 || !strings.Contains(sb.Notes[0], "does not cover the whole comparison period") {
				t.Errorf("comparison %v, notes %v: want the previous week named as not covered", sb.Comparison, sb.Notes)
			}
			code, hdr, body := in.get(t, "/api/v1/showback?by=label:team&output=csv&idle-share="+rule)
			if code != http.StatusOK || !strings.HasPrefix(hdr.Get("Content-Type"), "text/csv") {
				t.Fatalf("csv: %d %s", code, hdr.Get("Content-Type"))
			}
			recs, err := csv.NewReader(strings.NewReader(string(body))).ReadAll()
			if err != nil {
				t.Fatal(err)
			}
			col := slicesIndex(recs[0], "total_usd")
			var cents int64
			for _, r := range recs[1:] {
				c, err := strconv.ParseInt(strings.Replace(r[col], ".", "", 1), 10, 64)
				if err != nil || !strings.Contains(r[col], ".") || len(r[col])-strings.Index(r[col], ".") != 3 {
					t.Fatalf("total_usd %q is not dollars and cents", r[col])
				}
				cents += c
			}
			if want := int64(math.Round(rep.Totals.Total * 100)); cents != want {
				t.Errorf("CSV rows sum to %d cents, the report's total is %d", cents, want)
			}
		})
	}
}

// The FOCUS-style file has one allocated charge per team, tagged with
// the team, its EffectiveCost summing to the total to the cent.
func TestShowbackFOCUSFile(t *testing.T) {
	t.Parallel()
	in := demo(t)
	var rep struct {
		Totals struct {
			Total float64 `json:"total_cost_usd"`
		} `json:"totals"`
	}
	getJSON(t, in, "/api/v1/report?by=label:team&idle-share=cluster", &rep)
	_, _, body := in.get(t, "/api/v1/showback?by=label:team&output=focus")
	recs, err := csv.NewReader(strings.NewReader(string(body))).ReadAll()
	if err != nil || len(recs) < 2 {
		t.Fatalf("focus file: %v, %d records", err, len(recs))
	}
	cost, tags, cat := slicesIndex(recs[0], "EffectiveCost"), slicesIndex(recs[0], "AllocatedTags"), slicesIndex(recs[0], "ChargeCategory")
	if cost < 0 || tags < 0 || cat < 0 || slicesIndex(recs[0], "AllocatedMethodId") < 0 || slicesIndex(recs[0], "ChargePeriodStart") != 0 {
		t.Fatalf("header %v lacks FOCUS columns", recs[0])
	}
	var cents int64
	tagged := false
	for _, r := range recs[1:] {
		c, _ := strconv.ParseInt(strings.Replace(r[cost], ".", "", 1), 10, 64)
		cents += c
		if r[cat] != "Usage" {
			t.Errorf("ChargeCategory %q", r[cat])
		}
		tagged = tagged || r[tags] == `{"team":"assistant"}`
	}
	if want := int64(math.Round(rep.Totals.Total * 100)); cents != want {
		t.Errorf("EffectiveCost sums to %d cents, want %d", cents, want)
	}
	if !tagged {
		t.Error(`no charge tagged {"team":"assistant"}`)
	}
}

// A range is answered over the history, anchored at the window's end, with
// the previous period of the same length as its comparison.
func TestShowbackRangeAndPreviousPeriod(t *testing.T) {
	t.Parallel()
	in := demo(t)
	var day, prev struct {
		Range struct{ Start, End string } `json:"range"`
		Rows  []struct {
			Key      string   `json:"key"`
			Total    float64  `json:"total_usd"`
			Previous *float64 `json:"previous_total_usd"`
			Change   *float64 `json:"change_usd"`
		} `json:"rows"`
		Total struct {
			Total    float64  `json:"total_usd"`
			Previous *float64 `json:"previous_total_usd"`
		} `json:"total"`
	}
	getJSON(t, in, "/api/v1/showback?by=namespace&idle-share=none&range=24h", &day)
	getJSON(t, in, "/api/v1/showback?by=namespace&idle-share=none&from=2026-11-06T00:00:00Z&to=2026-11-07T00:00:00Z&compare=none", &prev)
	if day.Range.Start != "2026-11-07T00:00:00Z" || day.Range.End != "2026-11-08T00:00:00Z" {
		t.Errorf("range=24h read %v, want the window's last day", day.Range)
	}
	if day.Total.Previous == nil || math.Abs(*day.Total.Previous-prev.Total.Total) > 1e-6 {
		t.Errorf("previous total %v, the day before totals %.4f", day.Total.Previous, prev.Total.Total)
	}
	for _, r := range day.Rows {
		if r.Previous == nil || r.Change == nil || math.Abs(*r.Change-(r.Total-*r.Previous)) > 1e-9 {
			t.Errorf("%s: previous %v change %v", r.Key, r.Previous, r.Change)
		}
	}
	// the series of the same day sums to the same total
	var h struct {
		Points []struct {
			Total float64 `json:"total_usd"`
		} `json:"points"`
	}
	getJSON(t, in, "/api/v1/history?kind=namespace&range=24h", &h)
	var sum float64
	for _, p := range h.Points {
		sum += p.Total
	}
	if len(h.Points) == 0 || math.Abs(sum-day.Total.Total) > 1e-6 {
		t.Errorf("history range=24h sums to %.4f over %d points, showback %.4f", sum, len(h.Points), day.Total.Total)
	}
}

func getJSON(t *testing.T, in *instance, path string, v any) {
	t.Helper()
	code, _, body := in.get(t, path)
	if code != http.StatusOK {
		t.Fatalf("GET %s: %d %s", path, code, body)
	}
	if err := json.Unmarshal(body, v); err != nil {
		t.Fatalf("GET %s: %v", path, err)
	}
}

func slicesIndex(s []string, v string) int {
	for i, x := range s {
		if x == v {
			return i
		}
	}
	return -1
}

// history?top=N keeps the N namespaces of the largest $ over the range and
// the unallocated key, and sums the rest per bucket into __other__: each
// bucket's total is the one without top, to float precision.
func TestHistoryTopSumsTheRestIntoOther(t *testing.T) {
	t.Parallel()
	in := demo(t)
	type pts struct {
		Points []struct {
			Bucket string  `json:"bucket"`
			Key    string  `json:"key"`
			Total  float64 `json:"total_usd"`
			Idle   float64 `json:"gpu_idle_usd"`
		} `json:"points"`
	}
	var all, top pts
	getJSON(t, in, "/api/v1/history?kind=namespace&range=24h", &all)
	getJSON(t, in, "/api/v1/history?kind=namespace&range=24h&top=3", &top)
	sum := func(p pts) (map[string]float64, map[string]bool) {
		by, keys := map[string]float64{}, map[string]bool{}
		for _, x := range p.Points {
			by[x.Bucket] += x.Total + x.Idle
			keys[x.Key] = true
		}
		return by, keys
	}
	a, ak := sum(all)
	b, bk := sum(top)
	if len(ak) <= 5 || len(bk) != 5 || !bk["__other__"] || !bk["__unallocated__"] {
		t.Fatalf("keys: all %v, top=3 %v", ak, bk)
	}
	for bucket, v := range a {
		if d := v - b[bucket]; d > 1e-6 || d < -1e-6 {
			t.Errorf("%s: %.6f without top, %.6f with", bucket, v, b[bucket])
		}
	}
}
