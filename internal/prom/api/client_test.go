package api

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// fakeProm answers every request with ok after failing the first `fail`
// requests with status and body.
func fakeProm(t *testing.T, fail int, status int, body string, check func(*http.Request)) (*httptest.Server, *atomic.Int32) {
	t.Helper()
	var calls atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n := calls.Add(1)
		if check != nil {
			check(r)
		}
		if int(n) <= fail {
			w.WriteHeader(status)
			w.Write([]byte(body))
			return
		}
		w.Write([]byte(ok))
	}))
	t.Cleanup(srv.Close)
	return srv, &calls
}

const ok = `{"status":"success","data":[{"node":"n1"}]}`

// testConfig is DefaultConfig for url with fast retries.
func testConfig(url string) Config {
	cfg := DefaultConfig()
	cfg.URL, cfg.Backoff = url, time.Millisecond
	return cfg
}

func newClient(t *testing.T, cfg Config) *Client {
	t.Helper()
	c, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// list reads /api/v1/series as the snapshot builder does, keeping the body.
func list(c *Client) (string, error) {
	var got string
	err := c.PostForm(context.Background(), "/api/v1/series", url.Values{"match[]": {"kube_node_info"}}, "kube_node_info",
		func(_ string, r io.Reader) error {
			b, err := io.ReadAll(r)
			got = string(b)
			if err == nil && len(b) == 0 {
				err = io.ErrUnexpectedEOF // as the JSON decoder finds it
			}
			return err
		})
	return got, err
}

func TestClientClassifiesFailures(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name      string
		fail      int
		status    int
		body      string
		wantKind  Kind
		wantCalls int32
		wantErr   string
	}{
		{"503 is retried until it passes", 2, 503, "overloaded", 0, 3, ""},
		{"5xx after every retry is unreachable", 9, 502, "bad gateway", Unreachable, 4, "HTTP 502: bad gateway"},
		{"401 is denied at once", 9, 401, "Unauthorized", Denied, 1, "--prometheus-bearer-token-file"},
		{"Mimir without a tenant names the header", 9, 401, "no org id\n", Denied, 1, "X-Scope-OrgID"},
		{"403 is denied", 9, 403, "forbidden", Denied, 1, "HTTP 403"},
		{"400 with an API error is a bad query", 9, 400, `{"status":"error","errorType":"bad_data","error":"parse error at char 3"}`, Bad, 1, "bad_data: parse error"},
		{"an HTML 503 page is not copied", 9, 503, "<html><body>" + strings.Repeat("<p>proxy trace</p>", 200) + "</body></html>", Unreachable, 4, "Service Unavailable (an HTML page, not shown)"},
		{"a long plain 500 body is one capped line", 9, 500, strings.Repeat("x", 3000) + "\nsecond line", Unreachable, 4, strings.Repeat("x", 200) + "…"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			srv, calls := fakeProm(t, tt.fail, tt.status, tt.body, nil)
			_, err := list(newClient(t, testConfig(srv.URL)))
			if got := calls.Load(); got != tt.wantCalls {
				t.Errorf("%d requests, want %d", got, tt.wantCalls)
			}
			if tt.wantErr == "" {
				if err != nil {
					t.Fatalf("unexpected error: %v", err)
				}
				return
			}
			kind, ok := KindOf(err)
			if !ok || kind != tt.wantKind || !strings.Contains(err.Error(), tt.wantErr) ||
				!strings.Contains(err.Error(), srv.URL) || !strings.Contains(err.Error(), "kube_node_info") {
				t.Errorf("error %v (kind %v), want kind %v containing %q, the URL and the query", err, kind, tt.wantKind, tt.wantErr)
			}
			if len(err.Error()) > 600 || strings.Contains(err.Error(), "<p>") || strings.Contains(err.Error(), "second line") {
				t.Errorf("error copies the body: %d bytes: %.300s", len(err.Error()), err)
			}
		})
	}
}

