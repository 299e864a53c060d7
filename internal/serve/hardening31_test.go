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
