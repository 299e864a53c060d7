package promtest

import (
	"fmt"
	"io"
	"math"
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gpuwise/gpuwise/internal/prom/wire"
	"github.com/gpuwise/gpuwise/internal/prom/wire/wiretest"
)

// Series is one series of the history.
type Series struct {
	Labels  map[string]string // __name__ included
	Samples []wire.Sample
}

// Fault handles a request instead of the server, returning true, or
// leaves it (false). n counts requests from 1; metric is the metric a
// remote read or listing asks for ("" for other requests).
type Fault func(w http.ResponseWriter, r *http.Request, n int64, metric string) bool

// Server is the fake Prometheus.
type Server struct {
	*httptest.Server
	mu       sync.Mutex
	series   []Series
	faults   []Fault
	requests atomic.Int64
	dead     atomic.Bool
	served   map[string]int64 // by metric
	listed   map[string]int64 // series listings answered, by metric
	reads    []Read           // remote-read queries answered, in order
}

// Read is one remote-read query the server answered: its range
// (milliseconds, both included), matchers, and the series it sent (their
// indices in the history, Series order).
type Read struct {
	Start, End int64
	Matchers   []wire.Matcher
	Series     []int
}

// Reads are the remote-read queries the server answered, in the order
// answered (a request's queries one after the other).
func (s *Server) Reads() []Read {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Read(nil), s.reads...)
}

// New starts a server holding series; it is closed when t's test ends.
func New(t interface{ Cleanup(func()) }, series []Series) *Server {
	s := &Server{series: series, served: map[string]int64{}, listed: map[string]int64{}}
	s.Server = httptest.NewServer(http.HandlerFunc(s.serve))
	t.Cleanup(s.Close)
	return s
}

// Inject adds a fault, tried in the order added.
func (s *Server) Inject(f Fault) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.faults = append(s.faults, f)
}

// Requests is how many requests the server got.
func (s *Server) Requests() int64 { return s.requests.Load() }

// Edit changes the history (drop or alter series) before a read.
func (s *Server) Edit(fn func([]Series) []Series) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.series = fn(s.series)
}

// Kill makes the server die as a killed process does: new connections
// are refused, and requests on connections kept alive are cut without an
// answer.
func (s *Server) Kill() {
	s.dead.Store(true)
	s.Listener.Close()
}

// Dead says whether the server was killed.
func (s *Server) Dead() bool { return s.dead.Load() }

// Served is how many answers the server completed for metrics with the
// prefix.
func (s *Server) Served(prefix string) int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	return count(s.served, prefix)
}

// Listed is how many series listings (/api/v1/series) the server answered
// for metrics with the prefix.
func (s *Server) Listed(prefix string) int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	return count(s.listed, prefix)
}

func count(by map[string]int64, prefix string) int64 {
	var n int64
	for m, c := range by {
		if strings.HasPrefix(m, prefix) {
			n += c
		}
	}
	return n
}

func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	n := s.requests.Add(1)
	if s.dead.Load() {
		HangUp(w)
		return
	}
	r.ParseForm() // a form POST's body; a remote read's is left
	body, _ := io.ReadAll(r.Body)
	metric := requestMetric(r, body)
	s.mu.Lock()
	faults := append([]Fault(nil), s.faults...)
	s.mu.Unlock()
	for _, f := range faults {
		if f(w, r, n, metric) {
			return
		}
	}
	switch r.URL.Path {
	case "/api/v1/series":
		s.list(w, r)
	case "/api/v1/read":
		s.read(w, body)
	case "/api/v1/query_range":
		s.rangeQuery(w, r)
	case "/api/v1/query":
		s.instantQuery(w, r)
	default:
		fmt.Fprint(w, `{"status":"success","data":{"resultType":"matrix","result":[]}}`)
	}
	s.mu.Lock()
	s.served[metric]++
	if r.URL.Path == "/api/v1/series" {
		s.listed[metric]++
	}
	s.mu.Unlock()
}

// HangUp cuts the connection without an answer.
func HangUp(w http.ResponseWriter) {
	if hj, ok := w.(http.Hijacker); ok {
		if c, _, err := hj.Hijack(); err == nil {
			c.Close()
			return
		}
	}
	panic(http.ErrAbortHandler)
}

// requestMetric is the metric a listing or a remote read asks for.
func requestMetric(r *http.Request, body []byte) string {
	if m := r.Form.Get("match[]"); m != "" {
		return m
	}
	if m := overTime.FindStringSubmatch(r.Form.Get("query")); m != nil {
		return m[2]
	}
	qs, _, err := wiretest.DecodeReadRequest(body)
	if err != nil || len(qs) == 0 {
		return ""
	}
	for _, m := range qs[0].Matchers {
		if m.Name == "__name__" && m.Type == wire.MatchEqual {
			return m.Value
		}
	}
	return ""
}

// list answers /api/v1/series for bare metric names.
func (s *Server) list(w http.ResponseWriter, r *http.Request) {
	var sets []string
	s.mu.Lock()
	for _, sr := range s.series {
		for _, m := range r.Form["match[]"] {
			if sr.Labels["__name__"] == m && len(sr.Samples) > 0 {
				sets = append(sets, labelsJSON(sr.Labels))
			}
		}
	}
	s.mu.Unlock()
	fmt.Fprintf(w, `{"status":"success","data":[%s]}`, strings.Join(sets, ","))
}

func labelsJSON(l map[string]string) string {
	var parts []string
	for k, v := range l {
		parts = append(parts, fmt.Sprintf("%q:%q", k, v))
	}
	return "{" + strings.Join(parts, ",") + "}"
}

