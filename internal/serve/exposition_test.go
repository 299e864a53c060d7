package serve_test

import (
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/gpuwise/gpuwise/internal/exporter"
)

// Issue 32: /metrics writes the frame's domain metrics gathered once per
// cycle. Every line is what promhttp writes for the same frame on a
// registry of its own, the service's own families (gathered on each
// scrape) follow, OpenMetrics still closes with one # EOF and name[]
// keeps the families named, as promhttp does.
func TestMetricsAreTheFramesAsPromhttpWritesThem(t *testing.T) {
	t.Parallel()
	in := demo(t)
	st := in.svc.State()
	c := exporter.NewCollector()
	c.Publish(st.Frame)
	reg := prometheus.NewRegistry()
	prometheus.WrapRegistererWith(prometheus.Labels{"cluster": "default"}, reg).MustRegister(c)
	rec := httptest.NewRecorder()
	promhttp.HandlerFor(reg, promhttp.HandlerOpts{}).ServeHTTP(rec, httptest.NewRequest("GET", "/metrics", nil))
	want := rec.Body.String()
	if strings.Count(want, "\ngpuwise_") < 100 {
		t.Fatalf("the reference has %d gpuwise_ series", strings.Count(want, "\ngpuwise_"))
	}

	first := string(mustGet(t, in, "/metrics"))
	second := string(mustGet(t, in, "/metrics"))
	lines := map[string]bool{}
	for _, l := range strings.Split(first, "\n") {
		lines[l] = true
	}
	for _, l := range strings.Split(strings.TrimSpace(want), "\n") {
		if !lines[l] {
			t.Errorf("/metrics lacks %q", l)
		}
	}
	domain := func(s string) string { return s[:strings.Index(s, "\n# HELP gpuwise_build_info")] }
	if !strings.Contains(first, "\n# HELP gpuwise_build_info") || domain(first) != domain(second) {
		t.Errorf("the domain metrics changed between two scrapes of one state (or the service's own are missing)")
	}
	for _, live := range []string{`gpuwise_cycles_total{cluster="default",result="success"}`, `gpuwise_intervals_read_total{cluster="default"}`, `go_sql_open_connections{cluster="default",db_name="history"}`} {
		if !strings.Contains(second, live) {
			t.Errorf("/metrics lacks the live series %s", live)
		}
	}

	_, hdr, om := in.get(t, "/metrics", "Accept", "application/openmetrics-text;version=1.0.0")
	if ct := hdr.Get("Content-Type"); !strings.HasPrefix(ct, "application/openmetrics-text") {
		t.Errorf("OpenMetrics asked, %q answered", ct)
	}
	if s := string(om); !strings.HasSuffix(s, "# EOF\n") || strings.Count(s, "# EOF") != 1 || !strings.Contains(s, "gpuwise_window_seconds") {
		t.Errorf("OpenMetrics: %d # EOF lines, ends %q", strings.Count(s, "# EOF"), s[max(0, len(s)-40):])
	}

	only := string(mustGet(t, in, "/metrics?name[]=gpuwise_window_seconds&name[]=gpuwise_build_info"))
	var names []string
	for _, l := range strings.Split(only, "\n") {
		if rest, ok := strings.CutPrefix(l, "# TYPE "); ok {
			names = append(names, strings.Fields(rest)[0])
		}
	}
	if strings.Join(names, ",") != "gpuwise_window_seconds,gpuwise_build_info" {
		t.Errorf("name[] kept %v", names)
	}
}
