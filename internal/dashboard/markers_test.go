//go:build browser

package dashboard_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// reshareAt is when the fixture turns 4 whole GPUs into MIG GPUs: a
// bucket away from the demo's capacity changes and the compare marker.
const reshareAt = "2026-11-03T00:00:00Z"

// reshare serves the demo with a sharing change in its history: from
// reshareAt on, every history answer's fleet has 4 GPUs of its first
// exclusive model moved to mig.
func reshare(t *testing.T, d *demo) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(d.wrap(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/api/v1/history" {
			d.handler.ServeHTTP(w, r)
			return
		}
		r.Header.Del("Accept-Encoding")
		rec := httptest.NewRecorder()
		d.handler.ServeHTTP(rec, r)
		body := rec.Body.Bytes()
		if rec.Code == http.StatusOK {
			body = reshareFleet(t, body)
		}
		w.Header().Set("Content-Type", rec.Header().Get("Content-Type"))
		w.WriteHeader(rec.Code)
		w.Write(body)
	})))
	t.Cleanup(srv.Close)
	return srv
}

func reshareFleet(t *testing.T, body []byte) []byte {
	var a map[string]any
	if err := json.Unmarshal(body, &a); err != nil {
		t.Errorf("history answer: %v", err)
		return body
	}
	fleet, _ := a["fleet"].([]any)
	model := ""
	for _, f := range fleet {
		p := f.(map[string]any)
		if model == "" && p["sharing"] == "exclusive" && p["gpus"].(float64) >= 4 {
			model = p["gpu_model"].(string)
		}
	}
	for _, f := range fleet {
		p := f.(map[string]any)
		if p["bucket"].(string) >= reshareAt && p["gpu_model"] == model && p["sharing"] == "exclusive" {
			p["gpus"] = p["gpus"].(float64) - 4
			fleet = append(fleet, map[string]any{"bucket": p["bucket"], "gpu_model": model, "sharing": "mig", "gpus": 4.0})
		}
	}
	a["fleet"] = fleet
	out, err := json.Marshal(a)
	if err != nil {
		t.Error(err)
		return body
	}
	return bytes.TrimSpace(out)
}

// A history with a sharing change: every trend chart draws a marker at
// the change labelled with what changed, and the page has no console
// errors or failed requests.
func TestChartsMarkASharingChange(t *testing.T) {
	d := start(t)
	srv := reshare(t, d)
	tb := newTab(t, 1366, 768, false)
	d.failed.reset()
	tb.open(t, srv.URL+"/?view=overview")
	whole, mig := 0, 0 // the demo's GPUs the hour before the change
	before := d.answer(t, "api/v1/history?kind=gpu_model&from=2026-11-02T23:00:00Z&to="+reshareAt)
	for _, f := range before.(map[string]any)["fleet"].([]any) {
		p := f.(map[string]any)
		switch p["sharing"] {
		case "exclusive":
			whole += int(p["gpus"].(float64))
		case "mig":
			mig += int(p["gpus"].(float64))
		}
	}
	if whole < 4 {
		t.Fatalf("the hour before the change has %d whole GPUs", whole)
	}
	want := fmt.Sprintf("Whole: %d → %d GPUs, MIG: %d → %d GPUs", whole, whole-4, mig, mig+4)
	labels := eval[[]string](t, tb, `[...document.querySelectorAll("figure.chart svg line.marker + text")].map((e) => e.textContent)`)
	if n := strings.Count(strings.Join(labels, "\n"), want); n != 3 {
		t.Errorf("%d charts mark %q, want 3; markers: %q", n, want, labels)
	}
	screenshot(t, tb, "laptop-overview-sharing-change")
	if p := tb.problems(); len(p) > 0 {
		t.Errorf("console: %v", p)
	}
	if f := d.failed.list(); len(f) > 0 {
		t.Errorf("failed requests: %v", f)
	}
}
