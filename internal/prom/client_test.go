package prom

import (
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// fakeProm answers /api/v1/series with one node after failing the first
// `fail` requests with status.
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
		w.Write([]byte(`{"status":"success","data":[{"node":"n1"}]}`))
	}))
	t.Cleanup(srv.Close)
	return srv, &calls
}

func listNodes(c *Client) error {
	return c.Series(context.Background(), time.Unix(0, 0), time.Unix(3600, 0), []string{"kube_node_info"}, func(map[string]string) {})
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
		{"5xx after every retry is unreachable", 9, 502, "bad gateway", Unreachable, 3, "HTTP 502"},
		{"401 is denied at once", 9, 401, "Unauthorized", Denied, 1, "--prometheus-bearer-token-file"},
		{"Mimir without a tenant names the header", 9, 401, "no org id\n", Denied, 1, "X-Scope-OrgID"},
		{"403 is denied", 9, 403, "forbidden", Denied, 1, "HTTP 403"},
		{"400 with an API error is a bad query", 9, 400, `{"status":"error","errorType":"bad_data","error":"parse error at char 3"}`, Bad, 1, "bad_data: parse error"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			srv, calls := fakeProm(t, tt.fail, tt.status, tt.body, nil)
			c, err := New(Config{URL: srv.URL, Retries: 2, Backoff: time.Millisecond})
			if err != nil {
				t.Fatal(err)
			}
			err = listNodes(c)
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
		})
	}
}

func TestClientSendsCredentialsAndHeaders(t *testing.T) {
	t.Parallel()
	token := filepath.Join(t.TempDir(), "token")
	os.WriteFile(token, []byte("s3cret\n"), 0o600)
	var got http.Header
	srv, _ := fakeProm(t, 0, 0, "", func(r *http.Request) { got = r.Header.Clone() })
	c, err := New(Config{URL: srv.URL + "/", BearerTokenFile: token, Headers: map[string]string{"X-Scope-OrgID": "team-a"}})
	if err != nil {
		t.Fatal(err)
	}
	if err := listNodes(c); err != nil {
		t.Fatal(err)
	}
	if got.Get("Authorization") != "Bearer s3cret" || got.Get("X-Scope-OrgID") != "team-a" {
		t.Errorf("headers %v: want the bearer token and the tenant", got)
	}
	c, _ = New(Config{URL: srv.URL, Username: "u", Password: "p"})
	if err := listNodes(c); err != nil {
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
	c, _ := New(Config{URL: srv.URL, Timeout: 50 * time.Millisecond, Retries: 1, Backoff: time.Millisecond})
	err := listNodes(c)
	if kind, ok := KindOf(err); !ok || kind != Unreachable {
		t.Errorf("error %v, want unreachable", err)
	}
}

func TestNewRejectsBadConfig(t *testing.T) {
	t.Parallel()
	for _, cfg := range []Config{
		{URL: "localhost:9090"},
		{URL: "ftp://prom"},
		{URL: "http://prom", BearerTokenFile: "/nonexistent/token"},
		{URL: "https://prom", CAFile: "/nonexistent/ca.pem"},
	} {
		if _, err := New(cfg); err == nil {
			t.Errorf("New(%+v) accepted a bad config", cfg)
		}
	}
}

// TestClientGzip checks that a loopback Prometheus is not asked to
// compress (gzip costs it 3.5x the time of the answer) unless told to.
func TestClientGzip(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		gzip     string
		wantGzip bool
	}{{"", false}, {"auto", false}, {"on", true}, {"off", false}} {
		var got string
		srv, _ := fakeProm(t, 0, 0, "", func(r *http.Request) { got = r.Header.Get("Accept-Encoding") })
		c, err := New(Config{URL: srv.URL, Gzip: tt.gzip})
		if err != nil {
			t.Fatal(err)
		}
		if err := listNodes(c); err != nil {
			t.Fatal(err)
		}
		if (got == "gzip") != tt.wantGzip {
			t.Errorf("gzip %q: Accept-Encoding %q, want gzip: %v", tt.gzip, got, tt.wantGzip)
		}
	}
	if _, err := New(Config{URL: "http://p", Gzip: "maybe"}); err == nil {
		t.Error("New accepted gzip \"maybe\"")
	}
}
