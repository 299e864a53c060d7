package serve

import (
	"bytes"
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"net"
	"net/http"
	"os"
	"slices"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/common/expfmt"

	"github.com/gpuwise/gpuwise/internal/app"
	"github.com/gpuwise/gpuwise/internal/serve/auth"
)

// Handler is the service's HTTP front end: every route of routes(), the
// metrics of gatherer on /metrics, auth on all but the public routes, and
// a log line per request (method, path, status, duration; never headers).
func (s *Service) Handler(gatherer prometheus.Gatherer) (http.Handler, error) {
	guard, err := auth.Load(s.opts.BearerTokenFile, s.opts.BasicAuthFile)
	if err != nil {
		return nil, &app.Error{Kind: app.Input, Err: err}
	}
	ui := s.opts.UI
	if ui == nil {
		ui = UI()
	}
	mux := http.NewServeMux()
	for _, rt := range routes() {
		h := s.routeHandler(rt, gatherer, ui)
		if rt.Path != "/metrics" { // it compresses inside its queue
			h = compressed(h)
		}
		if guard != nil && !rt.Public {
			h = guard.Guard(h)
		}
		pattern := rt.Method + " " + rt.Path
		if rt.Path == "/" {
			pattern = "GET /"
		}
		mux.Handle(pattern, h)
	}
	return s.logRequests(s.secured(mux)), nil
}

func (s *Service) routeHandler(rt route, gatherer prometheus.Gatherer, ui fs.FS) http.Handler {
	switch rt.Path {
	case "/metrics":
		// Scrapes wait their turn to be written: promhttp's
		// MaxRequestsInFlight answered 503 at once to 83-85 % of 32
		// concurrent clients (issue 31).
		return queued(compressed(s.metrics(gatherer)), MetricsInFlight, MetricsQueueWait)
	case "/":
		return uiHandler(ui)
	case "/team/{value}":
		return teamHandler(ui)
	}
	return rt.handler(s, rt)
}

// metrics writes the published frame's domain metrics, gathered once per
// cycle and encoded once per format (exporter.Exposition), then live's
// families (the service's own, the runtime's), gathered per scrape: at
// 10,000 GPUs rebuilding the thousands of domain series on every scrape
// made its p99 256-290 ms while API clients computed answers (issue 32).
// Formats as promhttp negotiates them (OpenMetrics included); name[]
// keeps only the families named, as promhttp does.
func (s *Service) metrics(live prometheus.Gatherer) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		format := expfmt.NegotiateAccept(r.Header, expfmt.DefaultOpenMetricsAcceptedFormats()...)
		fams, err := live.Gather()
		if err != nil {
			s.metricsError(w, "gathering the service's metrics", err)
			return
		}
		var keep func(string) bool
		if names := r.URL.Query()["name[]"]; len(names) > 0 {
			keep = func(n string) bool { return slices.Contains(names, n) }
		}
		x := s.coll.Exposition()
		var frame []byte
		if keep == nil {
			if frame, err = x.Encoded(format); err != nil {
				s.metricsError(w, "encoding the domain metrics", err)
				return
			}
		} else {
			var b bytes.Buffer
			if err := x.Write(&b, format, keep); err != nil {
				s.metricsError(w, "encoding the domain metrics", err)
				return
			}
			frame = b.Bytes()
		}
		w.Header().Add("Vary", "Accept")
		w.Header().Set("Content-Type", string(format))
		if _, err := w.Write(frame); err != nil {
			return // the scraper went away
		}
		enc := expfmt.NewEncoder(w, format)
		for _, mf := range fams {
			if keep != nil && !keep(mf.GetName()) {
				continue
			}
			if err := enc.Encode(mf); err != nil {
				s.log.Error("metrics", "err", fmt.Sprintf("encoding %s: %v", mf.GetName(), err))
				return
			}
		}
		if c, ok := enc.(expfmt.Closer); ok { // OpenMetrics' "# EOF"
			if err := c.Close(); err != nil {
				s.log.Error("metrics", "err", err.Error())
			}
		}
	})
}

// metricsError answers 500 naming what failed, as promhttp does.
func (s *Service) metricsError(w http.ResponseWriter, what string, err error) {
	s.log.Error("metrics", "err", fmt.Sprintf("%s: %v", what, err))
	http.Error(w, fmt.Sprintf("An error has occurred while serving metrics (%s):\n\n%v", what, err), http.StatusInternalServerError)
}

// MetricsInFlight scrapes of /metrics are written at once; more wait up
// to MetricsQueueWait for a turn, then get a 503 with Retry-After (a
// scrape at 10,000 GPUs took 73-118 ms, docs/performance.md, so a queue
// of dozens drains well within the wait).
const (
	MetricsInFlight  = 8
	MetricsQueueWait = 10 * time.Second
)

