package param

import (
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"
)

// FuzzQueryParams feeds API query strings, and the parameter names an
// endpoint takes (comma-separated), to the reader that serve's every
// route uses (issue 31). A string url.ParseQuery refuses is a 400 before
// any handler; an accepted one never panics, either lists problems or
// yields values within the limits the CLI's flags have (a window or
// duration within [MinWindow, MaxWindow]), and an unknown parameter is
// always a problem naming it. It lives here, not in serve, so that its
// instrumented binary is small: 6,620 executions in 30 s in serve
// (590 packages linked), ≥ 10,000 here (docs/performance.md).
func FuzzQueryParams(f *testing.F) {
	const routeNames = "by,idle-share,idle-threshold,top,low-util,window,output,from,to,kind,key,step,cluster,engineer-rate,shapes"
	for _, s := range []string{"window=7d", "by=namespace&output=csv", "window=1e400d", "from=2026-11-01T00:00:00Z&to=7d", "top=-1&top=3",
		"engineer-rate=1e308", "kind=%zz", "window=3000000h", "nope=1", "output=", "step=day&kind=pod", "window=0.5d&to=-1h", "from=9999-99-99T00:00:00Z"} {
		f.Add(s, routeNames)
	}
	f.Add("window=7d", "")
	now := time.Date(2026, 11, 8, 0, 0, 0, 0, time.UTC)
	f.Fuzz(func(t *testing.T, raw, names string) {
		vals, err := url.ParseQuery(raw)
		if err != nil {
			return // answered 400 before any handler (serve's TestBadPercentEncodingInAPIQueriesIs400)
		}
		var takes []string
		if names != "" {
			takes = strings.Split(names, ",")
		}
		q := New(vals, takes)
		unknown := 0
		for name := range vals {
			if !slices.Contains(takes, name) {
				unknown++
				if q.Known(name) {
					t.Fatalf("%q is known, not taken", name)
				}
			}
		}
		if len(q.Problems()) != unknown {
			t.Fatalf("%d unknown parameter(s), %d problem(s): %q", unknown, len(q.Problems()), q.Problems())
		}
		for _, p := range q.Problems() {
			if !strings.HasPrefix(p, "unknown parameter ") {
				t.Fatalf("problem %q before any value is read", p)
			}
		}
		for _, n := range takes {
			before := len(q.Problems())
			s := q.Str(n, "default")
			if vs, ok := vals[n]; ok && len(vs) > 0 && s != vs[0] || !ok && s != "default" {
				t.Fatalf("%s: Str %q of %q", n, s, vals[n])
			}
			q.List(n, nil)
			q.Float(n, 0)
			q.Int(n, 0)
			mid := len(q.Problems())
			if d := q.Duration(n, 0); d != 0 && len(q.Problems()) == mid && (d < MinWindow || d > MaxWindow) {
				t.Fatalf("%s=%q: duration %v accepted outside [%v, %v]", n, vals.Get(n), d, MinWindow, MaxWindow)
			}
			q.Time(n, now, now)
			if vs := vals[n]; len(vs) > 1 && len(q.Problems()) == before {
				t.Fatalf("%s given %d times and no problem", n, len(vs))
			}
		}
	})
}
