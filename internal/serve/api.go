package serve

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"reflect"
	"strings"

	"github.com/gpuwise/gpuwise/internal/app"
	"github.com/gpuwise/gpuwise/internal/render"
)

// answer is a rendered API response.
type answer struct {
	body        []byte
	contentType string
	partial     error
}

// compute turns a request's parameters and the current state into an
// answer; a usage error is a 400.
type compute func(ctx context.Context, q *query, st *State) (*answer, error)

// api serves a route from the current state: 503 before the first result,
// the cached answer when the same question was asked this cycle, else the
// computed one. Partial or stale results say so in X-Gpuwise-Partial.
func (s *Service) api(rt route, fn compute) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		st, prepared := s.State(), pinned(r)
		if prepared != nil { // warm: st is about to be published
			st = prepared
		}
		if st == nil {
			writeError(w, http.StatusServiceUnavailable, "not ready", errors.New("no result yet: the first cycle is still running (see /readyz)"))
			return
		}
		// url.URL.Query drops a pair it cannot decode without a word, so a
		// bad percent-encoding would answer another question (issue 31).
		vals, err := url.ParseQuery(r.URL.RawQuery)
		if err != nil {
			s.writeAppError(w, r, &app.Error{Kind: app.Usage, Err: fmt.Errorf("query string: %v (write a literal %% as %%25)", err)})
			return
		}
		key := rt.Path + "?" + vals.Encode()
		flight := fmt.Sprint(st.Generation, " ", key)
		for {
			if c, ok := s.cache.get(st.Generation, key); ok {
				write(w, c.body, c.contentType, c.partial)
				return
			}
			done := s.compute.join(flight)
			if done == nil {
				break // this request computes it
			}
			select { // the same question is being computed: wait for its answer
			case <-done:
			case <-r.Context().Done():
				return
			}
		}
		defer s.compute.leave(flight)
		q := newQuery(vals, rt)
		defer q.done() // on a panic too
		a, err := fn(r.Context(), q, st)
		q.done() // the slot is free while the answer is written
		if errors.Is(err, errBusy) {
			w.Header().Set("Retry-After", "10")
			writeError(w, http.StatusServiceUnavailable, "busy", err)
			return
		}
		if err != nil {
			s.writeAppError(w, r, err)
			return
		}
		if a.partial == nil {
			a.partial = st.Partial()
		}
		c := cached{body: a.body, contentType: a.contentType, partial: s.scrub.text(headerText(a.partial))}
		if prepared != nil {
			s.cache.prepare(st.Generation, key, c)
		} else {
			s.cache.put(st.Generation, key, c)
		}
		write(w, c.body, c.contentType, c.partial)
	}
}

// heavy takes a compute slot for q's answer (see ComputeInFlight), given
// back once the answer is rendered.
func (s *Service) heavy(ctx context.Context, q *query) error {
	release, err := s.compute.acquire(ctx)
	if err != nil {
		return err
	}
	q.release = release
	return nil
}

// PartialHeader carries what an answer lacks (one line), absent when it
// is complete.
const PartialHeader = "X-Gpuwise-Partial"

func write(w http.ResponseWriter, body []byte, contentType, partial string) {
	w.Header().Set("Content-Type", contentType)
	if partial != "" {
		w.Header().Set(PartialHeader, partial)
	}
	w.Write(body)
}

// headerText is err as one header line of at most 1 KiB.
func headerText(err error) string {
	if err == nil {
		return ""
	}
	s := strings.Join(strings.Fields(err.Error()), " ")
	if len(s) > 1024 {
		s = s[:1021] + "..."
	}
	return s
}

// apiError is the JSON body of every error answer.
type apiError struct {
	Error string `json:"error"`
	Kind  string `json:"kind"`
}

var kindNames = map[app.Kind]string{app.Internal: "internal", app.Usage: "usage", app.Input: "input",
	app.Unreachable: "unreachable", app.Denied: "denied", app.Output: "output"}

