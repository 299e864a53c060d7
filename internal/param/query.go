package param

import (
	"fmt"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Query reads a request's parameters the way the CLI reads its flags,
// collecting every problem so that one answer (serve's 400) lists them
// all. Each reader returns its default when the parameter is absent or
// empty, and the value it could read (zero) with a problem when it is
// malformed.
type Query struct {
	v        url.Values
	known    map[string]bool
	problems []string
}

// New reads v for an endpoint that takes the parameters names; a
// parameter not among them is a problem naming the ones it takes.
func New(v url.Values, names []string) *Query {
	q := &Query{v: v, known: make(map[string]bool, len(names))}
	for _, n := range names {
		q.known[n] = true
	}
	takes := "none"
	if len(names) > 0 {
		takes = strings.Join(names, ", ")
	}
	var unknown []string
	for name := range v {
		if !q.known[name] {
			unknown = append(unknown, name)
		}
	}
	// In a stable order (url.Values is a map), so that the same request
	// gets the same answer.
	slices.Sort(unknown)
	for _, name := range unknown {
		q.Addf("unknown parameter %q (this endpoint takes %s)", name, takes)
	}
	return q
}

// Known says whether the endpoint takes the parameter name.
func (q *Query) Known(name string) bool { return q.known[name] }

// Problems are the problems found so far, in the order found.
func (q *Query) Problems() []string { return q.problems }

// Addf adds a problem.
func (q *Query) Addf(format string, args ...any) {
	q.problems = append(q.problems, fmt.Sprintf(format, args...))
}

// Add adds err as a problem; nil adds none.
func (q *Query) Add(err error) {
	if err != nil {
		q.problems = append(q.problems, err.Error())
	}
}

// AddEach adds each of a joined error's problems (errors.Join), or err.
func (q *Query) AddEach(err error) {
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		for _, e := range j.Unwrap() {
			q.Add(e)
		}
		return
	}
	q.Add(err)
}

// Str is the parameter's value, def when absent; given more than once is
// a problem (the first is read).
func (q *Query) Str(name, def string) string {
	if vs, ok := q.v[name]; ok && len(vs) > 0 {
		if len(vs) > 1 {
			q.Addf("%s: given %d times", name, len(vs))
		}
		return vs[0]
	}
	return def
}

// List is a comma-separated value, def when absent or empty.
func (q *Query) List(name string, def []string) []string {
	s := q.Str(name, "")
	if s == "" {
		return def
	}
	return strings.Split(s, ",")
}

// Float is a number, def when absent or empty.
func (q *Query) Float(name string, def float64) float64 {
	s := q.Str(name, "")
	if s == "" {
		return def
	}
	v, err := strconv.ParseFloat(s, 64)
	if err != nil {
		q.Addf("%s: %q is not a number", name, s)
	}
	return v
}

// Int is a whole number, def when absent or empty.
func (q *Query) Int(name string, def int) int {
	s := q.Str(name, "")
	if s == "" {
		return def
	}
	v, err := strconv.Atoi(s)
	if err != nil {
		q.Addf("%s: %q is not a whole number", name, s)
	}
	return v
}

// Window is the window parameter, 0 when absent; ParseWindow checks it
// as it checks --window.
func (q *Query) Window() time.Duration { return q.Duration("window", 0) }

// Duration reads a duration the way --window is read ("7d", "36h"),
// within MinWindow and MaxWindow; def when absent or empty.
func (q *Query) Duration(name string, def time.Duration) time.Duration {
	s := q.Str(name, "")
	if s == "" {
		return def
	}
	d, err := ParseWindow(s)
	if err != nil {
		q.Addf("%s: %v", name, err)
	}
	return d
}

// Time reads an RFC 3339 time or a duration before now ("7d": seven days
// ago); def when absent or empty.
func (q *Query) Time(name string, def, now time.Time) time.Time {
	s := q.Str(name, "")
	if s == "" {
		return def
	}
	if t, err := time.Parse(time.RFC3339, s); err == nil {
		return t
	}
	d, err := ParseWindow(s)
	if err != nil {
		q.Addf("%s: %q is neither an RFC 3339 time nor a duration before now (e.g. 7d)", name, s)
		return def
	}
	return now.Add(-d)
}
