//go:build integration && prombench

package prom_test

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gpuwise/gpuwise/internal/cli"
	"github.com/gpuwise/gpuwise/internal/snapshot"
)

// TestStreamingVersusQuantileOverTime compares, on the same Prometheus and
// data, gpuwise's streaming ingest with the per-container
// quantile_over_time(0.95, …[14d]) approach (one query per container for
// CPU, memory and, for GPU pods, activity), 4 queries in flight each.
// It is a measurement, not a check, built only with the prombench tag:
// `make bench-prom` runs it, the integration tier does not.
func TestStreamingVersusQuantileOverTime(t *testing.T) {
	base, truth := state(t)
	pid := promPID(t)

	walls := map[string]time.Duration{}
	var cpu1 float64
	var hwm1 int64
	// query_range first, then raw samples over the JSON API, by remote
	// read (streamed XOR chunks), and the default (auto: raw samples by
	// remote read on this history, one sample a step, from a Prometheus);
	// see --prometheus-read.
	modes := []string{"range", "raw", "remote", "auto"}
	for _, read := range modes {
		cpu0, _ := procStats(pid)
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
		t.Logf("gpuwise streaming ingest (--prometheus-read %s): %s wall, Prometheus CPU %.1fs, Prometheus peak RSS so far %d MiB, gpuwise heap allocated %d MiB (peak heap in use ≤ %d MiB)",
			read, streamWall.Round(time.Millisecond), cpu1-cpu0, hwm1>>10, (after.TotalAlloc-before.TotalAlloc)>>20, after.HeapSys>>20)
	}

	queries := quantileQueries(t, truth)
	start := time.Now()
	failed := runQueries(base, queries)
	quantWall := time.Since(start)
	cpu2, hwm2 := procStats(pid)

	t.Logf("per-container quantile_over_time: %d queries (%d failed), %s wall, Prometheus CPU %.1fs, Prometheus peak RSS %d MiB",
		len(queries), failed, quantWall.Round(time.Millisecond), cpu2-cpu1, hwm2>>10)
	for _, read := range modes {
		t.Logf("speed-up (%s): %.1fx", read, quantWall.Seconds()/walls[read].Seconds())
	}
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

// quantileQueries are KRR-style per-container queries over the window.
func quantileQueries(t *testing.T, truth string) []string {
	s, err := snapshot.ReadFile(truth)
	if err != nil {
		t.Fatal(err)
	}
	var qs []string
	for _, p := range s.Pods {
		for _, c := range p.Containers {
			sel := fmt.Sprintf(`{namespace=%q,pod=%q,container=%q}`, p.Namespace, p.Name, c.Name)
			qs = append(qs,
				fmt.Sprintf("quantile_over_time(0.95, rate(container_cpu_usage_seconds_total%s[15m])[14d:5m])", sel),
				fmt.Sprintf("quantile_over_time(0.95, container_memory_working_set_bytes%s[14d])", sel))
		}
		if len(p.GPUs) > 0 {
			qs = append(qs, fmt.Sprintf(`quantile_over_time(0.95, DCGM_FI_PROF_GR_ENGINE_ACTIVE{namespace=%q,pod=%q}[14d])`, p.Namespace, p.Name))
		}
	}
	return qs
}

func runQueries(base string, qs []string) (failed int) {
	at := strconv.FormatInt(time.Date(2026, 11, 15, 0, 0, 0, 0, time.UTC).Unix(), 10)
	next := make(chan string)
	var mu sync.Mutex
	var wg sync.WaitGroup
	for range 4 {
		wg.Go(func() {
			for q := range next {
				resp, err := http.PostForm(base+"/api/v1/query", url.Values{"query": {q}, "time": {at}})
				ok := err == nil && resp.StatusCode == http.StatusOK
				if err == nil {
					io.Copy(io.Discard, resp.Body)
					resp.Body.Close()
				}
				if !ok {
					mu.Lock()
					failed++
					mu.Unlock()
				}
			}
		})
	}
	for _, q := range qs {
		next <- q
	}
	close(next)
	wg.Wait()
	return failed
}
