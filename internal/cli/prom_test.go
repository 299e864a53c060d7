package cli

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gpuwise/gpuwise/internal/prom/promtest"
)

// promArgs report on promtest's history from url.
func promArgs(url string, extra ...string) []string {
	return append([]string{"report", "--prometheus", url, "--window", "2d", "--end", "2026-11-03T00:00:00Z",
		"--prometheus-read", "remote"}, extra...)
}

func TestReportPrometheusErrors(t *testing.T) {
	denied := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		http.Error(w, "no org id", http.StatusUnauthorized)
	}))
	defer denied.Close()
	noPods := promtest.New(t, promtest.Cluster())
	noPods.Edit(promtest.Keep("kube_node_info"))
	nanPods := promtest.New(t, promtest.Cluster())
	nanPods.Edit(promtest.NaN("kube_pod_info"))
	noRequests := promtest.New(t, promtest.Cluster())
	noRequests.Edit(promtest.Drop("kube_pod_container_resource_requests"))
	huge := hugeAnswers(t)
	flakyUsage := promtest.New(t, promtest.Cluster())
	flakyUsage.Inject(promtest.Fail("container_memory_working_set_bytes", 503, "overloaded"))
	tests := []struct {
		name     string
		args     []string
		wantCode int
		wantErr  string
		wantTop  string // the first line of the output
	}{
		{"two sources", []string{"report", "--from", "x", "--prometheus", "http://p"}, ExitUsage, "one source", ""},
		{"bad header", []string{"report", "--prometheus", "http://p", "--prometheus-header", "nope"}, ExitUsage, `"nope" is not KEY=VALUE`, ""},
		{"CRLF in a header value", []string{"report", "--prometheus", "http://p", "--prometheus-header", "X-Scope-OrgID=a\r\nX-Injected: 1"}, ExitUsage, "control character", ""},
		{"bad end", []string{"report", "--prometheus", "http://p", "--end", "yesterday"}, ExitUsage, "RFC 3339", ""},
		{"bad url", []string{"report", "--prometheus", "localhost:9090"}, ExitUsage, "want http(s)://", ""},
		{"malformed url", []string{"report", "--prometheus", "http://prom:9x/"}, ExitUsage, "not a valid URL", ""},
		{"url with a query string", []string{"report", "--prometheus", "http://prom/?tenant=a"}, ExitUsage, "has a query string", ""},
		{"gzip maybe", []string{"report", "--prometheus", "http://p", "--prometheus-gzip", "maybe"}, ExitUsage, `prometheus-gzip: "maybe"`, ""},
		{"every problem at once", []string{"report", "--prometheus", "http://p", "--prometheus-gzip", "maybe", "--step", "1ms", "--prometheus-retries", "-1"}, ExitUsage,
			`prometheus-retries: -1 is negative; prometheus-gzip: "maybe" is not auto, on or off; step: 1ms is shorter than 1s`, ""},
		{"missing token file", []string{"report", "--prometheus", "http://p", "--prometheus-bearer-token-file", "/nonexistent/t"}, ExitInput, "/nonexistent/t", ""},
		{"unreachable", []string{"report", "--prometheus", "http://127.0.0.1:1", "--prometheus-retries", "0"}, ExitUnreachable, "http://127.0.0.1:1/api/v1/series", ""},
		{"tenant missing", []string{"report", "--prometheus", denied.URL}, ExitDenied, "X-Scope-OrgID", ""},
		{"only kube_node_info", promArgs(noPods.URL), ExitInput, "no kube_pod_info series", ""},
		{"kube_pod_info all NaN", promArgs(nanPods.URL), ExitInput, "kube_pod_info", ""},
		{"no request series", promArgs(noRequests.URL), ExitPartial, "report is partial: no kube_pod_container_resource_requests series",
			"PARTIAL RESULT"},
		{"usage queries fail", promArgs(flakyUsage.URL, "--prometheus-retries", "0"), ExitPartial, "report is partial: cAdvisor usage", "PARTIAL RESULT"},
		{"too many series", promArgs(huge.URL+"/series", "--prometheus-max-series", "1000"), ExitInput, "more than 1000 series in one answer (raise the limit with --prometheus-max-series)", ""},
		{"a 1 MB label value", promArgs(huge.URL + "/label"), ExitInput, "more than 65536 bytes in one label or string (raise the limit with --prometheus-max-label-bytes)", ""},
		{"an answer of 2 MB", promArgs(huge.URL+"/label", "--prometheus-max-response-bytes", "1048576", "--prometheus-max-label-bytes", "4194304"), ExitInput,
			"answer larger than 1048576 bytes (raise the limit with --prometheus-max-response-bytes)", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, errOut, code := run(t, tt.args...)
			if code != tt.wantCode || !strings.Contains(errOut, tt.wantErr) {
				t.Errorf("exit %d, stderr %q; want exit %d and %q", code, errOut, tt.wantCode, tt.wantErr)
			}
			if first, _, _ := strings.Cut(out, "\n"); !strings.HasPrefix(first, tt.wantTop) {
				t.Errorf("output starts %q, want %q first:\n%.600s", first, tt.wantTop, out)
			}
		})
	}
}

