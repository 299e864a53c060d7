package serve

import (
	"bytes"
	"context"
	"net/http"

	"github.com/gpuwise/gpuwise/internal/app"
	"github.com/gpuwise/gpuwise/internal/ledger"
	"github.com/gpuwise/gpuwise/internal/render"
)

var adviseParams = []param{
	{Name: "levers", Description: "levers to apply, comma-separated (default all, always in the documented order)"},
	{Name: "engineer-rate", Description: "engineering cost in $ per hour, for payback", Default: "100"},
	windowParam, outputParam(formatOutputs),
}

// adviseHandler answers the savings ledger on the window: exactly
// `gpuwise advise -o json` (the dashboard's actions and recoverable $).
func adviseHandler(s *Service, rt route) http.HandlerFunc {
	return s.api(rt, func(ctx context.Context, q *query, st *State) (*answer, error) {
		req := app.DefaultAdviseRequest()
		req.Data, req.PolicyFile = s.data(q, st), s.opts.PolicyFile
		req.Levers = q.list("levers", nil)
		req.EngineerUSDPerHour = q.float("engineer-rate", ledger.DefaultEngineerUSDPerHour)
		f := q.format(render.Formats)
		q.add(req.Validate())
		if err := q.err(); err != nil {
			return nil, err
		}
		res, err := s.app.Advise(ctx, req)
		if err != nil {
			return nil, err
		}
		return rendered(f, res.Partial, func(b *bytes.Buffer) error { return render.Ledger(b, res.Ledger, f, s.renderOptions()) })
	})
}
