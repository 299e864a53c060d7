package dashboard_test

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/gpuwise/gpuwise/internal/app"
	"github.com/gpuwise/gpuwise/internal/proctest"
	"github.com/gpuwise/gpuwise/internal/serve"
)

// demo is `gpuwise serve --demo` behind a test server that records every
// failed request.
type demo struct {
	url     string
	handler http.Handler // the service's, unwrapped
	failed  recorder
	mu      sync.Mutex
	answers map[string]any
}

type recorder struct {
	mu       sync.Mutex
	failures []string
}

func (r *recorder) add(s string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.failures = append(r.failures, s)
}

func (r *recorder) reset() {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.failures = nil
}

func (r *recorder) list() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]string(nil), r.failures...)
}

type statusWriter struct {
	http.ResponseWriter
	status int
}

func (w *statusWriter) WriteHeader(code int) {
	w.status = code
	w.ResponseWriter.WriteHeader(code)
}

func (d *demo) wrap(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		sw := &statusWriter{ResponseWriter: w, status: http.StatusOK}
		h.ServeHTTP(sw, r)
		if sw.status >= 400 {
			d.failed.add(r.Method + " " + r.URL.String() + ": " + strconv.Itoa(sw.status))
		}
	})
}

var (
	demoOnce     sync.Once
	demoInst     *demo
	demoErr      error
	stopServices = func() {}
	// stopBrowser ends the browser tier's Chromium, when it started one.
	stopBrowser = func() {}
)

// start is one shared --demo service for the test binary.
func start(t *testing.T) *demo {
	t.Helper()
	demoOnce.Do(func() { demoInst, demoErr = newDemo(nil, false) })
	if demoErr != nil {
		t.Fatal(demoErr)
	}
	return demoInst
}

// newDemo starts `serve --demo` (with prices: `--bill`/`--prices`, nil
// for the catalog's; applied: `--demo-applied`, part of the plan carried
// out); stopServices stops every one started.
func newDemo(prices *app.Prices, applied bool) (*demo, error) {
	reg := prometheus.NewRegistry()
	opts := serve.DefaultOptions()
	opts.Demo, opts.Listen, opts.Prices, opts.DemoApplied = app.DefaultDemo(), "127.0.0.1:0", prices, applied
	svc, err := serve.New(context.Background(), opts, serve.Deps{App: app.New(time.Now),
		Log: slog.New(slog.NewTextHandler(io.Discard, nil)), Registry: prometheus.WrapRegistererWith(prometheus.Labels{"cluster": "default"}, reg)})
	if err != nil {
		return nil, err
	}
	h, err := svc.Handler(reg)
	if err != nil {
		return nil, err
	}
	d := &demo{answers: map[string]any{}, handler: h}
	srv := httptest.NewServer(d.wrap(h))
	d.url = srv.URL
	prev := stopServices
	stopServices = func() {
		srv.Close()
		svc.Close()
		prev()
	}
	return d, nil
}

func TestMain(m *testing.M) {
	proctest.CloseInherited() // no Chromium this test starts holds the integration lock
	code := m.Run()
	stopBrowser()
	stopServices()
	os.Exit(code)
}