var kindStatus = map[app.Kind]int{app.Internal: http.StatusInternalServerError, app.Usage: http.StatusBadRequest,
	app.Input: http.StatusUnprocessableEntity, app.Unreachable: http.StatusBadGateway, app.Denied: http.StatusBadGateway,
	app.Output: http.StatusInternalServerError}

func (s *Service) writeAppError(w http.ResponseWriter, r *http.Request, err error) {
	s.noteDamage(err)
	k := app.KindOf(err)
	msg := s.scrub.text(err.Error())
	if kindStatus[k] >= 500 {
		noteError(r, msg) // the log line carries why, not only the status
	}
	writeError(w, kindStatus[k], kindNames[k], errors.New(msg))
}

func writeError(w http.ResponseWriter, status int, kind string, err error) {
	b, _ := json.Marshal(apiError{Error: err.Error(), Kind: kind})
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	w.Write(append(b, '\n'))
}

// data is the data selection of an API request: the state's window
// snapshot and the service's prices; a window or range other than the
// service's is a usage error (windowOnly).
func (s *Service) data(q *query, st *State) app.Data {
	d := app.Data{Source: app.Source{Snapshot: st.Snapshot}, Window: q.Window(), Prices: st.Prices}
	s.windowOnly(q, st, &d) // range, from and to name the window or say why not
	return d
}

// rendered renders into an answer.
func rendered(f render.Format, partial error, fn func(b *bytes.Buffer) error) (*answer, error) {
	var b bytes.Buffer
	if err := fn(&b); err != nil {
		return nil, err
	}
	return &answer{body: b.Bytes(), contentType: contentType(f), partial: partial}, nil
}

func reportHandler(s *Service, rt route) http.HandlerFunc {
	return s.api(rt, func(ctx context.Context, q *query, st *State) (*answer, error) {
		req := app.DefaultReportRequest()
		req.Data, req.Policies = s.data(q, st), s.coll.Policies()
		setString(&req.Cost.IdleShare, q.Str("idle-share", string(req.Cost.IdleShare)))
		req.Cost.IdleThreshold = q.Float("idle-threshold", req.Cost.IdleThreshold)
		req.Report.By = q.Str("by", req.Report.By)
		req.Report.TopN = q.Int("top", req.Report.TopN)
		lowUtil, err := app.ParseLowUtil(q.Str("low-util", ""))
		q.Add(err)
		req.Report.LowUtil = lowUtil
		f := q.format(render.Formats)
		q.Add(req.Validate())
		if pr, ok := reportPage(q); ok {
			q.Add(pr.Validate(req.Report.By))
		}
		if err := q.err(); err != nil {
			return nil, err
		}
		res, err := s.reportFor(ctx, q, req, st)
		if err != nil {
			return nil, err
		}
		o := s.renderOptions().WithAnalyses(res.Ledger, res.IdleCauses)
		o.Reconciliation, o.Kueue = res.Reconciliation, res.Kueue
		rep := res.Report
		if pr, ok := reportPage(q); ok {
			if rep, err = app.PagedReport(rep, pr); err != nil {
				return nil, err
			}
		}
		return rendered(f, res.Partial, func(b *bytes.Buffer) error { return render.Report(b, rep, f, o) })
	})
}

// reportFor is the report req asks for: the cycle's own when req is the
// default (the dashboard's first page; at 10,000 GPUs recomputing it and
// its ledger takes seconds), else a new one.
func (s *Service) reportFor(ctx context.Context, q *query, req app.ReportRequest, st *State) (*app.ReportResult, error) {
	def := app.DefaultReportRequest()
	if st.Report != nil && req.Window == 0 && req.Cost.IdleShare == def.Cost.IdleShare &&
		req.Cost.IdleThreshold == def.Cost.IdleThreshold && req.Report == def.Report {
		return st.Report, nil
	}
	if err := s.heavy(ctx, q); err != nil {
		return nil, err
	}
	return s.app.Report(ctx, req)
}

