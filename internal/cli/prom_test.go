package cli

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

func TestReportPrometheusErrors(t *testing.T) {
	denied := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		http.Error(w, "no org id", http.StatusUnauthorized)
	}))
	defer denied.Close()
	tests := []struct {
		name     string
		args     []string
		wantCode int
		wantErr  string
	}{
		{"two sources", []string{"report", "--from", "x", "--prometheus", "http://p"}, ExitUsage, "one source"},
		{"bad header", []string{"report", "--prometheus", "http://p", "--prometheus-header", "nope"}, ExitUsage, `"nope" is not KEY=VALUE`},
		{"bad end", []string{"report", "--prometheus", "http://p", "--end", "yesterday"}, ExitUsage, "RFC 3339"},
		{"bad url", []string{"report", "--prometheus", "localhost:9090"}, ExitInput, "want http(s)://"},
		{"unreachable", []string{"report", "--prometheus", "http://127.0.0.1:1", "--prometheus-retries", "0"}, ExitUnreachable, "http://127.0.0.1:1/api/v1/series"},
		{"tenant missing", []string{"report", "--prometheus", denied.URL}, ExitDenied, "X-Scope-OrgID"},
		{"some queries fail", []string{"report", "--prometheus", flaky(t).URL, "--prometheus-retries", "0", "--window", "1d"}, ExitPartial, "report is partial: "},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, errOut, code := run(t, tt.args...)
			if code != tt.wantCode || !strings.Contains(errOut, tt.wantErr) {
				t.Errorf("exit %d, stderr %q; want exit %d and %q", code, errOut, tt.wantCode, tt.wantErr)
			}
			if code == ExitPartial && !strings.Contains(out, "PARTIAL: ") {
				t.Errorf("a partial read printed no report marked partial:\n%s", out)
			}
		})
	}
}

// flaky is a Prometheus with one GPU-less node whose cAdvisor queries fail.
func flaky(t *testing.T) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		r.ParseForm()
		switch q := r.Form.Get("query"); {
		case r.URL.Path == "/api/v1/series" && r.Form.Get("match[]") == "kube_node_info":
			fmt.Fprint(w, `{"status":"success","data":[{"node":"n1"}]}`)
		case r.URL.Path == "/api/v1/series":
			fmt.Fprint(w, `{"status":"success","data":[]}`)
		case strings.Contains(q, "container_"):
			http.Error(w, "overloaded", http.StatusServiceUnavailable)
		default:
			fmt.Fprint(w, `{"status":"success","data":{"resultType":"matrix","result":[]}}`)
		}
	}))
	t.Cleanup(srv.Close)
	return srv
}
