//go:build integration && prombench

package prom_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
	"unsafe"

	"github.com/gpuwise/gpuwise/internal/cli"
	"github.com/gpuwise/gpuwise/internal/cluster"
	"github.com/gpuwise/gpuwise/internal/prom"
	"github.com/gpuwise/gpuwise/internal/snapshot"
	"github.com/gpuwise/gpuwise/internal/usage"
)

// TestStreamingVersusQuantileOverTime compares, on the same Prometheus and
// data, gpuwise's streaming ingest with the per-container
// quantile_over_time approach (one query per container for CPU p95 and
// memory p99 and, for GPU pods, one for activity p95), 4 queries in
// flight each, and checks that gpuwise's snapshot yields those statistics.
// It is a measurement, not a check, built only with the prombench tag:
// `make bench-prom` runs it, the integration tier does not.
func TestStreamingVersusQuantileOverTime(t *testing.T) {
	base, truth := state(t)
	pid := promPID(t)

	walls := map[string]time.Duration{}
	var run benchRun
	var cpu1 float64
	var hwm1 int64
	// query_range first, then raw samples over the JSON API, by remote
	// read (streamed XOR chunks), and the default (auto: raw samples by
	// remote read on this history, one sample a step, from a Prometheus);
	// see --prometheus-read.
	modes := []string{"range", "raw", "remote", "auto"}
	if m := os.Getenv("PROM_BENCH_MODES"); m != "" {
		modes = strings.Split(m, ",")
	}
	for _, read := range modes {
		reads0 := remoteReads(base)
		cpu0, _ := procStats(pid)
		self0, _ := procStats(os.Getpid())
		var before runtime.MemStats
		runtime.ReadMemStats(&before)
		start := time.Now()
		var out, errb bytes.Buffer
		if code := cli.Execute([]string{"report", "--prometheus", base, "--window", window, "--end", end, "-o", "json", "--prometheus-read", read},
			cli.Streams{Out: &out, Err: &errb}); code != cli.ExitOK {
			t.Fatalf("exit %d: %s", code, errb.String())
		}
		streamWall := time.Since(start)
		walls[read] = streamWall
		var after runtime.MemStats
		runtime.ReadMemStats(&after)
		cpu1, hwm1 = procStats(pid)
		self1, _ := procStats(os.Getpid())
		reads1 := remoteReads(base)
		if read == ReadRemoteMode {
			run.ReportCPU, run.ReportAlloc, run.RemoteReads = self1-self0, float64(after.TotalAlloc-before.TotalAlloc)/(1<<20), reads1.n-reads0.n
		}
		t.Logf("gpuwise streaming ingest (--prometheus-read %s): %s wall, gpuwise CPU %.2fs, Prometheus CPU %.2fs, Prometheus peak RSS so far %d MiB, gpuwise heap allocated %d MiB (peak heap in use ≤ %d MiB), %d remote reads answering %.1f MB",
			read, streamWall.Round(time.Millisecond), self1-self0, cpu1-cpu0, hwm1>>10, (after.TotalAlloc-before.TotalAlloc)>>20, after.HeapSys>>20,
			reads1.n-reads0.n, (reads1.bytes-reads0.bytes)/1e6)
	}

	// The comparison: gpuwise's streaming ingest plus the same
	// percentiles the quantile queries return (CPU p95, memory p99 per
	// container, activity p95 per GPU pod), without the cost report that
	// the runs above also compute and render.
	ingestWall := ingestAndPercentiles(t, base, pid)

	if os.Getenv("PROM_BENCH_QUANTILE") == "0" {
		checkBaseline(t, run) // the streaming side alone, e.g. to profile it
		return
	}
	queries := quantileQueries(t, truth)
	self0, _ := procStats(os.Getpid())
	start := time.Now()
	answers, failed := runQueries(base, queries)
	quantWall := time.Since(start)
	cpu2, hwm2 := procStats(pid)
	self1, _ := procStats(os.Getpid())

	t.Logf("per-container quantile_over_time: %d queries (%d failed), %s wall, client CPU %.2fs, Prometheus CPU %.2fs, Prometheus peak RSS %d MiB",
		len(queries), failed, quantWall.Round(time.Millisecond), self1-self0, cpu2-cpu1, hwm2>>10)
	for _, read := range modes {
		t.Logf("speed-up (%s, whole report): %.1fx", read, quantWall.Seconds()/walls[read].Seconds())
	}
	t.Logf("speed-up (remote ingest + percentiles): %.1fx", quantWall.Seconds()/ingestWall.Seconds())
	if w, ok := walls[ReadRemoteMode]; ok {
		run.SpeedupReport = quantWall.Seconds() / w.Seconds()
	}
	run.SpeedupIngest = quantWall.Seconds() / ingestWall.Seconds()
	compareOutputs(t, base, queries, answers)
	checkBaseline(t, run)
}

