package api

import (
	"context"
	"encoding/base64"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// TestRetryAfter: the wait a 429 or 503 asks for is honoured (longer than
// the backoff), and one longer than MaxRetryAfter is not waited for.
func TestRetryAfter(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name       string
		header     string
		wantWaits  []time.Duration
		wantCalls  int32
		wantErr    string
		maxRetryAt time.Duration
	}{
		{"seconds", "7", []time.Duration{7 * time.Second}, 2, "", time.Minute},
		{"an HTTP date", time.Now().Add(20 * time.Second).UTC().Format(http.TimeFormat), []time.Duration{18 * time.Second}, 2, "", time.Minute}, // the date is to the second
		{"longer than allowed", "3600", nil, 1, "asked to retry after 1h0m0s", time.Minute},
		{"none: the backoff", "", []time.Duration{time.Millisecond}, 2, "", time.Minute},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var calls atomic.Int32
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if calls.Add(1) == 1 {
					if tt.header != "" {
						w.Header().Set("Retry-After", tt.header)
					}
					w.WriteHeader(http.StatusTooManyRequests)
					return
				}
				w.Write([]byte(ok))
			}))
			t.Cleanup(srv.Close)
			cfg := testConfig(srv.URL)
			cfg.MaxRetryAfter = tt.maxRetryAt
			c := newClient(t, cfg)
			var waits []time.Duration
			c.sleep = func(_ context.Context, d time.Duration) error { waits = append(waits, d); return nil }
			_, err := list(c)
			if calls.Load() != tt.wantCalls || (tt.wantErr == "") != (err == nil) || err != nil && !strings.Contains(err.Error(), tt.wantErr) {
				t.Fatalf("%d requests, error %v; want %d and %q", calls.Load(), err, tt.wantCalls, tt.wantErr)
			}
			if len(waits) != len(tt.wantWaits) {
				t.Fatalf("waits %v, want %v", waits, tt.wantWaits)
			}
			for i, w := range tt.wantWaits {
				if waits[i] < w || waits[i] > w+2*time.Second {
					t.Errorf("wait %d: %v, want about %v", i, waits[i], w)
				}
			}
		})
	}
}

// TestRedirects: a 302 or 307 is followed with the same method and body
// (a POST stays a POST with its match[]); a loop is refused once, not
// retried; credentials never go to another origin (scheme, host, port),
// and an error names no secret.
func TestRedirects(t *testing.T) {
	t.Parallel()
	type seen struct{ method, path, match, auth string }
	var mu sync.Mutex
	var got []seen
	record := func(r *http.Request) {
		r.ParseForm()
		mu.Lock()
		got = append(got, seen{r.Method, r.URL.Path, r.Form.Get("match[]"), r.Header.Get("Authorization")})
		mu.Unlock()
	}
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { record(r); w.Write([]byte(ok)) }))
	t.Cleanup(other.Close)
	var loops atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		record(r)
		switch r.URL.Path {
		case "/old/api/v1/series":
			http.Redirect(w, r, "/new/api/v1/series", http.StatusFound)
		case "/tmp/api/v1/series":
			http.Redirect(w, r, "/new/api/v1/series?x=1", http.StatusTemporaryRedirect)
		case "/loop/api/v1/series":
			loops.Add(1)
			http.Redirect(w, r, "/loop/api/v1/series", http.StatusFound)
		case "/away/api/v1/series":
			http.Redirect(w, r, other.URL+"/api/v1/series?token=hunter2", http.StatusFound)
		default:
			w.Write([]byte(ok))
		}
	}))
	t.Cleanup(srv.Close)
	run := func(path, user string) error {
		mu.Lock()
		got = nil
		mu.Unlock()
		cfg := testConfig(srv.URL + path)
		if user != "" {
			cfg.Username, cfg.Password = user, "hunter2"
		}
		_, err := list(newClient(t, cfg))
		return err
	}
	if err := run("/old", "u"); err != nil || len(got) != 2 || got[1] != (seen{"POST", "/new/api/v1/series", "kube_node_info", got[0].auth}) || got[1].auth == "" {
		t.Errorf("302: %v, requests %+v; want the POST with match[] and auth again at /new", err, got)
	}
	if err := run("/tmp", ""); err != nil || len(got) != 2 || got[1].method != "POST" || got[1].match != "kube_node_info" {
		t.Errorf("307: %v, requests %+v", err, got)
	}
	err := run("/loop", "")
	if kind, _ := KindOf(err); kind != Bad || loops.Load() != maxRedirects+1 || !strings.Contains(err.Error(), "redirect loop") {
		t.Errorf("loop: %v (kind %v) after %d requests; want one bad request of %d hops", err, kind, loops.Load(), maxRedirects+1)
	}
	err = run("/away", "u")
	if kind, _ := KindOf(err); kind != Bad || len(got) != 1 || !strings.Contains(err.Error(), "another origin") || strings.Contains(err.Error(), "hunter2") {
		t.Errorf("cross-origin with credentials: %v, requests %+v; want refused, no secret shown", err, got)
	}
	if err := run("/away", ""); err != nil || len(got) != 2 || got[1].auth != "" || got[1].method != "POST" {
		t.Errorf("cross-origin without credentials: %v, requests %+v; want followed", err, got)
	}
}

