package serve

import (
	"fmt"
	"net/url"
	"strings"

	"github.com/gpuwise/gpuwise/internal/app"
	qparam "github.com/gpuwise/gpuwise/internal/param"
	"github.com/gpuwise/gpuwise/internal/render"
)

// query is a request's parameters, read by qparam.Query (internal/param) (the light
// package that FuzzQueryParams fuzzes) for the route's parameter names;
// serve adds the output format and the one usage error.
type query struct {
	*qparam.Query
	release func() // the compute slot's (Service.heavy), nil without one
}

// done gives back the compute slot q's answer held, if any.
func (q *query) done() {
	if q.release != nil {
		q.release()
		q.release = nil
	}
}

func newQuery(v url.Values, r route) *query {
	names := make([]string, len(r.Params))
	for i, p := range r.Params {
		names[i] = p.Name
	}
	return &query{Query: qparam.New(v, names)}
}

// err is every problem as one usage error.
func (q *query) err() error {
	if len(q.Problems()) == 0 {
		return nil
	}
	return &app.Error{Kind: app.Usage, Err: fmt.Errorf("%s", strings.Join(q.Problems(), "; "))}
}

func (q *query) format(set []render.Format) render.Format {
	f, err := render.ParseFormat(q.Str("output", string(render.JSON)), set)
	if err != nil {
		q.Addf("output: %v", err)
	}
	return f
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