// read answers a remote read with the matching series' samples in range,
// one frame a series, chunks of 120 samples; the queries of a request
// one after the other, as Prometheus does.
func (s *Server) read(w http.ResponseWriter, body []byte) {
	qs, _, err := wiretest.DecodeReadRequest(body)
	if err != nil || len(qs) == 0 {
		http.Error(w, "bad remote-read request", http.StatusBadRequest)
		return
	}
	w.Header().Set("Content-Type", wire.StreamedChunksType)
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, q := range qs {
		rd := Read{Start: q.Start, End: q.End, Matchers: q.Matchers}
		for i, sr := range s.series {
			if !matches(sr.Labels, q.Matchers) {
				continue
			}
			var in []wire.Sample
			for _, x := range sr.Samples {
				if x.T >= q.Start && x.T <= q.End {
					in = append(in, x)
				}
			}
			if len(in) > 0 {
				w.Write(wiretest.SeriesFrames(sorted(sr.Labels), in))
				rd.Series = append(rd.Series, i)
			}
		}
		s.reads = append(s.reads, rd)
	}
}

func sorted(l map[string]string) [][2]string {
	out := make([][2]string, 0, len(l))
	for k, v := range l {
		out = append(out, [2]string{k, v})
	}
	for i := 1; i < len(out); i++ {
		for j := i; j > 0 && out[j][0] < out[j-1][0]; j-- {
			out[j], out[j-1] = out[j-1], out[j]
		}
	}
	return out
}

// matches evaluates remote-read matchers as Prometheus does: a missing
// label is the empty string; regular expressions are anchored.
func matches(l map[string]string, ms []wire.Matcher) bool {
	for _, m := range ms {
		v := l[m.Name]
		var ok bool
		switch m.Type {
		case wire.MatchEqual:
			ok = v == m.Value
		case wire.MatchNotEqual:
			ok = v != m.Value
		case wire.MatchRegexp, wire.MatchNotRegexp:
			re := regexp.MustCompile("^(?:" + m.Value + ")$")
			ok = re.MatchString(v) == (m.Type == wire.MatchRegexp)
		}
		if !ok {
			return false
		}
	}
	return true
}

// Fail answers every request for metric (any, when "") with status and
// body.
func Fail(metric string, status int, body string) Fault {
	return func(w http.ResponseWriter, r *http.Request, _ int64, m string) bool {
		if metric != "" && m != metric {
			return false
		}
		w.WriteHeader(status)
		io.WriteString(w, body)
		return true
	}
}

// KillAfter lets n requests through, then kills the server.
func KillAfter(s *Server, n int64) Fault {
	var once sync.Once
	return func(w http.ResponseWriter, r *http.Request, got int64, _ string) bool {
		if got <= n {
			return false
		}
		once.Do(func() { go s.Kill() })
		HangUp(w)
		return true
	}
}

// KillAtUsage kills the server at the first remote read of a usage
// series (DCGM, cAdvisor), once kubeAnswers answers for kube-state-metrics
// metrics (listings, probes, facts) and dcgmListings DCGM inventory
// listings are out: a Prometheus that dies mid-report, after the facts and
// the inventory (which the client lists beside them, so that it may come
// late on a busy machine). Usage reads held back meanwhile take requests
// in flight: give the client enough of them.
func KillAtUsage(s *Server, kubeAnswers, dcgmListings int64) Fault {
	return func(w http.ResponseWriter, r *http.Request, _ int64, metric string) bool {
		if r.URL.Path != "/api/v1/read" || strings.HasPrefix(metric, "kube_") {
			return false
		}
		for s.Served("kube_") < kubeAnswers || s.Listed("DCGM_") < dcgmListings {
			time.Sleep(time.Millisecond)
		}
		s.Kill()
		HangUp(w)
		return true
	}
}

// URLWithUser is the server's URL with userinfo.
func (s *Server) URLWithUser(user, password string) string {
	u, _ := url.Parse(s.URL)
	u.User = url.UserPassword(user, password)
	return u.String()
}

// every is a sample every step over [from, to] of value v(t).
func every(from, to time.Time, step time.Duration, v func(t time.Time) float64) []wire.Sample {
	var out []wire.Sample
	for t := from; !t.After(to); t = t.Add(step) {
		out = append(out, wire.Sample{T: t.UnixMilli(), V: v(t)})
	}
	return out
}

func constant(c float64) func(time.Time) float64 { return func(time.Time) float64 { return c } }

// NaN replaces every sample of metric by NaN (as a scrape of a broken
// exporter, or stale markers only).
func NaN(metric string) func([]Series) []Series {
	return func(ss []Series) []Series {
		for i := range ss {
			if ss[i].Labels["__name__"] == metric {
				xs := append([]wire.Sample(nil), ss[i].Samples...)
				for j := range xs {
					xs[j].V = math.NaN()
				}
				ss[i].Samples = xs
			}
		}
		return ss
	}
}

// Drop removes every series of the metrics.
func Drop(metrics ...string) func([]Series) []Series {
	return func(ss []Series) []Series {
		var out []Series
		for _, s := range ss {
			keep := true
			for _, m := range metrics {
				keep = keep && s.Labels["__name__"] != m
			}
			if keep {
				out = append(out, s)
			}
		}
		return out
	}
}

// Keep removes every series but those of the metrics.
func Keep(metrics ...string) func([]Series) []Series {
	return func(ss []Series) []Series {
		var out []Series
		for _, s := range ss {
			for _, m := range metrics {
				if s.Labels["__name__"] == m {
					out = append(out, s)
				}
			}
		}
		return out
	}
}
