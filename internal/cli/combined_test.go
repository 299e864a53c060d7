package cli

import (
	"strings"
	"testing"

	"github.com/gpuwise/gpuwise/internal/prom/promtest"
)

// TestPrometheusWithContext (issue 26.2, 26.7): --context and --kubeconfig
// beside --prometheus are honoured or refused, never ignored: a context
// that does not exist is an error before Prometheus is read, and a past
// --end is refused because the API holds only the present.
func TestPrometheusWithContext(t *testing.T) {
	t.Parallel()
	srv := promtest.New(t, promtest.Cluster())
	kc := kubeconfigFor(t, apiServer(t, 200, "").URL)
	for _, tt := range []struct {
		name string
		args []string
		want string
	}{
		{"unknown context", []string{"report", "--prometheus", srv.URL, "--kubeconfig", kc, "--context", "nope"}, `context "nope" not found`},
		{"past end", []string{"audit", "--prometheus", srv.URL, "--kubeconfig", kc, "--end", "2026-11-03T00:00:00Z", "--window", "2d"}, "is in the past"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			before := srv.Requests()
			_, errOut, code := run(t, tt.args...)
			if code != ExitUsage || !strings.Contains(errOut, tt.want) {
				t.Errorf("exit %d, stderr %q; want %d naming %q", code, errOut, ExitUsage, tt.want)
			}
			if n := srv.Requests() - before; n != 0 {
				t.Errorf("%d Prometheus requests: the flag is refused before any read", n)
			}
		})
	}
}
