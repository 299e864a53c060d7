package serve

import (
	"context"
	"net/http"
	"time"

	"github.com/gpuwise/gpuwise/internal/history"
)

var kindParam = param{Name: "kind", Description: "what keys name", Enum: []string{history.Workload, history.Namespace, history.Node, history.GPUModel}, Default: history.Namespace}

var historyParams = []param{
	kindParam,
	{Name: "key", Description: "one key only (a namespace, namespace/Kind/name, node or GPU model)"},
	{Name: "from", Description: "start: RFC 3339, or a duration before now (7d)", Default: "the window's start"},
	{Name: "to", Description: "end: RFC 3339, or a duration before now", Default: "now"},
	{Name: "step", Description: "bucket size", Enum: []string{string(history.Hourly), string(history.Daily)}, Default: string(history.Hourly)},
	{Name: "cluster", Description: "the cluster whose rows to read; * sums every cluster the store holds", Default: "this service's --cluster"},
}

var compareParams = []param{
	kindParam,
	{Name: "period", Description: "the length of each side: the last period against the one before it (e.g. 7d)", Default: "the window"},
	{Name: "cluster", Description: "as in /api/v1/history", Default: "this service's --cluster"},
}

// Limits on one history answer: hours for 93 days, days for 800.
const (
	maxHourlyRange = 93 * 24 * time.Hour
	maxDailyRange  = 800 * 24 * time.Hour
)

// historyPoint is one bucket of one key, with its utilization.
type historyPoint struct {
	history.Point
	Utilization *float64 `json:"gpu_utilization"`
}

type historyAnswer struct {
	Cluster  string           `json:"cluster"`
	Kind     string           `json:"kind"`
	Step     string           `json:"step"`
	From     time.Time        `json:"from"`
	To       time.Time        `json:"to"`
	Coverage history.Coverage `json:"coverage"`
	Points   []historyPoint   `json:"points"`
	// Fleet is the cluster's GPUs by model and sharing mode at the end of
	// each bucket's latest cycle, whatever the kind.
	Fleet []history.FleetPoint `json:"fleet"`
}

func (s *Service) historyQuery(q *query, st *State) history.Query {
	now := s.app.Now()
	h := history.Query{Kind: q.str("kind", history.Namespace), Key: q.str("key", ""),
		From: q.time("from", st.Window.Start, now), To: q.time("to", now, now),
		Granularity: history.Granularity(q.str("step", string(history.Hourly)))}
	h.Cluster = q.str("cluster", s.opts.Cluster)
	if h.Cluster == "*" {
		h.Cluster = ""
	}
	checkKind(q, h.Kind)
	limit := maxHourlyRange
	switch h.Granularity {
	case history.Daily:
		limit = maxDailyRange
	case history.Hourly:
	default:
		q.addf("step: %q is not hour or day", h.Granularity)
	}
	if !h.To.After(h.From) {
		q.addf("to: %s is not after from %s", h.To.Format(time.RFC3339), h.From.Format(time.RFC3339))
	} else if h.To.Sub(h.From) > limit {
		q.addf("from..to: %s is longer than the %s one answer holds at step %s", h.To.Sub(h.From), limit, h.Granularity)
	}
	return h
}

func checkKind(q *query, kind string) {
	for _, k := range history.Kinds {
		if k == kind {
			return
		}
	}
	q.addf("kind: %q is not one of %v", kind, history.Kinds)
}

func historyHandler(s *Service, rt route) http.HandlerFunc {
	return s.api(rt, func(ctx context.Context, q *query, st *State) (*answer, error) {
		h := s.historyQuery(q, st)
		if err := q.err(); err != nil {
			return nil, err
		}
		pts, err := s.store.Series(ctx, h)
		if err != nil {
			return nil, err
		}
		cov, err := s.store.Coverage(ctx, h.Cluster, h.From, h.To)
		if err != nil {
			return nil, err
		}
		fl, err := s.store.Fleet(ctx, h)
		if err != nil {
			return nil, err
		}
		a := historyAnswer{Cluster: q.str("cluster", s.opts.Cluster), Kind: h.Kind, Step: string(h.Granularity), From: h.From, To: h.To,
			Coverage: cov, Points: make([]historyPoint, len(pts)), Fleet: fl}
		for i, p := range pts {
			a.Points[i] = historyPoint{Point: p, Utilization: p.Utilization()}
		}
		return jsonAnswer(a, nil)
	})
}

func compareHandler(s *Service, rt route) http.HandlerFunc {
	return s.api(rt, func(ctx context.Context, q *query, st *State) (*answer, error) {
		kind := q.str("kind", history.Namespace)
		checkKind(q, kind)
		period := q.duration("period", st.Window.End.Sub(st.Window.Start))
		cluster := q.str("cluster", s.opts.Cluster)
		if err := q.err(); err != nil {
			return nil, err
		}
		if cluster == "*" {
			cluster = ""
		}
		before, after := history.Windows(st.Window.End, period, period)
		d, err := history.Compare(ctx, s.store, history.Query{Cluster: cluster, Kind: kind}, before, after)
		if err != nil {
			return nil, err
		}
		return jsonAnswer(d, nil)
	})
}
