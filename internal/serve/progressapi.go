package serve

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"

	"github.com/gpuwise/gpuwise/internal/app"
	"github.com/gpuwise/gpuwise/internal/render"
)

// progressHandler answers the tracked savings plan (docs/progress.md):
// exactly `gpuwise progress --history FILE` in any format. Not cached by
// generation: a mark changes it between cycles.
func progressHandler(s *Service, rt route) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if s.State() == nil {
			writeError(w, http.StatusServiceUnavailable, "not ready", errors.New("no result yet: the first cycle is still running (see /readyz)"))
			return
		}
		vals, err := url.ParseQuery(r.URL.RawQuery)
		if err != nil {
			s.writeAppError(w, r, &app.Error{Kind: app.Usage, Err: fmt.Errorf("query string: %v (write a literal %% as %%25)", err)})
			return
		}
		q := newQuery(vals, rt)
		f := q.format(render.Formats)
		if err := q.err(); err != nil {
			s.writeAppError(w, r, err)
			return
		}
		res, err := s.coll.Progress(r.Context())
		if err != nil {
			s.writeAppError(w, r, err)
			return
		}
		var b bytes.Buffer
		in := render.ProgressInput{Cluster: res.Cluster, Source: res.Source, Plan: res.Plan, Proof: res.Proof, Notes: res.Notes}
		if err := render.Progress(&b, in, f, s.renderOptions()); err != nil {
			s.writeAppError(w, r, err)
			return
		}
		write(w, b.Bytes(), contentType(f), "")
	}
}

// markBody is the POST /api/v1/progress/marks body.
type markBody struct {
	ID     string `json:"id"`
	Status string `json:"status"` // applied, rejected or clear
	Note   string `json:"note"`
}

// markHandler records a user's mark on a tracked action. It writes
// gpuwise's own history, never the cluster, and only behind credentials:
// without --auth-token-file or --auth-basic-file anyone who reaches the
// port could mark, so it is refused (gpuwise progress mark --history is
// the way then).
func markHandler(s *Service, rt route) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if s.opts.BearerTokenFile == "" && s.opts.BasicAuthFile == "" {
			writeError(w, http.StatusForbidden, "denied", errors.New("marking actions through the API needs credentials: start serve with --auth-token-file or --auth-basic-file, or run gpuwise progress mark ID STATUS --history FILE"))
			return
		}
		body, err := io.ReadAll(io.LimitReader(r.Body, 8<<10))
		if err != nil {
			s.writeAppError(w, r, &app.Error{Kind: app.Usage, Err: fmt.Errorf("reading the body: %w", err)})
			return
		}
		var m markBody
		dec := json.NewDecoder(bytes.NewReader(body))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&m); err != nil {
			s.writeAppError(w, r, &app.Error{Kind: app.Usage, Err: fmt.Errorf(`body: %v (want {"id": "...", "status": "applied|rejected|clear", "note": "..."})`, err)})
			return
		}
		status := m.Status
		switch status {
		case "clear":
			status = ""
		case "":
			status = "(empty)"
		}
		a, err := s.coll.Mark(r.Context(), app.MarkRequest{ID: m.ID, Status: status, Note: m.Note})
		if err != nil {
			s.writeAppError(w, r, err)
			return
		}
		out, err := json.MarshalIndent(a, "", "  ")
		if err != nil {
			s.writeAppError(w, r, err)
			return
		}
		write(w, append(out, '\n'), "application/json", "")
	}
}
