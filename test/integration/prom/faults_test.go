//go:build integration

package prom_test

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gpuwise/gpuwise/internal/cli"
	"github.com/gpuwise/gpuwise/internal/cost"
	"github.com/gpuwise/gpuwise/internal/prom/promtest"
	"github.com/gpuwise/gpuwise/internal/prom/wire"
	"github.com/gpuwise/gpuwise/internal/prom/wire/wiretest"
)

// faultProxy stands between gpuwise and the real Prometheus: it can
// answer a metric's remote reads with no series (as a Prometheus whose
// kube-state-metrics lacks that metric), or die once the
// kube-state-metrics facts are read (as a Prometheus killed mid-report).
type faultProxy struct {
	*httptest.Server
	drop      string
	dropAll   []string // every metric with one of these prefixes (whole exporters)
	dieAfter  int64    // kube_* answers before dying; 0: never
	kubeSeen  atomic.Int64
	dead      atomic.Bool
	forwarder *httputil.ReverseProxy
}

func newFaultProxy(t *testing.T, target string) *faultProxy {
	u, err := url.Parse(target)
	if err != nil {
		t.Fatal(err)
	}
	p := &faultProxy{forwarder: httputil.NewSingleHostReverseProxy(u)}
	p.Server = httptest.NewServer(p)
	t.Cleanup(p.Close)
	return p
}

func (p *faultProxy) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	r.Body = io.NopCloser(bytes.NewReader(body))
	form, _ := url.ParseQuery(string(body)) // the listing's match[]
	metric := form.Get("match[]")
	if qs, _, err := wiretest.DecodeReadRequest(body); err == nil && len(qs) == 1 {
		for _, m := range qs[0].Matchers {
			if m.Name == "__name__" {
				metric = m.Value
			}
		}
	}
	if p.dead.Load() {
		promtest.HangUp(w)
		return
	}
	if p.dieAfter > 0 && !strings.HasPrefix(metric, "kube_") && r.URL.Path == "/api/v1/read" {
		for p.kubeSeen.Load() < p.dieAfter {
			time.Sleep(time.Millisecond)
		}
		p.dead.Store(true)
		p.Listener.Close()
		promtest.HangUp(w)
		return
	}
	if (metric == p.drop || slices.ContainsFunc(p.dropAll, func(pfx string) bool { return strings.HasPrefix(metric, pfx) })) && r.URL.Path == "/api/v1/read" {
		w.Header().Set("Content-Type", wire.StreamedChunksType)
		return // no series
	}
	p.forwarder.ServeHTTP(w, r)
	if strings.HasPrefix(metric, "kube_") {
		p.kubeSeen.Add(1)
	}
}

// reportJSON runs a report from url and returns it, its raw output and
// the exit code.
func reportJSON(t *testing.T, url string, extra ...string) (*cost.Report, string, string, int) {
	t.Helper()
	var out, errb bytes.Buffer
	args := append([]string{"report", "--prometheus", url, "--window", window, "--end", end, "-o", "json"}, extra...)
	if !strings.Contains(strings.Join(extra, " "), "--prometheus-read") {
		args = append(args, "--prometheus-read", "remote")
	}
	code := cli.Execute(args, cli.Streams{Out: &out, Err: &errb})
	var r cost.Report
	if out.Len() > 0 {
		if err := json.Unmarshal(out.Bytes(), &r); err != nil {
			t.Fatalf("output is not a JSON report: %v", err)
		}
	}
	return &r, out.String(), errb.String(), code
}

// truthTotals is the ground truth's report totals.
func truthTotals(t *testing.T) cost.Totals {
	_, truthFile := state(t)
	want, stderr, code := report(t, "report", "--from", truthFile, "--window", window, "-o", "json")
	if code != cli.ExitOK {
		t.Fatalf("report --from truth: exit %d: %s", code, stderr)
	}
	return want.Totals
}

// factRequests is how many kube-state-metrics fact requests a read by
// remote read makes: one per metric of internal/prom's nodeFactMetrics (6)
// and podFactMetrics (15), as TestBuildDeadServer counts them. The proxy
// dies only once every one is answered: with fewer, a fact request still
// in flight fails with the DCGM reads.
const factRequests = 21