// TestEmptyAnswerIsBad: an HTTP 200 with no body is a bad answer, not an
// unreachable server, and is not retried; a body cut off mid-way is.
func TestEmptyAnswerIsBad(t *testing.T) {
	t.Parallel()
	srv, calls := fakeProm(t, 9, 200, "", nil)
	_, err := list(newClient(t, testConfig(srv.URL)))
	if kind, _ := KindOf(err); kind != Bad || calls.Load() != 1 || !strings.Contains(err.Error(), "empty answer") {
		t.Errorf("error %v (kind %v) after %d requests; want one request and a bad, empty answer", err, kind, calls.Load())
	}
	var cut atomic.Int32
	cutSrv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		cut.Add(1)
		w.Header().Set("Content-Length", "100")
		w.Write([]byte(`{"status":`))
	}))
	t.Cleanup(cutSrv.Close)
	_, err = list(newClient(t, testConfig(cutSrv.URL)))
	if kind, _ := KindOf(err); kind != Unreachable || cut.Load() != 4 {
		t.Errorf("cut-off body: error %v (kind %v) after %d requests; want unreachable after 4", err, kind, cut.Load())
	}
}

func TestClientSendsCredentialsAndHeaders(t *testing.T) {
	t.Parallel()
	token := filepath.Join(t.TempDir(), "token")
	os.WriteFile(token, []byte("s3cret\n"), 0o600)
	var got http.Header
	srv, _ := fakeProm(t, 0, 0, "", func(r *http.Request) { got = r.Header.Clone() })
	cfg := testConfig(srv.URL + "/")
	cfg.BearerTokenFile, cfg.Headers = token, map[string]string{"X-Scope-OrgID": "team-a"}
	if _, err := list(newClient(t, cfg)); err != nil {
		t.Fatal(err)
	}
	if got.Get("Authorization") != "Bearer s3cret" || got.Get("X-Scope-OrgID") != "team-a" {
		t.Errorf("headers %v: want the bearer token and the tenant", got)
	}
	pw := filepath.Join(t.TempDir(), "pw")
	os.WriteFile(pw, []byte("p\n"), 0o600)
	cfg = testConfig(srv.URL)
	cfg.Username, cfg.PasswordFile = "u", pw
	if _, err := list(newClient(t, cfg)); err != nil {
		t.Fatal(err)
	}
	if u, p, ok := (&http.Request{Header: got}).BasicAuth(); !ok || u != "u" || p != "p" {
		t.Errorf("basic auth %q %q %v, want u p", u, p, ok)
	}
}

func TestClientTimeoutIsUnreachable(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-r.Context().Done():
		case <-time.After(300 * time.Millisecond):
		}
	}))
	t.Cleanup(srv.Close)
	cfg := testConfig(srv.URL)
	cfg.Timeout, cfg.Retries = 50*time.Millisecond, 1
	_, err := list(newClient(t, cfg))
	if kind, ok := KindOf(err); !ok || kind != Unreachable {
		t.Errorf("error %v, want unreachable", err)
	}
}

// TestClientGzip checks that a loopback Prometheus is not asked to
// compress (gzip costs it 3.5x the time of the answer) unless told to.
func TestClientGzip(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		gzip     string
		wantGzip bool
	}{{"auto", false}, {"on", true}, {"off", false}} {
		var got string
		srv, _ := fakeProm(t, 0, 0, "", func(r *http.Request) { got = r.Header.Get("Accept-Encoding") })
		cfg := testConfig(srv.URL)
		cfg.Gzip = tt.gzip
		if _, err := list(newClient(t, cfg)); err != nil {
			t.Fatal(err)
		}
		if (got == "gzip") != tt.wantGzip {
			t.Errorf("gzip %q: Accept-Encoding %q, want gzip: %v", tt.gzip, got, tt.wantGzip)
		}
	}
}

// TestAnswerSizeLimit: an answer past MaxResponseBytes fails as a bad
// answer naming the option, and is not retried.
func TestAnswerSizeLimit(t *testing.T) {
	t.Parallel()
	big := `{"status":"success","data":[` + strings.Repeat(`{"node":"n"},`, 200000) + `{}]}`
	srv, calls := fakeProm(t, 9, 200, big, nil)
	cfg := testConfig(srv.URL)
	cfg.MaxResponseBytes = 1 << 20
	_, err := list(newClient(t, cfg))
	if kind, _ := KindOf(err); kind != Bad || calls.Load() != 1 || !errors.As(err, new(*TooLargeError)) ||
		!strings.Contains(err.Error(), "--prometheus-max-response-bytes") {
		t.Errorf("error %v (kind %v) after %d requests; want one request refused as too large", err, kind, calls.Load())
	}
	cfg.MaxResponseBytes = 4 << 20
	if got, err := list(newClient(t, cfg)); err != nil || got != big {
		t.Errorf("within the limit: %d bytes, %v", len(got), err)
	}
}
