package app_test

import (
	"context"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/gpuwise/gpuwise/internal/app"
	"github.com/gpuwise/gpuwise/internal/history"
	"github.com/gpuwise/gpuwise/internal/tally"
)

// TestHistoryUnitCostTrend (issue 27): per hour, each serving workload's
// cost over its counted requests and tokens; a model name's cost is its
// share of its workload's requests; the cluster figure is only over the
// servers that count what it divides by (Triton counts no tokens, so
// asr's cost is not in the tokens figure; a workload with no request
// counters is in neither); the hour's trend moves with the counts.
func TestHistoryUnitCostTrend(t *testing.T) {
	ctx := context.Background()
	h, err := app.OpenHistory(ctx, history.InMemory)
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	t0 := time.Date(2026, 11, 10, 0, 0, 0, 0, time.UTC)
	f := func(v float64) *float64 { return &v }
	for i := range 2 {
		s := t0.Add(time.Duration(i) * time.Hour)
		cost := func(w string, usd float64) history.Entry {
			return history.Entry{Kind: tally.Workload, Key: w, Values: tally.Values{Seconds: 3600, Pods: 1, TotalUSD: usd}}
		}
		reqs := float64(1000 * (i + 1)) // the second hour serves twice as many
		c := history.Cycle{Cluster: "c1", Start: s, End: s.Add(time.Hour),
			Entries: []history.Entry{cost("ml/Deployment/chat", 10), cost("ml/Deployment/asr", 4), cost("ml/Job/train", 50)},
			Inference: []history.Inference{
				{Workload: "ml/Deployment/chat", Server: "vllm", Requests: reqs, Tokens: f(100 * reqs)},
				{Workload: "ml/Deployment/chat", Model: "llama", Server: "vllm", Requests: reqs / 4, Tokens: f(10 * reqs)},
				{Workload: "ml/Deployment/asr", Server: "triton", Requests: reqs},
			}}
		if _, err := h.Store().Record(ctx, c); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := h.UnitCosts(ctx, app.HistoryUnitCostRequest{From: t0, To: t0}); err == nil || !strings.Contains(err.Error(), "to: ") {
		t.Errorf("an empty range: %v", err)
	}
	got, err := h.UnitCosts(ctx, app.HistoryUnitCostRequest{Cluster: "c1", From: t0, To: t0.Add(2 * time.Hour)})
	if err != nil {
		t.Fatal(err)
	}
	type row struct {
		hour                int
		workload, model     string
		per1k, per100k, usd float64 // -1: null
	}
	val := func(p *float64) float64 {
		if p == nil {
			return -1
		}
		return math.Round(*p*1e6) / 1e6
	}
	var rows []row
	for _, p := range got.Points {
		rows = append(rows, row{int(p.Bucket.Sub(t0).Hours()), p.Workload, p.Model, val(p.PerThousandRequests), val(p.PerHundredThousandTokens), math.Round(p.CostUSD*1e6) / 1e6})
	}
	want := []row{
		// cluster: (10+4)/2000 requests; tokens only chat's $10 over 100,000 tokens; train counts nothing
		{0, "", "", 7, 10, 14},
		{0, "ml/Deployment/asr", "", 4, -1, 4},
		{0, "ml/Deployment/chat", "", 10, 10, 10},
		{0, "ml/Deployment/chat", "llama", 10, 25, 2.5}, // a quarter of chat's requests: $2.50 over 250 and 10,000 tokens
		{0, "", "llama", 10, 25, 2.5},                   // the model over its one workload
		{1, "", "", 3.5, 5, 14},
		{1, "ml/Deployment/asr", "", 2, -1, 4},
		{1, "ml/Deployment/chat", "", 5, 5, 10},
		{1, "ml/Deployment/chat", "llama", 5, 12.5, 2.5},
		{1, "", "llama", 5, 12.5, 2.5},
	}
	if len(rows) != len(want) {
		t.Fatalf("rows %+v\nwant %+v", rows, want)
	}
	for i := range want {
		if rows[i] != want[i] {
			t.Errorf("row %d: %+v, want %+v", i, rows[i], want[i])
		}
	}
}