// ReadRemoteMode is the read mode whose whole-report figures are held to
// the recorded baseline.
const ReadRemoteMode = "remote"

// readCount is Prometheus's own count of remote-read requests and the
// bytes of their answers (its /metrics), for the reads a report makes.
type readCount struct {
	n     int
	bytes float64
}

func remoteReads(base string) readCount {
	var c readCount
	resp, err := http.Get(base + "/metrics")
	if err != nil {
		return c
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	for _, l := range strings.Split(string(b), "\n") {
		if !strings.Contains(l, `handler="/api/v1/read"`) {
			continue
		}
		f := strings.Fields(l)
		v, _ := strconv.ParseFloat(f[len(f)-1], 64)
		switch {
		case strings.HasPrefix(l, "prometheus_http_requests_total{"):
			c.n += int(v)
		case strings.HasPrefix(l, "prometheus_http_response_size_bytes_sum{"):
			c.bytes += v
		}
	}
	return c
}

// ingestAndPercentiles times prom.Build by remote read and the per-series
// percentiles taken from its snapshot, and logs both processes' CPU.
func ingestAndPercentiles(t *testing.T, base string, pid int) time.Duration {
	t.Helper()
	endAt, err := time.Parse(time.RFC3339, end)
	if err != nil {
		t.Fatal(err)
	}
	opts := remoteOptions(base, endAt)
	cpu0, _ := procStats(pid)
	self0, _ := procStats(os.Getpid())
	start := time.Now()
	snap, err := prom.Build(context.Background(), opts)
	if err != nil {
		t.Fatal(err)
	}
	var stats int
	var sink float64
	for _, p := range snap.Pods {
		for _, ct := range p.Containers {
			if ct.CPU != nil {
				sink += ct.CPU.Quantile(0.95)
				stats++
			}
			if ct.Memory != nil {
				sink += ct.Memory.Quantile(0.99)
				stats++
			}
		}
		var act usage.Activity
		for _, h := range p.GPUs {
			if h.Activity != nil {
				act.Merge(h.Activity)
			}
		}
		if len(p.GPUs) > 0 {
			sink += act.Quantile(0.95)
			stats++
		}
	}
	wall := time.Since(start)
	cpu1, _ := procStats(pid)
	self1, _ := procStats(os.Getpid())
	if math.IsNaN(sink) && stats == 0 {
		t.Fatal("no statistics")
	}
	t.Logf("gpuwise remote ingest + percentiles (no cost report): %d statistics, %s wall, gpuwise CPU %.2fs, Prometheus CPU %.2fs",
		stats, wall.Round(time.Millisecond), self1-self0, cpu1-cpu0)
	return wall
}

// remoteOptions read the 14 days up to end from base by remote read.
func remoteOptions(base string, end time.Time) prom.Options {
	o := prom.Defaults()
	o.Client.URL, o.Read = base, prom.ReadRemote
	o.Window = cluster.Window{Start: end.Add(-14 * 24 * time.Hour), End: end}
	return o
}

func promPID(t *testing.T) int {
	dir := os.Getenv("PROM_STATE")
	if dir == "" {
		dir = "/tmp/gpuwise-prom"
	}
	b, err := os.ReadFile(filepath.Join(dir, "pid"))
	if err != nil {
		t.Fatal(err)
	}
	pid, _ := strconv.Atoi(strings.TrimSpace(string(b)))
	return pid
}

// procStats returns a process's CPU seconds (user+system) and peak RSS in KiB.
func procStats(pid int) (cpu float64, hwmKiB int64) {
	if b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid)); err == nil {
		f := strings.Fields(string(b[bytes.LastIndexByte(b, ')')+2:]))
		u, _ := strconv.ParseFloat(f[11], 64)
		s, _ := strconv.ParseFloat(f[12], 64)
		cpu = (u + s) / 100
	}
	if b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid)); err == nil {
		for _, l := range strings.Split(string(b), "\n") {
			if v, ok := strings.CutPrefix(l, "VmHWM:"); ok {
				hwmKiB, _ = strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
			}
		}
	}
	return cpu, hwmKiB
}