// hugeAnswers answers the node listing under /series with 1,001 nodes and
// under /label with one node whose provider ID is 2 MB long (issue 16.11).
func hugeAnswers(t *testing.T) *httptest.Server {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Write([]byte(`{"status":"success","data":[`))
		if strings.HasPrefix(r.URL.Path, "/series") {
			for i := range 1001 {
				fmt.Fprintf(w, `{"node":"n%d"},`, i)
			}
		} else {
			w.Write([]byte(`{"provider_id":"` + strings.Repeat("x", 2<<20) + `"},`))
		}
		w.Write([]byte(`{"node":"last"}]}`))
	}))
	t.Cleanup(srv.Close)
	return srv
}

// TestReportPartialSaysSoFirst (issue 16.6): when Prometheus dies after
// the facts and the GPU inventory are in, the report ends in seconds and
// every format says it is partial before any figure.
func TestReportPartialSaysSoFirst(t *testing.T) {
	for _, format := range []string{"table", "wide", "markdown", "html", "json", "yaml"} {
		t.Run(format, func(t *testing.T) {
			srv := promtest.New(t, promtest.Cluster())
			srv.Inject(promtest.KillAtUsage(srv, 1+1+21, 1)) // the node list, the remote-read probe, the facts (6 node, 15 pod metrics); the DCGM inventory
			start := time.Now()
			args := []string{"report", "--prometheus", srv.URL, "--window", "2d", "--end", "2026-11-03T00:00:00Z",
				"-o", format, "--prometheus-concurrency", "64"} // --prometheus-read auto: the inventory is listed
			out, errOut, code := run(t, args...)
			if code != ExitPartial || time.Since(start) > 10*time.Second {
				t.Fatalf("exit %d after %v, stderr %q; want %d, fast", code, time.Since(start), errOut, ExitPartial)
			}
			partial, figures := strings.Index(out, "DCGM usage of 1 node(s) (gpu-1)"), strings.Index(out, "GPU utilization")
			switch format {
			case "json":
				figures = strings.Index(out, `"window"`)
			case "yaml":
				figures = strings.Index(out, "window:")
			}
			if partial < 0 || figures < 0 || partial > figures {
				t.Errorf("partial note at %d, first figure at %d; want the note first:\n%.1500s", partial, figures, out)
			}
		})
	}
}