func auditHandler(s *Service, rt route) http.HandlerFunc {
	return s.api(rt, func(ctx context.Context, q *query, st *State) (*answer, error) {
		req := app.DefaultAuditRequest()
		req.Data = s.data(q, st)
		req.Audit.NodeAgents = append(append([]string{}, req.Audit.NodeAgents...), q.List("allow-agent", nil)...)
		req.Audit.DevNamespaces = q.List("dev-namespaces", req.Audit.DevNamespaces)
		f := q.format(render.AuditFormats)
		ns := q.Str("namespace", "")
		if strings.Contains(ns, "/") {
			q.Add(fmt.Errorf("namespace: %q is a namespace's name, without /", ns))
		}
		q.Add(req.Validate())
		if err := q.err(); err != nil {
			return nil, err
		}
		res, err := s.auditFor(ctx, q, req, st)
		if err != nil {
			return nil, err
		}
		if ns != "" { // a copy: res may be the cycle's own
			res = &app.AuditResult{Result: res.Result.InNamespace(ns), Admission: res.Admission, Partial: res.Partial}
		}
		return rendered(f, res.Partial, func(b *bytes.Buffer) error {
			return render.AuditWithAdmission(b, res.Result, res.Admission, f, s.renderOptions())
		})
	})
}

// auditFor is the audit req asks for: the cycle's own when req is the
// default (at 10,000 GPUs the audit takes seconds; the cycle ran it with
// the same data, prices and settings), else a new one.
func (s *Service) auditFor(ctx context.Context, q *query, req app.AuditRequest, st *State) (*app.AuditResult, error) {
	if st.Audit != nil && req.Window == 0 && req.Admission == nil && reflect.DeepEqual(req.Audit, app.DefaultAuditRequest().Audit) {
		return st.Audit, nil
	}
	if err := s.heavy(ctx, q); err != nil {
		return nil, err
	}
	return s.app.Audit(ctx, req)
}

func recommendHandler(s *Service, rt route) http.HandlerFunc {
	return s.api(rt, func(ctx context.Context, q *query, st *State) (*answer, error) {
		req := app.DefaultRecommendRequest()
		req.Data, req.Policies = s.data(q, st), s.coll.Policies()
		f := q.format(render.Formats)
		q.Add(req.Validate())
		if pr, ok := recommendPage(q); ok {
			q.Add(pr.Validate(app.MaxPageLimit))
		}
		if err := q.err(); err != nil {
			return nil, err
		}
		if err := s.heavy(ctx, q); err != nil {
			return nil, err
		}
		res, err := s.app.Recommend(ctx, req)
		if err != nil {
			return nil, err
		}
		rec := res.Result
		if pr, ok := recommendPage(q); ok {
			if rec, err = app.PagedRecommendations(rec, pr); err != nil {
				return nil, err
			}
		}
		return rendered(f, res.Partial, func(b *bytes.Buffer) error { return render.Recommend(b, rec, res.Ledger, f, s.renderOptions()) })
	})
}

func planHandler(s *Service, rt route) http.HandlerFunc {
	return s.api(rt, func(ctx context.Context, q *query, st *State) (*answer, error) {
		req := app.DefaultPlanRequest()
		req.Data, req.Policies = s.data(q, st), s.coll.Policies()
		setString(&req.Shapes, q.Str("shapes", string(req.Shapes)))
		req.By = q.Str("by", "")
		f := q.format(render.Formats)
		q.Add(req.Validate())
		if err := q.err(); err != nil {
			return nil, err
		}
		if err := s.heavy(ctx, q); err != nil {
			return nil, err
		}
		res, err := s.app.Plan(ctx, req)
		if err != nil {
			return nil, err
		}
		if len(res.Clusters) > 0 {
			return rendered(f, res.Partial, func(b *bytes.Buffer) error {
				return render.ClusterPlans(b, clusterPlans(res.Clusters), req.Shapes, f, s.renderOptions())
			})
		}
		return rendered(f, res.Partial, func(b *bytes.Buffer) error { return render.Plan(b, res.Plan, req.Shapes, f, s.renderOptions()) })
	})
}

