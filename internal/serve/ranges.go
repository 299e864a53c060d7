package serve

import (
	"strings"
	"time"

	"github.com/gpuwise/gpuwise/internal/app"
	"github.com/gpuwise/gpuwise/internal/cluster"
)

// Every endpoint takes the same range parameters (docs/dashboard.md,
// "Time"): range (a length ending at the latest results) or from and to
// (times, or lengths before the latest results). The latest results are
// the end of the service's window, so that "the last 7 days" of a demo,
// whose week ended in the past, is its last recorded week.
var (
	rangeParam = param{Name: "range", Description: "the range ending at the latest results (the window's end): " + rangeForms + "; or give from and to",
		Default: "the service's window"}
	fromParam    = param{Name: "from", Description: "range start: RFC 3339, or a length before the latest results (7d)", Default: "the window's start"}
	toParam      = param{Name: "to", Description: "range end: RFC 3339, or a length before the latest results", Default: "the window's end"}
	compareParam = param{Name: "compare", Description: "the comparison period: previous (as long as the range, just before it), none, or a pinned baseline FROM..TO (two RFC 3339 times)",
		Default: "previous"}
	rangeParams = []param{rangeParam, fromParam, toParam}
)

const rangeForms = "24h, 7d, 30d, 90d or any length of whole hours from 1h to 93d"

// maxRange is the longest range an answer reads (the history's hourly
// reach, app's).
const maxRange = 93 * 24 * time.Hour

// span is the range the request asks for (range, or from and to) and
// whether it asked for one; problems go on q, each naming its parameter
// and the forms it takes.
func (s *Service) span(q *query, st *State) (cluster.Window, bool) {
	end := st.Window.End
	r, from, to := q.Str("range", ""), q.Str("from", ""), q.Str("to", "")
	if r != "" {
		if from != "" || to != "" {
			q.Addf("range: give range or from and to, not both")
			return st.Window, false
		}
		d, ok := rangeLength(q, "range", r)
		if !ok {
			return st.Window, false
		}
		return cluster.Window{Start: end.Add(-d), End: end}, true
	}
	if from == "" && to == "" {
		return st.Window, false
	}
	w := cluster.Window{Start: s.rangeTime(q, "from", from, st.Window.Start, end), End: s.rangeTime(q, "to", to, end, end)}
	switch {
	case !w.End.After(w.Start):
		q.Addf("to: %s is not after from %s", w.End.UTC().Format(time.RFC3339), w.Start.UTC().Format(time.RFC3339))
	case w.End.Sub(w.Start) > maxRange:
		q.Addf("from..to: %s is longer than %s, the most one answer reads", app.FormatWindow(w.End.Sub(w.Start)), app.FormatWindow(maxRange))
	}
	return w, true
}

// rangeLength reads a range length: whole hours, 1h..93d.
func rangeLength(q *query, name, v string) (time.Duration, bool) {
	d, err := app.ParseWindow(v)
	if err != nil || d%time.Hour != 0 || d > maxRange {
		q.Addf("%s: %q is not a range: write %s", name, v, rangeForms)
		return 0, false
	}
	return d, true
}

func (s *Service) rangeTime(q *query, name, v string, def, end time.Time) time.Time {
	if v == "" {
		return def
	}
	if t, err := time.Parse(time.RFC3339, v); err == nil {
		return t
	}
	d, err := app.ParseWindow(v)
	if err != nil {
		q.Addf("%s: %q is neither an RFC 3339 time (2026-11-01T00:00:00Z) nor a length before the latest results (7d)", name, v)
		return def
	}
	return end.Add(-d)
}

// comparison is the period the compare parameter asks for against w:
// previous (the default), none (nil) or FROM..TO.
func comparison(q *query, w cluster.Window) *cluster.Window {
	v := q.Str("compare", "previous")
	switch v {
	case "previous":
		d := w.End.Sub(w.Start)
		return &cluster.Window{Start: w.Start.Add(-d), End: w.Start}
	case "none":
		return nil
	}
	a, b, ok := strings.Cut(v, "..")
	from, err1 := time.Parse(time.RFC3339, a)
	to, err2 := time.Parse(time.RFC3339, b)
	if !ok || err1 != nil || err2 != nil {
		q.Addf("compare: %q is not previous, none or a baseline FROM..TO of two RFC 3339 times (2026-10-01T00:00:00Z..2026-10-08T00:00:00Z)", v)
		return nil
	}
	return &cluster.Window{Start: from, End: to}
}

// windowOnly checks that a snapshot endpoint (report, audit, recommend,
// plan, advise: computed from the window's samples) is asked about the
// service's window only; any other range or window is a usage error that
// says why and where that range is answered. It clears the request's
// window, checked here.
func (s *Service) windowOnly(q *query, st *State, d *app.Data) {
	w, asked := s.span(q, st)
	have := st.Window.End.Sub(st.Window.Start)
	name, want, hint := "range", "", ""
	switch {
	case asked && (!w.Start.Equal(st.Window.Start) || !w.End.Equal(st.Window.End)):
		from, to := w.Start.UTC().Format(time.RFC3339), w.End.UTC().Format(time.RFC3339)
		name, want, hint = "from..to", from+".."+to, "from="+from+"&to="+to
		if r := q.Str("range", ""); r != "" {
			name, want, hint = "range", r, "range="+r
		}
	case d.Window != 0 && d.Window != have:
		name, want = "window", app.FormatWindow(d.Window)
		hint = "range=" + want
	}
	d.Window = 0
	if want == "" {
		return
	}
	q.Addf("%s: %s is not this service's window (%s, %s..%s): this answer is computed from the window's samples, which the service holds for its window only; "+
		"over any range of the history ask /api/v1/showback or /api/v1/history (%s), or run serve --window for this answer on another window",
		name, want, app.FormatWindow(have), st.Window.Start.UTC().Format(time.RFC3339), st.Window.End.UTC().Format(time.RFC3339), hint)
}
