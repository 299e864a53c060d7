//go:build integration

package grafana

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/yaml"

	"github.com/gpuwise/gpuwise/internal/app"
	"github.com/gpuwise/gpuwise/internal/grafana"
	"github.com/gpuwise/gpuwise/internal/proctest"
	"github.com/gpuwise/gpuwise/internal/serve"
)

// TestMain keeps Prometheus and helm from inheriting the integration
// lock's descriptor.
func TestMain(m *testing.M) {
	proctest.CloseInherited()
	os.Exit(m.Run())
}

var repo = filepath.Join("..", "..", "..")

func dashboardJSON(t *testing.T) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(repo, "deploy", "grafana", "gpuwise.json"))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// demoService serves `gpuwise serve --demo` on 127.0.0.1.
func demoService(t *testing.T) string {
	t.Helper()
	reg := prometheus.NewRegistry()
	opts := serve.DefaultOptions()
	opts.Demo, opts.Listen, opts.Cluster = app.DefaultDemo(), "127.0.0.1:0", "demo"
	svc, err := serve.New(context.Background(), opts, serve.Deps{App: app.New(time.Now),
		Log: slog.New(slog.NewTextHandler(io.Discard, nil)), Registry: prometheus.WrapRegistererWith(prometheus.Labels{"cluster": "demo"}, reg)})
	if err != nil {
		t.Fatal(err)
	}
	h, err := svc.Handler(reg)
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(h)
	t.Cleanup(func() {
		srv.Close()
		svc.Close()
	})
	return strings.TrimPrefix(srv.URL, "http://")
}

func freePort(t *testing.T) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

// startPrometheus runs Debian's prometheus scraping target every second.
func startPrometheus(t *testing.T, target string) string {
	t.Helper()
	dir := t.TempDir()
	cfg := filepath.Join(dir, "prometheus.yml")
	conf := fmt.Sprintf("global: {scrape_interval: 1s, evaluation_interval: 1s}\nscrape_configs:\n- job_name: gpuwise\n  static_configs: [{targets: [%q]}]\n", target)
	if err := os.WriteFile(cfg, []byte(conf), 0o644); err != nil {
		t.Fatal(err)
	}
	port := freePort(t)
	cmd := exec.Command("prometheus", "--config.file="+cfg, "--storage.tsdb.path="+filepath.Join(dir, "tsdb"),
		fmt.Sprintf("--web.listen-address=127.0.0.1:%d", port))
	logf, _ := os.Create(filepath.Join(dir, "prometheus.log"))
	cmd.Stdout, cmd.Stderr, cmd.SysProcAttr = logf, logf, proctest.Attr()
	if err := cmd.Start(); err != nil {
		t.Fatalf("starting prometheus: %v (make integration-grafana installs Debian's prometheus)", err)
	}
	t.Cleanup(func() {
		cmd.Process.Kill()
		cmd.Wait()
	})
	base := fmt.Sprintf("http://127.0.0.1:%d", port)
	for range 300 {
		if resp, err := http.Get(base + "/-/ready"); err == nil && resp.StatusCode == 200 {
			resp.Body.Close()
			return base
		}
		time.Sleep(100 * time.Millisecond)
	}
	b, _ := os.ReadFile(filepath.Join(dir, "prometheus.log"))
	t.Fatalf("prometheus not ready:\n%s", b)
	return ""
}

// instant runs a PromQL instant query and returns how many series answer.
func instant(t *testing.T, base, q string) int {
	t.Helper()
	resp, err := http.Get(base + "/api/v1/query?query=" + url.QueryEscape(q))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var r struct {
		Status string
		Error  string
		Data   struct{ Result []json.RawMessage }
	}
	if err := json.NewDecoder(resp.Body).Decode(&r); err != nil {
		t.Fatal(err)
	}
	if r.Status != "success" {
		t.Errorf("%s: %s", q, r.Error)
	}
	return len(r.Data.Result)
}

// A real Prometheus scrapes a running serve --demo; every panel's query
// and every variable of the shipped dashboard returns data.
func TestEveryPanelQueryReturnsData(t *testing.T) {
	base := startPrometheus(t, demoService(t))
	deadline := time.Now().Add(90 * time.Second)
	for instant(t, base, `count_over_time(up{job="gpuwise"}[1m]) >= 6`) == 0 {
		if time.Now().After(deadline) {
			t.Fatal("prometheus did not scrape gpuwise six times in 90 s")
		}
		time.Sleep(time.Second)
	}
	qs, err := grafana.Queries(dashboardJSON(t))
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range qs {
		expr := grafana.Substitute(q.Expr, "30s")
		if sel, ok := grafana.LabelValues(q.Expr); ok {
			expr = grafana.Substitute(sel, "30s")
		}
		if n := instant(t, base, expr); n == 0 {
			t.Errorf("%s: %s returns no data", q.Where, expr)
		} else {
			t.Logf("%s: %d series", q.Where, n)
		}
	}
}

// The chart's ConfigMap (grafanaDashboard.enabled) carries the dashboard
// byte for byte, with the sidecar's label.
func TestChartConfigMapCarriesTheDashboard(t *testing.T) {
	cache := os.Getenv("GPUWISE_CACHE")
	if cache == "" {
		cache = filepath.Join(os.Getenv("HOME"), ".cache", "gpuwise")
	}
	helm := filepath.Join(cache, "tools", "bin", "helm")
	cmd := exec.Command(helm, "template", "gpuwise", "deploy/helm/gpuwise", "--namespace", "monitoring",
		"--set", "grafanaDashboard.enabled=true", "--show-only", "templates/grafana-dashboard.yaml")
	cmd.Dir = repo
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		t.Fatalf("helm template: %v\n%s (hack/tools/build.sh helm builds it)", err, errb.String())
	}
	var cm corev1.ConfigMap
	if err := yaml.UnmarshalStrict(out.Bytes(), &cm); err != nil {
		t.Fatalf("the ConfigMap: %v", err)
	}
	if cm.Labels["grafana_dashboard"] != "1" {
		t.Errorf("labels %v: the sidecar's grafana_dashboard label is missing", cm.Labels)
	}
	want := strings.TrimSuffix(string(dashboardJSON(t)), "\n")
	if got := cm.Data["gpuwise.json"]; got != want {
		t.Errorf("the ConfigMap's gpuwise.json (%d bytes) is not deploy/grafana/gpuwise.json (%d bytes)", len(got), len(want))
	}
}
