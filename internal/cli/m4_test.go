package cli

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/gpuwise/gpuwise/internal/prom/promtest"
)

// TestM4HungPrometheusFailsFast (issue 31 M4): a Prometheus that accepts
// connections and never answers ends the report, with the defaults, in
// well under the 30 s fail-fast goal (it took 362 s), exit 4, naming the
// probe and its flag.
func TestM4HungPrometheusFailsFast(t *testing.T) {
	t.Parallel()
	release := make(chan struct{})
	hung := httptest.NewServer(http.HandlerFunc(func(_ http.ResponseWriter, r *http.Request) {
		select {
		case <-r.Context().Done():
		case <-release:
		}
	}))
	t.Cleanup(func() { close(release); hung.Close() })
	start := time.Now()
	_, errOut, code := run(t, "report", "--prometheus", hung.URL, "--window", "1d")
	took := time.Since(start)
	if code != ExitUnreachable || !strings.Contains(errOut, "no answer to the node listing within 15s (--prometheus-probe-timeout)") {
		t.Errorf("exit %d, stderr %q; want %d and the probe named", code, errOut, ExitUnreachable)
	}
	if took > 25*time.Second {
		t.Errorf("a hung Prometheus took %s to fail; want under 25 s", took)
	}
}

// TestM5RetriesFlagHasAMaximum (issue 31 M5): --prometheus-retries above
// its maximum is a usage error naming the flag.
func TestM5RetriesFlagHasAMaximum(t *testing.T) {
	t.Parallel()
	_, errOut, code := run(t, "report", "--prometheus", "http://p", "--prometheus-retries", "1000")
	if code != ExitUsage || !strings.Contains(errOut, "prometheus-retries: 1000 is more than 10") {
		t.Errorf("exit %d, stderr %q; want %d and the maximum named", code, errOut, ExitUsage)
	}
}

// TestLowMeasuredUnknownWithoutRequests (issue 31, low): with neither
// request nor limit series, GPU holders come from DCGM alone, so the
// headline's measured share is unknown ("n/a", saying why), not 100 %.
func TestLowMeasuredUnknownWithoutRequests(t *testing.T) {
	t.Parallel()
	srv := promtest.New(t, promtest.Cluster())
	srv.Edit(promtest.Drop("kube_pod_container_resource_requests", "kube_pod_container_resource_limits"))
	out, errOut, code := run(t, promArgs(srv.URL)...)
	if code != ExitPartial {
		t.Fatalf("exit %d: %s; want %d", code, errOut, ExitPartial)
	}
	var line string
	for _, l := range strings.Split(out, "\n") {
		if strings.Contains(l, "Measured") {
			line = l
		}
	}
	if strings.Contains(line, "100.0%") || !strings.Contains(line, "n/a") || !strings.Contains(line, "no pod in the source requests a GPU") {
		t.Errorf("measured line %q; want n/a and why", line)
	}
}
