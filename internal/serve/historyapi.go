package serve

import (
	"context"
	"net/http"

	"github.com/gpuwise/gpuwise/internal/app"
	"github.com/gpuwise/gpuwise/internal/tally"
)

var kindParam = param{Name: "kind", Description: "what keys name", Enum: []string{tally.Workload, tally.Namespace, tally.Node, tally.GPUModel}, Default: tally.Namespace}

var historyParams = []param{
	kindParam,
	{Name: "key", Description: "one key only (a namespace, namespace/Kind/name, node or GPU model)"},
	{Name: "from", Description: "start: RFC 3339, or a duration before now (7d)", Default: "the window's start"},
	{Name: "to", Description: "end: RFC 3339, or a duration before now", Default: "now"},
	{Name: "step", Description: "bucket size", Enum: []string{app.HistoryHourly, app.HistoryDaily}, Default: app.HistoryHourly},
	{Name: "cluster", Description: "the cluster whose rows to read; * sums every cluster the store holds", Default: "this service's --cluster"},
}

var compareParams = []param{
	kindParam,
	{Name: "period", Description: "the length of each side: the last period against the one before it (e.g. 7d)", Default: "the window"},
	{Name: "cluster", Description: "as in /api/v1/history", Default: "this service's --cluster"},
}

// historyRequest is the history series a request asks for; its problems
// go on q.
func (s *Service) historyRequest(q *query, st *State) app.HistorySeriesRequest {
	now := s.app.Now()
	h := app.HistorySeriesRequest{Kind: q.Str("kind", tally.Namespace), Key: q.Str("key", ""),
		From: q.Time("from", st.Window.Start, now), To: q.Time("to", now, now),
		Step: q.Str("step", app.HistoryHourly)}
	h.Cluster = q.Str("cluster", s.opts.Cluster)
	q.AddEach(h.Validate())
	return h
}

var lowUtilParams = []param{
	{Name: "from", Description: "start: RFC 3339, or a duration before now (7d); taken back to the hour", Default: "the window's start"},
	{Name: "to", Description: "end: RFC 3339, or a duration before now; taken on to the hour", Default: "the window's end"},
	{Name: "low-util", Description: "PERCENT[:DURATION]: the units below PERCENT utilization for at least DURATION of the range", Default: "30%:6h"},
	{Name: "cluster", Description: "as in /api/v1/history", Default: "this service's --cluster"},
}

// lowUtilHandler is the low-utilization list over a range of the history
// (app.History.LowUtil): the list report --low-util gives of a snapshot
// of the same range.
func lowUtilHandler(s *Service, rt route) http.HandlerFunc {
	return s.api(rt, func(ctx context.Context, q *query, st *State) (*answer, error) {
		now := s.app.Now()
		req := app.HistoryLowUtilRequest{From: q.Time("from", st.Window.Start, now), To: q.Time("to", st.Window.End, now),
			Cluster: q.Str("cluster", s.opts.Cluster)}
		lu, err := app.ParseLowUtil(q.Str("low-util", "30%:6h"))
		q.Add(err)
		req.LowUtil = lu
		q.AddEach(req.Validate())
		if err := q.err(); err != nil {
			return nil, err
		}
		a, err := s.coll.History().LowUtil(ctx, req)
		if err != nil {
			return nil, err
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
