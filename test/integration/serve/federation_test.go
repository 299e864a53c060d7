//go:build integration

package serve

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/gpuwise/gpuwise/internal/app"
	"github.com/gpuwise/gpuwise/internal/proctest"
	"github.com/gpuwise/gpuwise/internal/serve"
)

// promServer is a real Prometheus (Debian's) started for the test.
type promServer struct {
	url string
	cmd *exec.Cmd
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

// startPrometheus runs prometheus with config (scrape every second).
func startPrometheus(t *testing.T, name, config string) *promServer {
	t.Helper()
	dir := t.TempDir()
	cfg := filepath.Join(dir, "prometheus.yml")
	if err := os.WriteFile(cfg, []byte(config), 0o644); err != nil {
		t.Fatal(err)
	}
	port := freePort(t)
	cmd := exec.Command("prometheus", "--config.file="+cfg, "--storage.tsdb.path="+filepath.Join(dir, "tsdb"),
		fmt.Sprintf("--web.listen-address=127.0.0.1:%d", port))
	logf, _ := os.Create(filepath.Join(dir, "prometheus.log"))
	cmd.Stdout, cmd.Stderr, cmd.SysProcAttr = logf, logf, proctest.Attr()
	if err := cmd.Start(); err != nil {
		t.Fatalf("starting %s prometheus: %v (make integration-serve installs Debian's prometheus)", name, err)
	}
	p := &promServer{url: fmt.Sprintf("http://127.0.0.1:%d", port), cmd: cmd}
	t.Cleanup(func() {
		cmd.Process.Kill()
		cmd.Wait()
	})
	for range 200 {
		if resp, err := http.Get(p.url + "/-/ready"); err == nil && resp.StatusCode == 200 {
			resp.Body.Close()
			return p
		}
		time.Sleep(100 * time.Millisecond)
	}
	b, _ := os.ReadFile(filepath.Join(dir, "prometheus.log"))
	t.Fatalf("%s prometheus not ready:\n%s", name, b)
	return nil
}

// query is a PromQL instant query's samples: labels → value.
func (p *promServer) query(t *testing.T, q string) map[string]float64 {
	t.Helper()
	resp, err := http.Get(p.url + "/api/v1/query?query=" + url.QueryEscape(q))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var r struct {
		Data struct {
			Result []struct {
				Metric map[string]string
				Value  [2]any
			}
		}
	}
	if err := json.NewDecoder(resp.Body).Decode(&r); err != nil {
		t.Fatal(err)
	}
	out := map[string]float64{}
	for _, s := range r.Data.Result {
		v, _ := strconv.ParseFloat(s.Value[1].(string), 64)
		out[fmt.Sprint(s.Metric)] = v
	}
	return out
}

// sumExposition adds the samples of metric in a /metrics text.
func sumExposition(text []byte, metric string) float64 {
	var s float64
	sc := bufio.NewScanner(bytes.NewReader(text))
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		l := sc.Text()
		if strings.HasPrefix(l, metric+"{") || strings.HasPrefix(l, metric+" ") {
			v, _ := strconv.ParseFloat(l[strings.LastIndexByte(l, ' ')+1:], 64)
			s += v
		}
	}
	return s
}

func scrapeConfig(job string, targets ...string) string {
	return fmt.Sprintf("global: {scrape_interval: 1s, evaluation_interval: 1s}\nscrape_configs:\n- job_name: %s\n  static_configs: [{targets: [%s]}]\n",
		job, strings.Join(targets, ", "))
}

// Two clusters' serve instances each scraped by their own Prometheus; a
// central Prometheus federates both (honor_labels) and sums them: per
// cluster and in total, its sums equal what the instances export.
func TestCentralPrometheusSumsTwoClusters(t *testing.T) {
	east, west := serve.DefaultOptions(), serve.DefaultOptions()
	east.Cluster, east.Demo = "east", app.DefaultDemo()
	west.Cluster, west.Demo = "west", &app.DemoSource{Seed: 2, Scale: 2}
	e, w := start(t, east), start(t, west)
	host := func(in *instance) string { return `"` + strings.TrimPrefix(in.srv.URL, "http://") + `"` }
	leafE := startPrometheus(t, "east", scrapeConfig("gpuwise", host(e)))
	leafW := startPrometheus(t, "west", scrapeConfig("gpuwise", host(w)))
	central := startPrometheus(t, "central", fmt.Sprintf(`global: {scrape_interval: 1s, evaluation_interval: 1s}
scrape_configs:
- job_name: federate
  honor_labels: true
  metrics_path: /federate
  params: {'match[]': ['{__name__=~"gpuwise_.+"}']}
  static_configs: [{targets: ["%s", "%s"]}]
`, strings.TrimPrefix(leafE.url, "http://"), strings.TrimPrefix(leafW.url, "http://")))

	const metric = "gpuwise_workload_cost_usd_total"
	var byCluster map[string]float64
	deadline := time.Now().Add(90 * time.Second)
	for time.Now().Before(deadline) {
		byCluster = central.query(t, "sum by (cluster) ("+metric+")")
		if len(byCluster) == 2 {
			break
		}
		time.Sleep(500 * time.Millisecond)
	}
	if len(byCluster) != 2 {
		t.Fatalf("the central Prometheus has %v, want both clusters", byCluster)
	}
	wantE, wantW := sumExposition(e.get(t, "/metrics"), metric), sumExposition(w.get(t, "/metrics"), metric)
	got := map[string]float64{}
	for k, v := range byCluster {
		got[k] = v
	}
	for labels, want := range map[string]float64{"map[cluster:east]": wantE, "map[cluster:west]": wantW} {
		if math.Abs(got[labels]-want) > 1e-6*want || want == 0 {
			t.Errorf("central sum for %s: $%.4f; the instance exports $%.4f", labels, got[labels], want)
		}
	}
	total := central.query(t, "sum("+metric+")")
	if v := total["map[]"]; math.Abs(v-(wantE+wantW)) > 1e-6*(wantE+wantW) {
		t.Errorf("central total $%.4f, the two instances $%.4f", v, wantE+wantW)
	}
	t.Logf("central Prometheus: east $%.2f + west $%.2f = $%.2f", got["map[cluster:east]"], got["map[cluster:west]"], total["map[]"])
}
