package promtest

import (
	"fmt"
	"math"
	"net/http"
	"regexp"
	"strconv"
	"strings"

	"github.com/gpuwise/gpuwise/internal/prom/wire"
)

// overTime is the facts' query_range, last_over_time(NAME{…}[Nms]), and
// the read-mode probe's, count_over_time(…).
var overTime = regexp.MustCompile(`^(last|count)_over_time\(([a-zA-Z_:][a-zA-Z0-9_:]*)(\{[^}]*\})?\[(\d+)ms\]\)$`)

// selectorMatcher is one label matcher of a PromQL selector.
var selectorMatcher = regexp.MustCompile(`([a-zA-Z_][a-zA-Z0-9_]*)(=~|!~|!=|=)"((?:[^"\\]|\\.)*)"`)

// rangeQuery answers overTime queries as Prometheus would: at each step,
// each series' last sample (or count of samples) in the lookback; other
// queries an empty matrix.
func (s *Server) rangeQuery(w http.ResponseWriter, r *http.Request) {
	m := overTime.FindStringSubmatch(r.Form.Get("query"))
	if m == nil {
		fmt.Fprint(w, `{"status":"success","data":{"resultType":"matrix","result":[]}}`)
		return
	}
	count := m[1] == "count"
	ms := []wire.Matcher{{Type: wire.MatchEqual, Name: "__name__", Value: m[2]}}
	for _, sm := range selectorMatcher.FindAllStringSubmatch(m[3], -1) {
		v, _ := strconv.Unquote(`"` + sm[3] + `"`)
		ms = append(ms, wire.Matcher{Type: map[string]int{"=": wire.MatchEqual, "!=": wire.MatchNotEqual,
			"=~": wire.MatchRegexp, "!~": wire.MatchNotRegexp}[sm[2]], Name: sm[1], Value: v})
	}
	lookback, _ := strconv.ParseInt(m[4], 10, 64)
	start, _ := strconv.ParseFloat(r.Form.Get("start"), 64)
	end, _ := strconv.ParseFloat(r.Form.Get("end"), 64)
	step, _ := strconv.ParseFloat(r.Form.Get("step"), 64)
	s.mu.Lock()
	defer s.mu.Unlock()
	var result []string
	for _, sr := range s.series {
		if !matches(sr.Labels, ms) {
			continue
		}
		if pts := points(sr.Samples, int64(start*1000), int64(end*1000), int64(step*1000), lookback, count); pts != "" {
			l := with(sr.Labels, "__name__", "")
			delete(l, "__name__")
			result = append(result, fmt.Sprintf(`{"metric":%s,"values":[%s]}`, labelsJSON(l), pts))
		}
	}
	fmt.Fprintf(w, `{"status":"success","data":{"resultType":"matrix","result":[%s]}}`, strings.Join(result, ","))
}

// points are [t,"v"] points at start, start+step, … ≤ end, each the last
// sample in (t−lookback, t] (NaN skipped), or with count their number.
func points(xs []wire.Sample, start, end, step, lookback int64, count bool) string {
	var pts []string
	for t := start; t <= end && step > 0; t += step {
		var last *wire.Sample
		n := 0
		for i := range xs {
			if x := &xs[i]; x.T > t-lookback && x.T <= t && !math.IsNaN(x.V) {
				last, n = x, n+1
			}
		}
		v := 0.0
		switch {
		case last == nil:
			continue
		case count:
			v = float64(n)
		default:
			v = last.V
		}
		pts = append(pts, fmt.Sprintf(`[%s,"%s"]`, strconv.FormatFloat(float64(t)/1000, 'f', -1, 64), strconv.FormatFloat(v, 'g', -1, 64)))
	}
	return strings.Join(pts, ",")
}

// rangeVector is the raw read's instant query, NAME{…}[Nms] at time=T.
var rangeVector = regexp.MustCompile(`^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{[^}]*\})?\[(\d+)ms\]$`)

// instantQuery answers rangeVector queries as Prometheus would: each
// series' raw samples in (T−N, T] (NaN included, as stored); other
// instant queries an empty matrix.
func (s *Server) instantQuery(w http.ResponseWriter, r *http.Request) {
	m := rangeVector.FindStringSubmatch(r.Form.Get("query"))
	if m == nil {
		fmt.Fprint(w, `{"status":"success","data":{"resultType":"matrix","result":[]}}`)
		return
	}
	ms := append([]wire.Matcher{{Type: wire.MatchEqual, Name: "__name__", Value: m[1]}}, selectorMatchers(m[2])...)
	span, _ := strconv.ParseInt(m[3], 10, 64)
	at, _ := strconv.ParseFloat(r.Form.Get("time"), 64)
	to := int64(math.Round(at * 1000))
	s.mu.Lock()
	defer s.mu.Unlock()
	var result []string
	for _, sr := range s.series {
		if !matches(sr.Labels, ms) {
			continue
		}
		var pts []string
		for _, x := range sr.Samples {
			if x.T > to-span && x.T <= to {
				pts = append(pts, fmt.Sprintf(`[%s,"%s"]`, strconv.FormatFloat(float64(x.T)/1000, 'f', -1, 64), strconv.FormatFloat(x.V, 'g', -1, 64)))
			}
		}
		if len(pts) > 0 {
			l := with(sr.Labels, "__name__", "")
			delete(l, "__name__")
			result = append(result, fmt.Sprintf(`{"metric":%s,"values":[%s]}`, labelsJSON(l), strings.Join(pts, ",")))
		}
	}
	fmt.Fprintf(w, `{"status":"success","data":{"resultType":"matrix","result":[%s]}}`, strings.Join(result, ","))
}

// selectorMatchers are the label matchers of a PromQL selector's braces.
func selectorMatchers(sel string) []wire.Matcher {
	var ms []wire.Matcher
	for _, sm := range selectorMatcher.FindAllStringSubmatch(sel, -1) {
		v, _ := strconv.Unquote(`"` + sm[3] + `"`)
		ms = append(ms, wire.Matcher{Type: map[string]int{"=": wire.MatchEqual, "!=": wire.MatchNotEqual,
			"=~": wire.MatchRegexp, "!~": wire.MatchNotRegexp}[sm[2]], Name: sm[1], Value: v})
	}
	return ms
}
