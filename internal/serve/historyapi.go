package serve

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"slices"

	"github.com/gpuwise/gpuwise/internal/app"
	"github.com/gpuwise/gpuwise/internal/render"
	"github.com/gpuwise/gpuwise/internal/tally"
)

var kindParam = param{Name: "kind", Description: "what keys name: workload, namespace, node, gpu_model or label:KEY (a label serve --history-labels records)", Default: tally.Namespace}

var historyParams = []param{
	kindParam,
	{Name: "key", Description: "one key only (a namespace, namespace/Kind/name, node, GPU model or label value)"},
	rangeParam, fromParam, toParam,
	{Name: "top", Description: "keep the N keys of the largest total $ over the range (and __unallocated__), the rest summed per bucket into __other__; 0: every key", Default: "0"},
	{Name: "step", Description: "bucket size", Enum: []string{app.HistoryHourly, app.HistoryDaily}, Default: app.HistoryHourly},
	{Name: "cluster", Description: "the cluster whose rows to read; * sums every cluster the store holds", Default: "this service's --cluster"},
}

var compareParams = []param{
	kindParam,
	{Name: "period", Description: "the length of each side: the last period against the one before it (e.g. 7d)", Default: "the window"},
	{Name: "range", Description: "as period (the range parameter every endpoint takes): " + rangeForms},
	{Name: "cluster", Description: "as in /api/v1/history", Default: "this service's --cluster"},
}

// historyRequest is the history series a request asks for; its problems
// go on q.
func (s *Service) historyRequest(q *query, st *State) app.HistorySeriesRequest {
	w, _ := s.span(q, st)
	h := app.HistorySeriesRequest{Kind: q.Str("kind", tally.Namespace), Key: q.Str("key", ""),
		From: w.Start, To: w.End, Step: q.Str("step", app.HistoryHourly), Top: q.Int("top", 0)}
	h.Cluster = q.Str("cluster", s.opts.Cluster)
	q.AddEach(h.Validate())
	return h
}

var lowUtilParams = []param{
	rangeParam,
	{Name: "from", Description: "start: RFC 3339, or a length before the latest results (7d); taken back to the hour", Default: "the window's start"},
	{Name: "to", Description: "end: RFC 3339, or a length before the latest results; taken on to the hour", Default: "the window's end"},
	{Name: "low-util", Description: "PERCENT[:DURATION]: the units below PERCENT utilization for at least DURATION of the range", Default: "30%:6h"},
	{Name: "cluster", Description: "as in /api/v1/history", Default: "this service's --cluster"},
	{Name: "namespace", Description: "one page of the units a workload of that namespace held only", Example: "inference"},
	offsetParam, limitParam,
}

// lowUtilHandler is the low-utilization list over a range of the history
// (app.History.LowUtil): the list report --low-util gives of a snapshot
// of the same range; with offset, limit or namespace one page of it
// (docs/serve.md "Paging"), each page read from the one list the state
// computed for the request (lowUtilLists).
func lowUtilHandler(s *Service, rt route) http.HandlerFunc {
	return s.api(rt, func(ctx context.Context, q *query, st *State) (*answer, error) {
		w, _ := s.span(q, st)
		req := app.HistoryLowUtilRequest{From: w.Start, To: w.End, Cluster: q.Str("cluster", s.opts.Cluster)}
		lu, err := app.ParseLowUtil(q.Str("low-util", "30%:6h"))
		q.Add(err)
		req.LowUtil = lu
		q.AddEach(req.Validate())
		pr, paged := reportPage(q)
		if paged {
			q.Add(pr.ValidateUnits())
		}
		if err := q.err(); err != nil {
			return nil, err
		}
		a, err := s.lowUtils.get(ctx, st.Generation, fmt.Sprintf("%+v", req), func() (*app.HistoryLowUtil, error) {
			return s.coll.History().LowUtil(ctx, req)
		})
		if err != nil {
			return nil, err
		}
		if paged {
			if a, err = app.PagedHistoryLowUtil(a, pr); err != nil {
				return nil, err
			}
		}
		return jsonAnswer(a, nil)
	})
}

var unitCostParams = []param{
	{Name: "from", Description: "start: RFC 3339, or a duration before now (7d)", Default: "the window's start"},
	{Name: "to", Description: "end: RFC 3339, or a duration before now", Default: "now"},
	{Name: "cluster", Description: "as in /api/v1/history", Default: "this service's --cluster"},
}

