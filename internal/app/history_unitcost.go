package app

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"time"

	"github.com/gpuwise/gpuwise/internal/history"
	"github.com/gpuwise/gpuwise/internal/tally"
)

// HistoryUnitCostRequest asks for the hourly trend of cost per 1,000
// inferences and per 100,000 tokens over [From, To) (whole hours).
type HistoryUnitCostRequest struct {
	// Cluster is the cluster whose rows to read (AllClusters or "": all).
	Cluster  string
	From, To time.Time
}

// Validate lists every problem with the request, each naming its
// parameter.
func (r HistoryUnitCostRequest) Validate() error {
	var errs []error
	if !r.To.After(r.From) {
		errs = append(errs, fmt.Errorf("to: %s is not after from %s", r.To.Format(time.RFC3339), r.From.Format(time.RFC3339)))
	} else if r.To.Sub(r.From) > maxHourlyRange {
		errs = append(errs, fmt.Errorf("from..to: %s is longer than the %s one answer holds", r.To.Sub(r.From), maxHourlyRange))
	}
	return errors.Join(errs...)
}

// UnitCostPoint is one hour's unit cost of one serving workload, of one
// model name within it, or (Workload and Model empty) of the cluster:
// the hour's cost over the requests and tokens its servers counted.
type UnitCostPoint struct {
	Bucket time.Time `json:"bucket"`
	// Workload is the serving workload; Model the model name within it
	// (empty on the workload's own row); Workload empty on a model name's
	// row over every workload serving it; both empty on the cluster row.
	Workload string `json:"workload,omitempty"`
	Model    string `json:"model,omitempty"`
	Server   string `json:"server,omitempty"`
	// CostUSD is the hour's cost divided: the workload's (history's
	// total_usd of its hourly row), a model name's share of it by its
	// share of the workload's requests, or on the cluster row the cost
	// of the workloads that counted requests.
	CostUSD  float64 `json:"cost_usd"`
	Requests float64 `json:"requests"`
	// Tokens is null when the servers count no tokens; TokensCostUSD is
	// the cost the tokens figure divides (on the cluster row: only the
	// workloads whose servers counted tokens).
	Tokens        *float64 `json:"tokens"`
	TokensCostUSD *float64 `json:"tokens_cost_usd,omitempty"`
	// PerThousandRequests and PerHundredThousandTokens are null when
	// nothing was counted to divide by.
	PerThousandRequests      *float64 `json:"cost_per_1k_inferences_usd"`
	PerHundredThousandTokens *float64 `json:"cost_per_100k_tokens_usd"`
}

// HistoryUnitCosts is the hourly unit-cost trend and the store's coverage
// of the range.
type HistoryUnitCosts struct {
	Cluster  string           `json:"cluster"`
	From     time.Time        `json:"from"`
	To       time.Time        `json:"to"`
	Coverage history.Coverage `json:"coverage"`
	// Points are in hour order: the cluster row (Workload and Model
	// empty), each workload's, each followed by its model names', then
	// each model name's over the workloads serving it (Workload empty).
	Points []UnitCostPoint `json:"points"`
}