// TestPrometheusKilledMidReport (issue 16.6): the real Prometheus stops
// answering once the facts and the GPU inventory are read (the default
// read mode, auto, lists the inventory first): the report ends in
// seconds, says it is partial before anything else, keeps the allocation
// (exact against the ground truth) and counts every GPU-hour unmeasured,
// none idle. By remote read, where the inventory comes with the DCGM
// reads that fail, there is no report.
func TestPrometheusKilledMidReport(t *testing.T) {
	base, _ := state(t)
	p := newFaultProxy(t, base)
	p.dieAfter = 1 + 1 + factRequests // the node list, the remote-read probe, the facts
	start := time.Now()
	got, out, stderr, code := reportJSON(t, p.URL, "--prometheus-concurrency", "32", "--prometheus-read", "auto")
	took := time.Since(start)
	if code != cli.ExitPartial || took > 60*time.Second {
		t.Fatalf("exit %d after %v: %s; want %d within a minute", code, took, stderr, cli.ExitPartial)
	}
	if i, j := strings.Index(out, `"partial"`), strings.Index(out, `"window"`); i < 0 || i > j {
		t.Errorf(`"partial" at %d, "window" at %d: want it first`, i, j)
	}
	missing := strings.Join(got.Partial, "\n")
	if !strings.Contains(missing, "DCGM usage of") || !strings.Contains(missing, "cAdvisor usage of") {
		t.Errorf("partial %q: want DCGM and cAdvisor usage named", missing)
	}
	w, g := truthTotals(t), got.Totals
	if !near(g.GPUHours.Allocated, w.GPUHours.Allocated, 1e-9) || !near(g.GPUHours.Unallocated, w.GPUHours.Unallocated, 1e-9) ||
		g.GPUHours.Idle != 0 || g.GPUHours.Active != 0 || !near(g.GPUHours.Unmeasured, g.GPUHours.Allocated, 1e-9) {
		t.Errorf("GPU-hours %+v; want the truth's allocated %.3f and unallocated %.3f, all of it unmeasured",
			g.GPUHours, w.GPUHours.Allocated, w.GPUHours.Unallocated)
	}
	t.Logf("killed after the facts: exit %d in %v", code, took.Round(time.Millisecond))

	p = newFaultProxy(t, base)
	p.dieAfter = 1 + factRequests // the node list, the facts
	start = time.Now()
	_, out, stderr, code = reportJSON(t, p.URL, "--prometheus-concurrency", "32")
	if code != cli.ExitUnreachable || out != "" || !strings.Contains(stderr, "DCGM GPU inventory") || time.Since(start) > 60*time.Second {
		t.Errorf("remote read, killed after the facts: exit %d after %v, %d bytes out, stderr %q; want %d naming the inventory, no report",
			code, time.Since(start), len(out), stderr, cli.ExitUnreachable)
	}
}

// TestMissingRequestSeries (issue 16.4): with no
// kube_pod_container_resource_requests series, the report is partial and
// says so, and GPU allocation still matches the ground truth exactly
// (GPU requests from the limits): unmeasured pods are not moved to
// unallocated.
func TestMissingRequestSeries(t *testing.T) {
	base, _ := state(t)
	p := newFaultProxy(t, base)
	p.drop = "kube_pod_container_resource_requests"
	got, _, stderr, code := reportJSON(t, p.URL)
	if code != cli.ExitPartial || !strings.Contains(strings.Join(got.Partial, "\n"), "kube_pod_container_resource_requests") {
		t.Fatalf("exit %d, partial %q: %s; want %d naming the request series", code, got.Partial, stderr, cli.ExitPartial)
	}
	w, g := truthTotals(t), got.Totals
	for _, c := range []struct {
		name      string
		got, want float64
	}{
		{"allocated", g.GPUHours.Allocated, w.GPUHours.Allocated},
		{"unallocated", g.GPUHours.Unallocated, w.GPUHours.Unallocated},
		{"unmeasured", g.GPUHours.Unmeasured, w.GPUHours.Unmeasured},
	} {
		if !near(c.got, c.want, 1e-9) {
			t.Errorf("%s GPU-hours %.3f, want %.3f", c.name, c.got, c.want)
		}
	}
	if g.CPUCost <= 0 || g.MemoryCost <= 0 {
		t.Errorf("CPU cost %v, memory cost %v: want the measured usage's, not $0", g.CPUCost, g.MemoryCost)
	}
}

// TestMissingPodSeries (issue 16.3): without kube_pod_info there is no
// report, and the error names the metric.
func TestMissingPodSeries(t *testing.T) {
	base, _ := state(t)
	p := newFaultProxy(t, base)
	p.drop = "kube_pod_info"
	_, out, stderr, code := reportJSON(t, p.URL)
	if code != cli.ExitInput || out != "" || !strings.Contains(stderr, "kube_pod_info") {
		t.Errorf("exit %d, %d bytes of output, stderr %q; want %d naming kube_pod_info, no report", code, len(out), stderr, cli.ExitInput)
	}
}