// queued lets n requests run at once and queues the rest for up to wait.
func queued(h http.Handler, n int, wait time.Duration) http.Handler {
	slots := make(chan struct{}, n)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		t := time.NewTimer(wait)
		defer t.Stop()
		select {
		case slots <- struct{}{}:
		case <-t.C:
			w.Header().Set("Retry-After", "1")
			http.Error(w, fmt.Sprintf("%d scrapes in flight and none finished within %v: try again", n, wait), http.StatusServiceUnavailable)
			return
		case <-r.Context().Done():
			return
		}
		defer func() { <-slots }()
		h.ServeHTTP(w, r)
	})
}

type statusWriter struct {
	http.ResponseWriter
	status int
}

func (w *statusWriter) WriteHeader(code int) {
	w.status = code
	w.ResponseWriter.WriteHeader(code)
}

// errNote carries a 5xx answer's error from the handler to the request's
// log line (issue 31 M7: the line carried only the status).
type errNote struct{ msg string }

type errNoteKey struct{}

func noteError(r *http.Request, msg string) {
	if n, ok := r.Context().Value(errNoteKey{}).(*errNote); ok {
		n.msg = msg
	}
}

func (s *Service) logRequests(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		sw := &statusWriter{ResponseWriter: w, status: http.StatusOK}
		note := &errNote{}
		next.ServeHTTP(sw, r.WithContext(context.WithValue(r.Context(), errNoteKey{}, note)))
		lvl := slog.LevelDebug
		if sw.status >= 400 {
			lvl = slog.LevelInfo
		}
		attrs := []any{"method", r.Method, "path", r.URL.Path, "status", sw.status, "seconds", time.Since(start).Seconds()}
		if note.msg != "" {
			attrs = append(attrs, "err", note.msg)
		}
		s.log.Log(r.Context(), lvl, "http", attrs...)
	})
}

// Serve runs the cycles and serves HTTP on ln until ctx ends, then shuts
// down gracefully: no new connections, requests in flight finish (within
// ShutdownTimeout), the cycle stops at its next step, the history closes.
func (s *Service) Serve(ctx context.Context, ln net.Listener, h http.Handler) error {
	srv := &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second, ReadTimeout: time.Minute,
		WriteTimeout: 5 * time.Minute, IdleTimeout: 2 * time.Minute, ErrorLog: slog.NewLogLogger(s.log.Handler(), slog.LevelWarn)}
	if s.opts.TLSCertFile != "" {
		kp, err := newKeyPair(s.opts.TLSCertFile, s.opts.TLSKeyFile)
		if err != nil {
			// A missing or bad certificate is an input error (exit 3), not
			// a bug (issue 31: it exited 1).
			return &app.Error{Kind: app.Input, Err: err}
		}
		srv.TLSConfig = &tls.Config{MinVersion: tls.VersionTLS12, GetCertificate: kp.get}
		ln = tls.NewListener(ln, srv.TLSConfig)
	}
	var wg sync.WaitGroup
	cycles, stop := context.WithCancel(ctx)
	defer stop()
	wg.Go(func() { s.Run(cycles) })
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	s.log.Info("serving", "address", ln.Addr().String(), "tls", s.opts.TLSCertFile != "", "mode", s.coll.Mode(), "cluster", s.opts.Cluster)
	var err error
	select {
	case <-ctx.Done():
	case err = <-errc:
	}
	stop()
	sctx, cancel := context.WithTimeout(context.Background(), s.opts.ShutdownTimeout)
	defer cancel()
	if serr := srv.Shutdown(sctx); serr != nil && err == nil {
		err = fmt.Errorf("shutting down: %w", serr)
	}
	wg.Wait()
	if errors.Is(err, http.ErrServerClosed) {
		err = nil
	}
	s.log.Info("stopped")
	return err
}

// keyPair reloads the certificate when its files change (a rotated
// Secret), checking at most once a minute.
type keyPair struct {
	certFile, keyFile string
	mu                sync.Mutex
	cert              *tls.Certificate
	mod               time.Time
	checked           time.Time
}

func newKeyPair(certFile, keyFile string) (*keyPair, error) {
	kp := &keyPair{certFile: certFile, keyFile: keyFile}
	if err := kp.load(); err != nil {
		return nil, err
	}
	return kp, nil
}

func (kp *keyPair) load() error {
	c, err := tls.LoadX509KeyPair(kp.certFile, kp.keyFile)
	if err != nil {
		return fmt.Errorf("loading TLS certificate %s and key %s: %w", kp.certFile, kp.keyFile, err)
	}
	kp.cert = &c
	if fi, err := os.Stat(kp.certFile); err == nil {
		kp.mod = fi.ModTime()
	}
	return nil
}

func (kp *keyPair) get(*tls.ClientHelloInfo) (*tls.Certificate, error) {
	kp.mu.Lock()
	defer kp.mu.Unlock()
	if time.Since(kp.checked) > time.Minute {
		kp.checked = time.Now()
		if fi, err := os.Stat(kp.certFile); err == nil && fi.ModTime().After(kp.mod) {
			kp.load() // on failure keep serving the certificate loaded before
		}
	}
	return kp.cert, nil
}