// TestSameHostOtherPortIsAnotherOrigin: the bearer token does not follow a
// redirect to another port of the same host.
func TestSameHostOtherPortIsAnotherOrigin(t *testing.T) {
	t.Parallel()
	var leaked atomic.Bool
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		leaked.Store(r.Header.Get("Authorization") != "")
		w.Write([]byte(ok))
	}))
	t.Cleanup(other.Close)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, other.URL+r.URL.Path, http.StatusTemporaryRedirect)
	}))
	t.Cleanup(srv.Close)
	c := newClient(t, testConfig(srv.URL))
	c.token = "hunter2"
	if _, err := list(c); err == nil || leaked.Load() {
		t.Errorf("error %v, token sent: %v; want the redirect refused", err, leaked.Load())
	}
}

// TestDeadServerFailsFast: once connections are refused, the circuit
// opens after BreakerFailures attempts and every later request fails at
// once, not after its own retries; the retry budget bounds retries of a
// server that answers 503 to everything.
func TestDeadServerFailsFast(t *testing.T) {
	t.Parallel()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close() // nothing listens: connection refused
	cfg := testConfig("http://" + addr)
	c := newClient(t, cfg)
	var sleeps atomic.Int32
	c.sleep = func(context.Context, time.Duration) error { sleeps.Add(1); return nil }
	start := time.Now()
	var errs []error
	for range 100 {
		_, err := list(c)
		errs = append(errs, err)
	}
	if time.Since(start) > 5*time.Second || sleeps.Load() > int32(cfg.BreakerFailures) {
		t.Errorf("100 requests took %v and %d waits; want the circuit open after %d failures", time.Since(start), sleeps.Load(), cfg.BreakerFailures)
	}
	last := errs[len(errs)-1]
	if kind, _ := KindOf(last); kind != Unreachable || !strings.Contains(last.Error(), "stopped answering") {
		t.Errorf("last error %v (kind %v), want unreachable, not sent", last, kind)
	}

	srv, calls := fakeProm(t, 1<<30, 503, "busy", nil)
	cfg = testConfig(srv.URL)
	cfg.RetryBudget = 5
	c = newClient(t, cfg)
	for range 10 {
		list(c)
	}
	if got := calls.Load(); got != 10+5 {
		t.Errorf("%d requests for 10 reads with a budget of 5 retries, want 15", got)
	}
}

// TestErrorsShowNoSecrets: a password in the URL is redacted and a query
// string never shown, in every error of the client.
func TestErrorsShowNoSecrets(t *testing.T) {
	t.Parallel()
	srv, _ := fakeProm(t, 1<<30, 500, "boom", nil)
	u, _ := url.Parse(srv.URL)
	u.User = url.UserPassword("admin", "hunter2")
	cfg := testConfig(u.String())
	cfg.Retries = 0
	_, err := list(newClient(t, cfg))
	if err == nil || strings.Contains(err.Error(), "hunter2") || !strings.Contains(err.Error(), "admin:xxxxx@") {
		t.Errorf("error %v: want the password redacted", err)
	}
	cfg.URL = "http://admin:hunter2@127.0.0.1:1"
	_, err = list(newClient(t, cfg))
	if err == nil || strings.Contains(err.Error(), "hunter2") {
		t.Errorf("unreachable: error %v shows the password", err)
	}
	u.User = url.User("tok3n")
	if got := Display(u); strings.Contains(got, "tok3n") {
		t.Errorf("Display(%s) shows a username that may be a token", got)
	}
}

// Issue 31 M2: a server error that echoes the Authorization header showed
// the basic credential in base64; bearer tokens were redacted, this not.
func TestBasicCredentialInBase64EchoedByAServerIsRedacted(t *testing.T) {
	t.Parallel()
	const user, pass = "admin", "hunter2-hunter2"
	echo := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusBadGateway)
		fmt.Fprintf(w, "upstream refused: Authorization: %s (raw %s, url-safe %s)", r.Header.Get("Authorization"),
			strings.TrimRight(strings.TrimPrefix(r.Header.Get("Authorization"), "Basic "), "="),
			base64.RawURLEncoding.EncodeToString([]byte(user+":"+pass)))
	}))
	t.Cleanup(echo.Close)
	pw := filepath.Join(t.TempDir(), "pw")
	if err := os.WriteFile(pw, []byte(pass+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	u, _ := url.Parse(echo.URL)
	for name, cfg := range map[string]Config{
		"--prometheus-user": func() Config { c := testConfig(echo.URL); c.Username, c.PasswordFile = user, pw; return c }(),
		"user in the URL":   func() Config { u := *u; u.User = url.UserPassword(user, pass); return testConfig(u.String()) }(),
	} {
		cfg.Retries = 0
		_, err := list(newClient(t, cfg))
		if err == nil {
			t.Fatalf("%s: no error from a 502", name)
		}
		msg := err.Error()
		if !strings.Contains(msg, "upstream refused") || !strings.Contains(msg, "xxxxx") {
			t.Errorf("%s: error %q does not carry the server's (scrubbed) message", name, msg)
		}
		for _, form := range BasicForms(user, pass) {
			if strings.Contains(msg, form) {
				t.Errorf("%s: error %q shows the credential in base64 (%s)", name, msg, form)
			}
		}
		if strings.Contains(msg, pass) {
			t.Errorf("%s: error %q shows the password", name, msg)
		}
	}
}