// quantileQuery is one KRR-style query and the statistic it answers.
type quantileQuery struct {
	query string
	pod   string // namespace/name
	ctr   string // "" for the pod's GPU activity
	stat  string // "cpu p95", "memory p99", "gpu activity p95"
}

// quantileQueries are KRR-style per-container queries over the window, one
// per container and statistic: the statistics gpuwise's recommendations
// take from the same history (CPU p95 of the rate between consecutive
// samples, working-set p99, and for GPU pods activity p95). irate over
// 15m at a 5m subquery step is the rate of the latest sample interval,
// gpuwise's definition; rate over 15m would be a 15-minute moving average
// (a lower p95), and rate over 5m misses samples off the 5m grid. Both
// cost Prometheus the same.
func quantileQueries(t *testing.T, truth string) []quantileQuery {
	s, err := snapshot.ReadFile(truth)
	if err != nil {
		t.Fatal(err)
	}
	var qs []quantileQuery
	for _, p := range s.Pods {
		key := p.Namespace + "/" + p.Name
		for _, c := range p.Containers {
			sel := fmt.Sprintf(`{namespace=%q,pod=%q,container=%q}`, p.Namespace, p.Name, c.Name)
			qs = append(qs,
				quantileQuery{fmt.Sprintf("quantile_over_time(0.95, irate(container_cpu_usage_seconds_total%s[15m])[14d:5m])", sel), key, c.Name, "cpu p95"},
				quantileQuery{fmt.Sprintf("quantile_over_time(0.99, container_memory_working_set_bytes%s[14d])", sel), key, c.Name, "memory p99"})
		}
		if len(p.GPUs) > 0 {
			qs = append(qs, quantileQuery{fmt.Sprintf(`quantile_over_time(0.95, DCGM_FI_PROF_GR_ENGINE_ACTIVE{namespace=%q,pod=%q}[14d])`, p.Namespace, p.Name), key, "", "gpu activity p95"})
		}
	}
	return qs
}

// runQueries runs the queries 4 at a time (gpuwise's default concurrency)
// and returns each one's first value (NaN when none) and the failures.
func runQueries(base string, qs []quantileQuery) (answers []float64, failed int) {
	at := strconv.FormatInt(time.Date(2026, 11, 15, 0, 0, 0, 0, time.UTC).Unix(), 10)
	answers = make([]float64, len(qs))
	next := make(chan int)
	var mu sync.Mutex
	var wg sync.WaitGroup
	for range 4 {
		wg.Go(func() {
			for i := range next {
				v, ok := instant(base, qs[i].query, at)
				answers[i] = v
				if !ok {
					mu.Lock()
					failed++
					mu.Unlock()
				}
			}
		})
	}
	for i := range qs {
		next <- i
	}
	close(next)
	wg.Wait()
	return answers, failed
}