// TestPrometheusSecretsNeverShown (issue 16.2): a password in the URL, a
// bearer token and a header value appear in no output format and no
// error; a query string is never echoed.
func TestPrometheusSecretsNeverShown(t *testing.T) {
	const secret = "hunter2"
	token := filepath.Join(t.TempDir(), "token")
	os.WriteFile(token, []byte(secret+"-token"), 0o600)
	srv := promtest.New(t, promtest.Cluster())
	withUser := srv.URLWithUser("admin", secret)
	down := promtest.New(t, promtest.Cluster())
	down.Inject(promtest.Fail("container_cpu_usage_seconds_total", 503, "<html>"+secret+"</html>"))
	denied := promtest.New(t, promtest.Cluster())
	denied.Inject(promtest.Fail("", 401, "bad credentials "+secret))
	away := promtest.New(t, promtest.Cluster())
	away.Inject(func(w http.ResponseWriter, r *http.Request, _ int64, _ string) bool {
		http.Redirect(w, r, "http://127.0.0.1:1/steal?token="+secret, http.StatusTemporaryRedirect)
		return true
	})
	var cases [][]string
	for _, f := range []string{"table", "wide", "json", "yaml", "csv", "markdown", "html"} {
		cases = append(cases, promArgs(withUser, "-o", f, "--prometheus-header", "X-Scope-OrgID="+secret))
	}
	cases = append(cases,
		promArgs(down.URLWithUser("admin", secret), "--prometheus-retries", "0"),
		promArgs(denied.URLWithUser("admin", secret)),
		promArgs(away.URL, "--prometheus-bearer-token-file", token),
		promArgs("http://admin:"+secret+"@127.0.0.1:1", "--prometheus-retries", "0"),
		promArgs("http://admin:"+secret+"@prom:9x/"),
		promArgs("http://prom/?token="+secret),
		promArgs("http://prom/#"+secret),
	)
	for _, args := range cases {
		out, errOut, code := run(t, args...)
		if strings.Contains(out+errOut, secret) {
			t.Errorf("%v: exit %d shows the secret:\nstdout %.300s\nstderr %s", args[2:], code, out[max(0, strings.Index(out, secret)-200):], errOut)
		}
		if code == ExitOK && !strings.Contains(out, "admin:xxxxx@") && !strings.Contains(strings.Join(args, " "), "-o csv") {
			t.Errorf("%v: the source is not shown redacted:\n%.300s", args[2:], out)
		}
	}
}

// TestPrometheusRedirects (issues 16.12, 16.13): a 302 is followed as the
// POST it answered, match[] included (it used to become a GET without
// it: "no kube-state-metrics"); a redirect loop is one failed request,
// not retried; an empty 200 is a bad answer, not retried.
func TestPrometheusRedirects(t *testing.T) {
	moved := promtest.New(t, promtest.Cluster())
	moved.Inject(func(w http.ResponseWriter, r *http.Request, _ int64, _ string) bool {
		rest, ok := strings.CutPrefix(r.URL.Path, "/old")
		if ok {
			http.Redirect(w, r, rest, http.StatusFound)
		}
		return ok
	})
	if _, errOut, code := run(t, promArgs(moved.URL+"/old")...); code != ExitOK {
		t.Errorf("302 to the same server: exit %d, %s; want the report", code, errOut)
	}
	loop := promtest.New(t, promtest.Cluster())
	loop.Inject(func(w http.ResponseWriter, r *http.Request, _ int64, _ string) bool {
		http.Redirect(w, r, r.URL.Path, http.StatusFound)
		return true
	})
	_, errOut, code := run(t, promArgs(loop.URL)...)
	if code != ExitInput || !strings.Contains(errOut, "redirect loop") || loop.Requests() > 6 {
		t.Errorf("redirect loop: exit %d after %d requests, %s; want exit %d after at most 6", code, loop.Requests(), errOut, ExitInput)
	}
	empty := promtest.New(t, promtest.Cluster())
	empty.Inject(func(w http.ResponseWriter, r *http.Request, _ int64, _ string) bool { return true })
	_, errOut, code = run(t, promArgs(empty.URL)...)
	if code != ExitInput || !strings.Contains(errOut, "empty answer") || empty.Requests() != 1 {
		t.Errorf("empty 200: exit %d after %d requests, %s; want exit %d after one", code, empty.Requests(), errOut, ExitInput)
	}
}
