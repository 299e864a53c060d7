package serve_test

import (
	"fmt"
	"net/http"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gpuwise/gpuwise/internal/serve"
)

// Issue 31 low item: url.URL.Query dropped a pair it could not decode, so
// "?by=%zz" answered the default grouping with a 200.
func TestBadPercentEncodingInAPIQueriesIs400(t *testing.T) {
	t.Parallel()
	in := small(t, liveOptions(""), true)
	for _, p := range []string{"/api/v1/report?by=%zz", "/api/v1/report?window=4h&output=js%on", "/api/v1/status?%"} {
		code, _, body := in.get(t, p)
		if code != http.StatusBadRequest || !strings.Contains(string(body), "invalid URL escape") || !strings.Contains(string(body), "%25") {
			t.Errorf("GET %s: %d %s; want 400 naming the bad escape", p, code, body)
		}
	}
	if code, _, body := in.get(t, "/api/v1/report?by=namespace"); code != http.StatusOK {
		t.Errorf("a good query: %d %s", code, body)
	}
}

// Issue 31 low item: engineer-rate=1e308 answered 500 (+Inf days).
func TestEngineerRateOutOfRangeIs400(t *testing.T) {
	t.Parallel()
	in := small(t, liveOptions(""), true)
	code, _, body := in.get(t, "/api/v1/advise?engineer-rate=1e308")
	if code != http.StatusBadRequest || !strings.Contains(string(body), "above the maximum") {
		t.Errorf("engineer-rate=1e308: %d %s; want 400", code, body)
	}
}

// Issue 31 M7: a history file damaged under a running service: /readyz
// stayed 200 while every history answer was a 500, and the log line
// carried only the status. The damage is made through the service's own
// connection (a table's root page pointed past the end of the file, as a
// torn write leaves it), because SQLite's page cache would hide bytes
// changed on disk behind its back.
func TestDamagedHistoryFileFailsReadyz(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "history.db")
	in := small(t, liveOptions(path), true)
	if code, _, body := in.get(t, "/readyz"); code != http.StatusOK {
		t.Fatalf("/readyz before the damage: %d %s", code, body)
	}
	db := serve.HistoryDB(in.svc)
	var version int
	if err := db.QueryRow("PRAGMA schema_version").Scan(&version); err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{"PRAGMA writable_schema = ON",
		"UPDATE sqlite_schema SET rootpage = 99999 WHERE type = 'table' AND name IN ('hourly', 'daily')",
		fmt.Sprintf("PRAGMA schema_version = %d", version+1), "PRAGMA writable_schema = OFF"} {
		if _, err := db.Exec(q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	code, _, body := in.get(t, "/api/v1/history?kind=namespace")
	if code != http.StatusInternalServerError || !strings.Contains(string(body), "malformed") {
		t.Fatalf("history answer on the damaged file: %d %s; want the 500 the issue saw", code, body)
	}
	code, _, body = in.get(t, "/readyz")
	if code != http.StatusServiceUnavailable || !strings.Contains(string(body), "malformed") || !strings.Contains(string(body), path) {
		t.Errorf("/readyz after the damage: %d %s; want 503 naming the file and the error", code, body)
	}
	log := in.log.String()
	if !strings.Contains(log, "history damaged") {
		t.Errorf("the damage is not logged: %s", log)
	}
	// The request's own line carries the error, not only the status.
	var line string
	for _, l := range strings.Split(log, "\n") {
		if strings.Contains(l, "/api/v1/history") && strings.Contains(l, "500") {
			line = l
		}
	}
	if !strings.Contains(line, "malformed") {
		t.Errorf("the 500's log line lacks the error: %q", line)
	}
}

// Issue 31 M9: no CSP, X-Frame-Options or nosniff headers, and no Host
// check on a loopback serve (DNS rebinding against a workstation's
// `serve --demo`).
func TestSecurityHeadersAndHostCheck(t *testing.T) {
	t.Parallel()
	opts := liveOptions("")
	opts.AllowedHosts = []string{"gpuwise.internal"}
	in := small(t, opts, true)
	do := func(path, host string) (int, http.Header) {
		req, err := http.NewRequest("GET", in.srv.URL+path, nil)
		if err != nil {
			t.Fatal(err)
		}
		if host != "" {
			req.Host = host
		}
		resp, err := in.srv.Client().Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode, resp.Header
	}
	for _, p := range []string{"/", "/api/v1/status", "/healthz", "/metrics", "/api/v1/nope"} {
		_, h := do(p, "")
		if h.Get("Content-Security-Policy") != serve.ContentSecurityPolicy || h.Get("X-Frame-Options") != "DENY" ||
			h.Get("X-Content-Type-Options") != "nosniff" || h.Get("Referrer-Policy") != "no-referrer" {
			t.Errorf("GET %s: security headers %v", p, h)
		}
	}
	for host, want := range map[string]int{"": 200, "localhost:8080": 200, "LOCALHOST": 200, "127.0.0.2:9": 200, "[::1]:8080": 200,
		"app.localhost": 200, "gpuwise.internal:443": 200, "evil.example": 421, "evil.example:8080": 421,
		"127.0.0.1.evil.example": 421, "10.0.0.1": 421, "localhost.evil.example": 421} {
		if code, _ := do("/api/v1/status", host); code != want {
			t.Errorf("Host %q: %d, want %d", host, code, want)
		}
	}
	if !strings.Contains(in.log.String(), `Host \"evil.example\" refused`) && !strings.Contains(in.log.String(), `Host "evil.example" refused`) {
		t.Errorf("a refused Host is not logged with why: %s", in.log.String())
	}

	// Listening beyond loopback (in a cluster), any Host: the Service and
	// Ingress names are not known; a NetworkPolicy and auth guard it.
	opts = liveOptions("")
	opts.Listen = ":0"
	in = small(t, opts, true)
	if code, _ := do("/api/v1/status", "gpuwise.gpuwise.svc:8080"); code != 200 {
		t.Errorf("in-cluster listen, a Service Host: %d", code)
	}
}