func instant(base, q, at string) (float64, bool) {
	resp, err := http.PostForm(base+"/api/v1/query", url.Values{"query": {q}, "time": {at}})
	if err != nil {
		return math.NaN(), false
	}
	defer resp.Body.Close()
	var r struct {
		Data struct {
			Result []struct {
				Value [2]any `json:"value"`
			} `json:"result"`
		} `json:"data"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&r); err != nil || resp.StatusCode != http.StatusOK {
		return math.NaN(), false
	}
	if len(r.Data.Result) == 0 {
		return math.NaN(), true
	}
	str, _ := r.Data.Result[0].Value[1].(string)
	v, err := strconv.ParseFloat(str, 64)
	return v, err == nil
}

// compareOutputs checks that gpuwise's streaming ingest yields the
// statistics the quantile queries answered: same work, compared. gpuwise
// keeps histograms (a working-set or CPU quantile is its bucket's upper
// edge, ≤ 4.4% above; activity in 1% buckets), Prometheus interpolates
// between samples: they agree to the histogram's resolution.
func compareOutputs(t *testing.T, base string, qs []quantileQuery, answers []float64) {
	e, _ := time.Parse(time.RFC3339, end)
	s, err := prom.Build(context.Background(), remoteOptions(base, e))
	if err != nil {
		t.Fatal(err)
	}
	pods := map[string]*cluster.Pod{}
	for i := range s.Pods {
		pods[s.Pods[i].Namespace+"/"+s.Pods[i].Name] = &s.Pods[i]
	}
	logStateSize(t, s)
	diffs := map[string][]float64{}
	for i, q := range qs {
		p, want := pods[q.pod], answers[i]
		if p == nil || math.IsNaN(want) {
			continue
		}
		got := math.NaN()
		switch q.stat {
		case "cpu p95", "memory p99":
			for _, ctr := range p.Containers {
				if ctr.Name == q.ctr && ctr.CPU != nil && q.stat == "cpu p95" {
					got = ctr.CPU.Quantile(0.95)
				}
				if ctr.Name == q.ctr && ctr.Memory != nil && q.stat == "memory p99" {
					got = ctr.Memory.Quantile(0.99)
				}
			}
		default:
			var a usage.Activity
			for _, h := range p.GPUs {
				if h.Activity != nil {
					a.Merge(h.Activity)
				}
			}
			if a.Samples > 0 {
				got = a.Quantile(0.95)
			}
		}
		if math.IsNaN(got) {
			continue
		}
		d := math.Abs(got - want)
		if q.stat != "gpu activity p95" {
			d /= max(math.Abs(want), 1e-12)
		}
		diffs[q.stat] = append(diffs[q.stat], d)

	}
	for _, stat := range []string{"cpu p95", "memory p99", "gpu activity p95"} {
		d := diffs[stat]
		if len(d) == 0 {
			t.Errorf("%s: nothing to compare", stat)
			continue
		}
		sort.Float64s(d)
		unit, limit := "relative", 0.05
		if stat == "gpu activity p95" {
			unit, limit = "absolute", 0.02
		}
		med, p90 := d[len(d)/2], d[len(d)*9/10]
		t.Logf("same outputs, %s: %d compared, gpuwise vs quantile_over_time %s difference median %.4f, p90 %.4f", stat, len(d), unit, med, p90)
		if med > limit {
			t.Errorf("%s: median difference %.4f over %.2f: the two sides do not compute the same thing", stat, med, limit)
		}
	}
}

// logStateSize logs the bytes of accumulator state per usage series in the
// snapshot: an Activity is fixed-size; a Gauge is its struct plus its
// bucket array's capacity.
func logStateSize(t *testing.T, s *cluster.Snapshot) {
	var sizes []int
	gauge := func(g *usage.Gauge) {
		if g != nil {
			b := reflect.ValueOf(g).Elem().FieldByName("buckets")
			sizes = append(sizes, int(unsafe.Sizeof(*g))+b.Cap()*int(b.Type().Elem().Size()))
		}
	}
	activity := func(a *usage.Activity) {
		if a != nil {
			sizes = append(sizes, int(unsafe.Sizeof(*a)))
		}
	}
	for _, p := range s.Pods {
		for _, c := range p.Containers {
			gauge(c.CPU)
			gauge(c.Memory)
		}
		for _, h := range p.GPUs {
			activity(h.Activity)
			activity(h.SMActive)
			gauge(h.FramebufferMiB)
		}
	}
	if len(sizes) == 0 {
		return
	}
	sort.Ints(sizes)
	total, over := 0, 0
	for _, n := range sizes {
		total += n
		if n > 1024 {
			over++
		}
	}
	t.Logf("state per usage series: %d series, mean %d B, median %d B, p99 %d B, max %d B, %d over 1 KiB",
		len(sizes), total/len(sizes), sizes[len(sizes)/2], sizes[len(sizes)*99/100], sizes[len(sizes)-1], over)
	if over > 0 {
		t.Logf("!!!!!!!!!! OVER 1 KiB PER SERIES: %d of %d usage series hold more than 1 KiB of state (the goal is at most 1 KiB each) !!!!!!!!!!", over, len(sizes))
	}
}