// unitCostHandler is the hourly unit-cost trend (app.History.UnitCosts):
// per hour what the savings ledger's cost per 1,000 inferences and per
// 100,000 tokens give over the window.
func unitCostHandler(s *Service, rt route) http.HandlerFunc {
	return s.api(rt, func(ctx context.Context, q *query, st *State) (*answer, error) {
		now := s.app.Now()
		req := app.HistoryUnitCostRequest{From: q.Time("from", st.Window.Start, now), To: q.Time("to", now, now),
			Cluster: q.Str("cluster", s.opts.Cluster)}
		q.AddEach(req.Validate())
		if err := q.err(); err != nil {
			return nil, err
		}
		a, err := s.coll.History().UnitCosts(ctx, req)
		if err != nil {
			return nil, err
		}
		return jsonAnswer(a, nil)
	})
}

func historyHandler(s *Service, rt route) http.HandlerFunc {
	return s.api(rt, func(ctx context.Context, q *query, st *State) (*answer, error) {
		req := s.historyRequest(q, st)
		if err := q.err(); err != nil {
			return nil, err
		}
		a, err := s.coll.History().Series(ctx, req)
		if err != nil {
			return nil, err
		}
		return jsonAnswer(a, nil)
	})
}

func compareHandler(s *Service, rt route) http.HandlerFunc {
	return s.api(rt, func(ctx context.Context, q *query, st *State) (*answer, error) {
		req := app.HistoryCompareRequest{Kind: q.Str("kind", tally.Namespace), End: st.Window.End}
		q.Add(app.CheckHistoryKind(req.Kind))
		req.Period = q.Duration("period", st.Window.End.Sub(st.Window.Start))
		if r := q.Str("range", ""); r != "" {
			if q.Str("period", "") != "" {
				q.Addf("range: give range or period, not both")
			} else if d, ok := rangeLength(q, "range", r); ok {
				req.Period = d
			}
		}
		req.Window, req.Cluster = req.Period, q.Str("cluster", s.opts.Cluster)
		if err := q.err(); err != nil {
			return nil, err
		}
		d, err := s.coll.History().Compare(ctx, req)
		if err != nil {
			return nil, err
		}
		return jsonAnswer(d, nil)
	})
}

var showbackParams = []param{
	{Name: "by", Description: "group by namespace, workload, node, gpu-model or label:KEY (a label serve --history-labels records: team, cost-center, environment by default)", Default: "label:team"},
	{Name: "idle-share", Description: "where unallocated cost goes: none (its own row) or cluster (onto the groups, by what each pays)", Enum: []string{"none", "cluster"}, Default: "cluster"},
	rangeParam, fromParam, toParam, compareParam,
	{Name: "cluster", Description: "as in /api/v1/history", Default: "this service's --cluster"},
	{Name: "output", Description: "json, csv (one row per group, totals in cents summing to the total) or focus (a FOCUS-style allocation file)", Default: "json"},
}

// showbackBy maps a showback's by to the history's kind.
func showbackBy(by string) string {
	if k, ok := app.HistoryKinds[by]; ok {
		return k
	}
	return by
}

// showbackHandler is the showback table over a range of the history
// (app.History.Showback), as JSON, CSV or the FOCUS-style file.
func showbackHandler(s *Service, rt route) http.HandlerFunc {
	return s.api(rt, func(ctx context.Context, q *query, st *State) (*answer, error) {
		w, _ := s.span(q, st)
		req := app.ShowbackRequest{Cluster: q.Str("cluster", s.opts.Cluster), Kind: showbackBy(q.Str("by", "label:team")),
			From: w.Start, To: w.End, Compare: comparison(q, w), IdleShare: q.Str("idle-share", "cluster")}
		out := q.Str("output", "json")
		if out != "json" && !slices.Contains(render.ShowbackFormats, out) {
			q.Addf("output: %q is not json, csv or focus", out)
		}
		q.AddEach(req.Validate())
		if err := q.err(); err != nil {
			return nil, err
		}
		sb, err := s.coll.History().Showback(ctx, req)
		if err != nil {
			return nil, err
		}
		if out == "json" {
			return jsonAnswer(sb, nil)
		}
		var b bytes.Buffer
		if err := render.Showback(&b, sb, out); err != nil {
			return nil, err
		}
		return &answer{body: b.Bytes(), contentType: "text/csv; charset=utf-8"}, nil
	})
}
