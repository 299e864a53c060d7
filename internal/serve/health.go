package serve

import (
	"context"
	"fmt"
	"net/http"
	"time"

	"github.com/gpuwise/gpuwise/internal/app"
	"github.com/gpuwise/gpuwise/internal/cluster"
)

func healthz(_ *Service, _ route) http.HandlerFunc {
	return func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		fmt.Fprintln(w, "ok")
	}
}

// readyz is 200 once a result exists, whatever happened to later cycles
// (the last good result is still served); 503 before, and 503 once the
// history file showed itself damaged.
func readyz(s *Service, _ route) http.HandlerFunc {
	return func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		st := s.State()
		if st == nil {
			w.WriteHeader(http.StatusServiceUnavailable)
			fmt.Fprintln(w, "not ready: the first cycle is still running")
			return
		}
		if d := s.damaged.Load(); d != nil {
			// Every history answer would be a 500: take the pod out of
			// the Service and say why (issue 31 M7).
			w.WriteHeader(http.StatusServiceUnavailable)
			fmt.Fprintf(w, "not ready: %s\n", *d)
			return
		}
		fmt.Fprintf(w, "ready: window %s..%s\n", st.Window.Start.UTC().Format(time.RFC3339), st.Window.End.UTC().Format(time.RFC3339))
	}
}

// status is the service's own account of itself.
type status struct {
	Cluster    string         `json:"cluster"`
	Version    string         `json:"version"`
	Mode       string         `json:"mode"`
	Window     cluster.Window `json:"window"`
	Interval   string         `json:"interval"`
	Built      time.Time      `json:"results_built"`
	Checked    time.Time      `json:"sources_checked"`
	Partial    string         `json:"partial,omitempty"`
	Stale      string         `json:"stale,omitempty"`
	Generation uint64         `json:"generation"`
	History    string         `json:"history"`
	// HistoryLabels are the labels the history keeps rows by (the
	// showback's label:KEY groupings).
	HistoryLabels []string `json:"history_labels"`
}

func statusHandler(s *Service, rt route) http.HandlerFunc {
	return s.api(rt, func(_ context.Context, q *query, st *State) (*answer, error) {
		if err := q.err(); err != nil {
			return nil, err
		}
		hist := s.opts.HistoryPath
		if hist == "" {
			hist = "a temporary file (removed on exit: set --history)"
		}
		a := status{Cluster: s.opts.Cluster, Version: s.opts.Version, Mode: s.coll.Mode(), Window: st.Window, Interval: s.opts.Interval.String(),
			Built: st.Built, Checked: st.Checked, Partial: s.scrub.text(errString(st.Snapshot.Partial)), Stale: s.scrub.text(errString(st.Stale)),
			Generation: st.Generation, History: hist, HistoryLabels: append([]string{}, s.opts.HistoryLabels...)}
		return jsonAnswer(a, nil)
	})
}

// noteDamage records err when it shows the history file corrupt.
func (s *Service) noteDamage(err error) {
	if err == nil || !app.HistoryDamaged(err) {
		return
	}
	msg := s.scrub.text(err.Error())
	if s.damaged.CompareAndSwap(nil, &msg) {
		s.log.Error("history damaged: /readyz fails until the file is restored or replaced", "history", s.opts.HistoryPath, "err", msg)
	}
}
