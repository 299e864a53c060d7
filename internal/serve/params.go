package serve

import (
	"fmt"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/gpuwise/gpuwise/internal/app"
	"github.com/gpuwise/gpuwise/internal/render"
)

// query reads a request's parameters the way the CLI reads its flags,
// collecting every problem so that one 400 lists them all.
type query struct {
	v        url.Values
	known    map[string]bool
	problems []string
}

func newQuery(v url.Values, r route) *query {
	q := &query{v: v, known: map[string]bool{}}
	for _, p := range r.Params {
		q.known[p.Name] = true
	}
	for name := range v {
		if !q.known[name] {
			q.addf("unknown parameter %q (this endpoint takes %s)", name, strings.Join(paramNames(r), ", "))
		}
	}
	return q
}

func paramNames(r route) []string {
	out := make([]string, len(r.Params))
	for i, p := range r.Params {
		out[i] = p.Name
	}
	if len(out) == 0 {
		return []string{"none"}
	}
	return out
}

func (q *query) addf(format string, args ...any) {
	q.problems = append(q.problems, fmt.Sprintf(format, args...))
}

func (q *query) add(err error) {
	if err != nil {
		q.problems = append(q.problems, err.Error())
	}
}

// err is every problem as one usage error.
func (q *query) err() error {
	if len(q.problems) == 0 {
		return nil
	}
	return &app.Error{Kind: app.Usage, Err: fmt.Errorf("%s", strings.Join(q.problems, "; "))}
}

func (q *query) str(name, def string) string {
	if vs, ok := q.v[name]; ok && len(vs) > 0 {
		if len(vs) > 1 {
			q.addf("%s: given %d times", name, len(vs))
		}
		return vs[0]
	}
	return def
}

func (q *query) list(name string, def []string) []string {
	s := q.str(name, "")
	if s == "" {
		return def
	}
	return strings.Split(s, ",")
}

func (q *query) float(name string, def float64) float64 {
	s := q.str(name, "")
	if s == "" {
		return def
	}
	v, err := strconv.ParseFloat(s, 64)
	if err != nil {
		q.addf("%s: %q is not a number", name, s)
	}
	return v
}

func (q *query) int(name string, def int) int {
	s := q.str(name, "")
	if s == "" {
		return def
	}
	v, err := strconv.Atoi(s)
	if err != nil {
		q.addf("%s: %q is not a whole number", name, s)
	}
	return v
}

// window is the window parameter, 0 when absent; app.ParseWindow checks it
// as it checks --window.
func (q *query) window() time.Duration { return q.duration("window", 0) }

// duration reads a duration the way --window is read ("7d", "36h").
func (q *query) duration(name string, def time.Duration) time.Duration {
	s := q.str(name, "")
	if s == "" {
		return def
	}
	d, err := app.ParseWindow(s)
	if err != nil {
		q.addf("%s: %v", name, err)
	}
	return d
}

func (q *query) format(set []render.Format) render.Format {
	f, err := render.ParseFormat(q.str("output", string(render.JSON)), set)
	if err != nil {
		q.addf("output: %v", err)
	}
	return f
}

// time reads an RFC 3339 time or a duration before now ("7d": seven days
// ago).
func (q *query) time(name string, def, now time.Time) time.Time {
	s := q.str(name, "")
	if s == "" {
		return def
	}
	if t, err := time.Parse(time.RFC3339, s); err == nil {
		return t
	}
	d, err := app.ParseWindow(s)
	if err != nil {
		q.addf("%s: %q is neither an RFC 3339 time nor a duration before now (e.g. 7d)", name, s)
		return def
	}
	return now.Add(-d)
}

// contentType is the media type a format is served as.
func contentType(f render.Format) string {
	switch f {
	case render.JSON:
		return "application/json"
	case render.YAML:
		return "application/yaml"
	case render.CSV:
		return "text/csv; charset=utf-8"
	case render.Markdown:
		return "text/markdown; charset=utf-8"
	case render.HTML:
		return "text/html; charset=utf-8"
	case render.SARIF:
		return "application/sarif+json"
	}
	return "text/plain; charset=utf-8"
}
