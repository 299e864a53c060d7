package serve

import (
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/gpuwise/gpuwise/internal/app"
	"github.com/gpuwise/gpuwise/internal/render"
)

// TestQueryParamsOfEveryRoute: every route reads its parameters through
// internal/param's Query (fuzzed there, FuzzQueryParams); here, over
// the fuzz target's seeds, serve's part: the route's names are the ones
// known, an unknown parameter is a problem naming it, the output format
// is checked, and err is a usage error exactly when there are problems.
func TestQueryParamsOfEveryRoute(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 11, 8, 0, 0, 0, 0, time.UTC)
	for _, raw := range []string{"window=7d", "by=namespace&output=csv", "window=1e400d", "from=2026-11-01T00:00:00Z&to=7d", "top=-1&top=3",
		"engineer-rate=1e308", "window=3000000h", "nope=1", "output=", "output=sarif", "step=day&kind=pod", ""} {
		vals, err := url.ParseQuery(raw)
		if err != nil {
			t.Fatal(err)
		}
		for _, rt := range routes() {
			q := newQuery(vals, rt)
			for _, p := range rt.Params {
				if !q.Known(p.Name) {
					t.Errorf("%s: its parameter %s is not known", rt.Path, p.Name)
				}
				q.Str(p.Name, p.Default)
				if d := q.Duration(p.Name, 0); d != 0 && len(q.Problems()) == 0 && (d < app.MinWindow || d > app.MaxWindow) {
					t.Errorf("%s %s=%q: duration %v accepted", rt.Path, p.Name, vals.Get(p.Name), d)
				}
				q.Time(p.Name, now, now)
			}
			q.format(render.Formats)
			err := q.err()
			if (err == nil) != (len(q.Problems()) == 0) || err != nil && app.KindOf(err) != app.Usage {
				t.Errorf("%s %q: err %v with %d problems", rt.Path, raw, err, len(q.Problems()))
			}
			for name := range vals {
				if !q.Known(name) && (err == nil || !strings.Contains(err.Error(), "unknown parameter \""+name+"\"")) {
					t.Errorf("%s: unknown parameter %q accepted", rt.Path, name)
				}
			}
		}
	}
}
