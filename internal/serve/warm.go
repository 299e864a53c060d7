package serve

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/gpuwise/gpuwise/internal/collector"
)

// PreparedAnswer is an answer the service computes for each state before
// it publishes it, and the dashboard view that asks for it on its first
// load.
type PreparedAnswer struct {
	// View is the dashboard's URL (path and query) that asks for Request.
	View string
	// Request is the API request (path and query, its parameters sorted:
	// the answers cache's key).
	Request string
}

// PreparedAnswers are the answers the dashboard's views ask for on their
// first load that the cycle does not build and that take longest at
// 10,000 GPUs, given the labels the history keeps rows by: the idle
// view's leaderboard (the report by workload without its rows: 0.15-0.3
// s), its low-utilization list from the history (over the demo's week 1.7
// million unit-hour rows: seconds) and its page of the report's list
// (half a second), the showback view's table by the first history label
// (a second), and the costs view's first page by workload (a third of a
// second). warm computes them for each state before it is published, so
// the first request after a cycle is answered from the cache. They are
// the dashboard's requests (internal/dashboard/assets/app.js:
// TestTheFirstAnswersOfEveryViewArePrepared keeps them in step).
func PreparedAnswers(historyLabels []string) []PreparedAnswer {
	by := "namespace"
	if len(historyLabels) > 0 {
		by = "label:" + historyLabels[0]
	}
	return []PreparedAnswer{
		{View: "/?view=idle", Request: "/api/v1/report?by=workload&limit=0&top=50"},
		{View: "/?view=idle", Request: "/api/v1/history/low-util?limit=50&offset=0"},
		{View: "/?view=idle", Request: "/api/v1/report?limit=50&low-util=30%25%3A6h&offset=0"},
		{View: "/?view=costs&by=workload", Request: "/api/v1/report?by=workload&limit=50&offset=0"},
		{View: "/?view=showback", Request: "/api/v1/showback?" + url.Values{"by": {by}, "idle-share": {"cluster"}}.Encode()},
	}
}

// warmTimeout bounds the answers warm computes for one state: past it the
// state is published with what is ready.
const warmTimeout = 5 * time.Minute

// pinnedState is the context key of a request that warm makes: its answer
// is st's (not yet published), kept for st (resultCache.prepare).
type pinnedState struct{}

// warm computes the warmed answers of st, about to be published, into the
// answers cache (the collector's Prepare). During New (--demo) the
// collector publishes its first state before New has it: warm is then
// where the service first sees it.
func (s *Service) warm(c *collector.Collector, st *State) {
	if s.coll == nil {
		s.coll = c
	}
	ctx, cancel := context.WithTimeout(context.WithValue(context.Background(), pinnedState{}, st), warmTimeout)
	defer cancel()
	start := time.Now()
	prepared := PreparedAnswers(s.opts.HistoryLabels)
	for _, a := range prepared {
		u := a.Request
		path, _, _ := strings.Cut(u, "?")
		rt, ok := routeAt(path)
		if !ok {
			s.log.Error("no route for a prepared answer", "path", path)
			continue
		}
		r, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
		if err != nil {
			s.log.Error("preparing an answer", "request", u, "err", err)
			continue
		}
		w := &discardWriter{header: http.Header{}, status: http.StatusOK}
		rt.handler(s, rt).ServeHTTP(w, r)
		if w.status != http.StatusOK {
			s.log.Warn("preparing an answer", "request", u, "status", w.status)
		}
	}
	s.log.Info("prepared the first answers", "generation", st.Generation, "answers", len(prepared), "seconds", time.Since(start).Seconds())
}

// pinned is the state a request warm made is for, nil for any other.
func pinned(r *http.Request) *State {
	st, _ := r.Context().Value(pinnedState{}).(*State)
	return st
}

// routeAt is the route of path.
func routeAt(path string) (route, bool) {
	for _, rt := range routes() {
		if rt.Path == path && rt.handler != nil {
			return rt, true
		}
	}
	return route{}, false
}

// discardWriter is the response of a request warm made: the answer is in
// the cache, only the status matters.
type discardWriter struct {
	header http.Header
	status int
}

func (w *discardWriter) Header() http.Header         { return w.header }
func (w *discardWriter) Write(b []byte) (int, error) { return len(b), nil }
func (w *discardWriter) WriteHeader(code int)        { w.status = code }