func adviseHandler(s *Service, rt route) http.HandlerFunc {
	return s.api(rt, func(ctx context.Context, q *query, st *State) (*answer, error) {
		req := app.DefaultAdviseRequest()
		req.Data, req.Policies = s.data(q, st), s.coll.Policies()
		req.Levers = q.List("levers", nil)
		req.EngineerUSDPerHour = q.Float("engineer-rate", req.EngineerUSDPerHour)
		req.By = q.Str("by", "")
		f := q.format(render.Formats)
		q.Add(req.Validate())
		if err := q.err(); err != nil {
			return nil, err
		}
		if err := s.heavy(ctx, q); err != nil {
			return nil, err
		}
		res, err := s.app.Advise(ctx, req)
		if err != nil {
			return nil, err
		}
		if len(res.Clusters) > 0 { // several clusters (or by=cluster): each its own ledger
			return rendered(f, res.Partial, func(b *bytes.Buffer) error {
				return render.ClusterLedgers(b, clusterLedgers(res.Clusters), f, s.renderOptions())
			})
		}
		return rendered(f, res.Partial, func(b *bytes.Buffer) error { return render.Ledger(b, res.Ledger, f, s.renderOptions()) })
	})
}

// clusterLedgers and clusterPlans hand the use case's per-cluster results
// to the renderer.
func clusterLedgers(cs []app.ClusterLedger) []render.ClusterLedger {
	out := make([]render.ClusterLedger, len(cs))
	for i, c := range cs {
		out[i] = render.ClusterLedger{Cluster: c.Cluster, Ledger: c.Ledger}
	}
	return out
}

func clusterPlans(cs []app.ClusterPlan) []render.ClusterPlan {
	out := make([]render.ClusterPlan, len(cs))
	for i, c := range cs {
		out[i] = render.ClusterPlan{Cluster: c.Cluster, Plan: c.Plan}
	}
	return out
}

// setString sets a request's string-typed setting (an idle share, a
// shape choice) from a parameter; the request's use case validates it.
func setString[T ~string](p *T, s string) { *p = T(s) }

// renderOptions are the CLI's when piped: no colour, no width.
func (s *Service) renderOptions() render.Options { return render.Options{Version: s.opts.Version} }

// jsonAnswer encodes v as every command's JSON is encoded.
func jsonAnswer(v any, partial error) (*answer, error) {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return nil, err
	}
	return &answer{body: append(b, '\n'), contentType: "application/json", partial: partial}, nil
}

// reportPage is the page of the report's rows q asks for, and whether it
// asks for one (offset, limit or namespace given; docs/serve.md "Paging").
func reportPage(q *query) (app.ReportPage, bool) {
	ns, off, lim := q.Str("namespace", ""), q.Str("offset", ""), q.Str("limit", "")
	if ns == "" && off == "" && lim == "" {
		return app.ReportPage{}, false
	}
	return app.ReportPage{Namespace: ns, Offset: q.Int("offset", 0), Limit: q.Int("limit", app.DefaultPageLimit)}, true
}

// recommendPage is reportPage for recommend's lists, with its workload
// filter.
func recommendPage(q *query) (app.RecommendPage, bool) {
	wl, ns, off, lim := q.List("workload", nil), q.Str("namespace", ""), q.Str("offset", ""), q.Str("limit", "")
	if len(wl) == 0 && ns == "" && off == "" && lim == "" {
		return app.RecommendPage{}, false
	}
	return app.RecommendPage{Workloads: wl, Namespace: ns, Offset: q.Int("offset", 0), Limit: q.Int("limit", app.DefaultPageLimit)}, true
}
