package serve

import (
	"context"
	"net/http"
	"strconv"

	"github.com/gpuwise/gpuwise/internal/app"
)

// The drill-down's two lower levels (docs/dashboard.md, "Drill-down"): a
// workload's or namespace's pods on the window (/api/v1/pods, a page of
// the report's pod rows) and one GPU unit's hours over any range of the
// history (/api/v1/history/unit).

var podsParams = []param{
	{Name: "workload", Description: "the workload whose pods to list: namespace/Kind/name (or give namespace; neither: every pod)", Example: "inference/Deployment/chat-llm"},
	{Name: "namespace", Description: "the namespace whose pods to list (or give workload)", Example: "inference"},
	{Name: "pod", Description: "one pod only: namespace/name (with workload or namespace, or alone)", Example: "inference/chat-llm-p458tsddf7-zrh4f"},
	{Name: "offset", Description: "rows to skip (the page's start), in the report's order: most dollars first", Default: "0"},
	{Name: "limit", Description: "rows in the page, 1.." + strconv.Itoa(app.MaxPodsLimit), Default: strconv.Itoa(app.DefaultPodsLimit)},
	windowParam, rangeParam, fromParam, toParam,
}

// podsHandler is one page of a workload's (or namespace's) pods: the rows
// of report?by=pod that belong to it, each with its workload and GPU
// units, the number matched and their sum (app.PodsOf).
func podsHandler(s *Service, rt route) http.HandlerFunc {
	return s.api(rt, func(ctx context.Context, q *query, st *State) (*answer, error) {
		req := app.DefaultReportRequest()
		req.Data = s.data(q, st)
		req.Report.By = "pod"
		pr := app.PodsRequest{Workload: q.Str("workload", ""), Namespace: q.Str("namespace", ""), Pod: q.Str("pod", ""),
			Offset: q.Int("offset", 0), Limit: q.Int("limit", app.DefaultPodsLimit)}
		q.AddEach(pr.Validate())
		q.Add(req.Validate())
		if err := q.err(); err != nil {
			return nil, err
		}
		res, err := s.podReport(ctx, q, req, st)
		if err != nil {
			return nil, err
		}
		page, err := app.PodsOf(res.Report, pr)
		if err != nil {
			return nil, err
		}
		return jsonAnswer(page, res.Partial)
	})
}

var unitParams = []param{
	{Name: "unit", Description: "the GPU unit: a whole GPU, MIG slice or time-slice share as a pod row's gpu_units and the low-utilization list name it", Required: true, Example: "serve-h100-1/gpu5"},
	rangeParam,
	{Name: "from", Description: "start: RFC 3339, or a length before the latest results (7d); taken back to the hour", Default: "the window's start", Example: "2026-11-03T00:00:00Z"},
	{Name: "to", Description: "end: RFC 3339, or a length before the latest results; taken on to the hour", Default: "the window's end", Example: "2026-11-05T00:00:00Z"},
	{Name: "cluster", Description: "as in /api/v1/history", Default: "this service's --cluster"},
}

// unitHandler is one GPU unit's hourly activity and cost over a range of
// the history (app.History.Unit).
func unitHandler(s *Service, rt route) http.HandlerFunc {
	return s.api(rt, func(ctx context.Context, q *query, st *State) (*answer, error) {
		w, _ := s.span(q, st)
		req := app.HistoryUnitRequest{Unit: q.Str("unit", ""), From: w.Start, To: w.End, Cluster: q.Str("cluster", s.opts.Cluster)}
		q.AddEach(req.Validate())
		if err := q.err(); err != nil {
			return nil, err
		}
		a, err := s.coll.History().Unit(ctx, req)
		if err != nil {
			return nil, err
		}
		return jsonAnswer(a, nil)
	})
}

// podReport is the report by pod of st's generation, computed on the
// first page asked for in a cycle and kept for the others (each workload,
// pod and page would otherwise compute it anew: seconds at 10,000 GPUs).
// Requests wait for the one computing it.
func (s *Service) podReport(ctx context.Context, q *query, req app.ReportRequest, st *State) (*app.ReportResult, error) {
	s.pods.Lock()
	defer s.pods.Unlock()
	if s.pods.res != nil && s.pods.gen == st.Generation {
		return s.pods.res, nil
	}
	res, err := s.reportFor(ctx, q, req, st)
	if err != nil {
		return nil, err
	}
	s.pods.gen, s.pods.res = st.Generation, res
	return res, nil
}