// UnitCosts reads the hourly trend of cost per 1,000 inferences and per
// 100,000 tokens, per serving workload, per model name and for the
// cluster, from the counters' hourly increases the service records
// (history.Inference) and the workloads' hourly cost: the same division
// the savings ledger's unit-cost metrics make over the window (a server
// that counts no tokens is not in the tokens figure; a model's cost is
// its share of its workload's requests), hour by hour.
func (h *History) UnitCosts(ctx context.Context, req HistoryUnitCostRequest) (*HistoryUnitCosts, error) {
	if err := req.Validate(); err != nil {
		return nil, &Error{Kind: Usage, Err: err}
	}
	c := storeCluster(req.Cluster)
	rows, err := h.st.Inference(ctx, c, req.From, req.To)
	if err != nil {
		return nil, err
	}
	pts, err := h.st.Series(ctx, history.Query{Cluster: c, Kind: tally.Workload, From: req.From, To: req.To, Granularity: history.Hourly})
	if err != nil {
		return nil, err
	}
	cov, err := h.st.Coverage(ctx, c, req.From, req.To)
	if err != nil {
		return nil, err
	}
	type key struct {
		bucket          int64
		workload, model string
	}
	spend := map[key]float64{}
	for _, p := range pts {
		spend[key{p.Bucket.Unix(), p.Key, ""}] += p.TotalUSD
	}
	// Every cluster's rows of one hour, workload and model summed.
	counts := map[key]*UnitCostPoint{}
	var keys []key
	for _, r := range rows {
		k := key{r.Bucket.Unix(), r.Workload, r.Model}
		p := counts[k]
		if p == nil {
			p = &UnitCostPoint{Bucket: r.Bucket, Workload: r.Workload, Model: r.Model, Server: r.Server}
			counts[k] = p
			keys = append(keys, k)
		}
		p.Requests += r.Requests
		if r.Tokens != nil {
			p.Tokens = addTo(p.Tokens, *r.Tokens)
		}
	}
	sort.Slice(keys, func(i, j int) bool {
		a, b := keys[i], keys[j]
		if a.bucket != b.bucket {
			return a.bucket < b.bucket
		}
		if a.workload != b.workload {
			return a.workload < b.workload
		}
		return a.model < b.model
	})
	out := &HistoryUnitCosts{Cluster: req.Cluster, From: req.From, To: req.To, Coverage: cov, Points: []UnitCostPoint{}}
	for start := 0; start < len(keys); {
		end := start
		for end < len(keys) && keys[end].bucket == keys[start].bucket {
			end++
		}
		total := UnitCostPoint{Bucket: counts[keys[start]].Bucket}
		var hour []UnitCostPoint
		for _, k := range keys[start:end] {
			p := counts[k]
			p.CostUSD = spend[key{k.bucket, k.workload, ""}]
			if k.model != "" {
				w := counts[key{k.bucket, k.workload, ""}]
				if w == nil || w.Requests <= 0 {
					continue // no share to split the cost by
				}
				p.CostUSD *= p.Requests / w.Requests
			}
			if p.Tokens != nil && *p.Tokens > 0 {
				c := p.CostUSD
				p.TokensCostUSD = &c
			}
			unitCosts(p)
			if k.model == "" {
				if p.Requests > 0 {
					total.CostUSD += p.CostUSD
					total.Requests += p.Requests
				}
				if p.TokensCostUSD != nil {
					total.Tokens = addTo(total.Tokens, *p.Tokens)
					total.TokensCostUSD = addTo(total.TokensCostUSD, *p.TokensCostUSD)
				}
			}
			hour = append(hour, *p)
		}
		unitCosts(&total)
		out.Points = append(append(out.Points, total), hour...)
		out.Points = append(out.Points, modelRows(hour)...)
		start = end
	}
	return out, nil
}

// modelRows are one hour's model names summed over the workloads serving
// them (Workload empty), in name order: what the ledger's model rows give
// over the window.
func modelRows(hour []UnitCostPoint) []UnitCostPoint {
	by := map[string]*UnitCostPoint{}
	var names []string
	for _, p := range hour {
		if p.Model == "" {
			continue
		}
		m := by[p.Model]
		if m == nil {
			m = &UnitCostPoint{Bucket: p.Bucket, Model: p.Model, Server: p.Server}
			by[p.Model] = m
			names = append(names, p.Model)
		}
		if m.Server != p.Server {
			m.Server = "several servers"
		}
		m.CostUSD, m.Requests = m.CostUSD+p.CostUSD, m.Requests+p.Requests
		if p.TokensCostUSD != nil {
			m.Tokens = addTo(m.Tokens, *p.Tokens)
			m.TokensCostUSD = addTo(m.TokensCostUSD, *p.TokensCostUSD)
		}
	}
	sort.Strings(names)
	out := make([]UnitCostPoint, 0, len(names))
	for _, n := range names {
		unitCosts(by[n])
		out = append(out, *by[n])
	}
	return out
}

// unitCosts sets a point's per-unit figures from its cost and counts.
func unitCosts(p *UnitCostPoint) {
	p.PerThousandRequests, p.PerHundredThousandTokens = nil, nil
	if p.Requests > 0 {
		v := p.CostUSD / p.Requests * 1000
		p.PerThousandRequests = &v
	}
	if p.Tokens != nil && *p.Tokens > 0 && p.TokensCostUSD != nil {
		v := *p.TokensCostUSD / *p.Tokens * 100000
		p.PerHundredThousandTokens = &v
	}
}

func addTo(p *float64, v float64) *float64 {
	if p == nil {
		return &v
	}
	s := *p + v
	return &s
}
