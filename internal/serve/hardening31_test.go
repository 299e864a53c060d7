package serve_test

import (
	"net/http"
	"strings"
	"testing"
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
