package serve

import (
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/gpuwise/gpuwise/internal/app"
	"github.com/gpuwise/gpuwise/internal/render"
)

// FuzzQueryParams feeds the API's query strings to the parameter reader
// of every route. A string url.ParseQuery refuses is a 400 (issue 31); an
// accepted one either lists problems or yields values within the limits
// the CLI's flags have; an unknown parameter is always a problem naming it.
func FuzzQueryParams(f *testing.F) {
	for _, s := range []string{"window=7d", "by=namespace&output=csv", "window=1e400d", "from=2026-11-01T00:00:00Z&to=7d", "top=-1&top=3",
		"engineer-rate=1e308", "kind=%zz", "window=3000000h", "nope=1", "output=", "step=day&kind=pod"} {
		f.Add(s)
	}
	rts := routes()
	now := time.Date(2026, 11, 8, 0, 0, 0, 0, time.UTC)
	f.Fuzz(func(t *testing.T, raw string) {
		vals, err := url.ParseQuery(raw)
		if err != nil {
			return // answered 400 before any handler (TestBadPercentEncodingInAPIQueriesIs400)
		}
		for _, rt := range rts {
			q := newQuery(vals, rt)
			for _, p := range rt.Params {
				q.str(p.Name, p.Default)
				q.list(p.Name, nil)
				q.float(p.Name, 0)
				q.int(p.Name, 0)
				if d := q.duration(p.Name, 0); d != 0 && len(q.problems) == 0 && (d < app.MinWindow || d > app.MaxWindow) {
					t.Fatalf("%s %s=%q: duration %v accepted outside [%v, %v]", rt.Path, p.Name, vals.Get(p.Name), d, app.MinWindow, app.MaxWindow)
				}
				q.time(p.Name, now, now)
			}
			q.format(render.Formats)
			err := q.err()
			if (err == nil) != (len(q.problems) == 0) {
				t.Fatalf("%s: err %v with %d problems", rt.Path, err, len(q.problems))
			}
			for name := range vals {
				if !q.known[name] && (err == nil || !strings.Contains(err.Error(), "unknown parameter")) {
					t.Fatalf("%s: unknown parameter %q accepted", rt.Path, name)
				}
			}
		}
	})
}
