// Command serveload puts a running `gpuwise serve` under the load of issue
// 32 (docs/performance.md, "serve under load"): one scraper asking for
// /metrics every -scrape-every (as Prometheus does, gzip accepted) and
// -clients API clients asking questions the service must compute on
// demand (each request a parameter value not asked before, so the answer
// cache never serves it), for -duration. It prints the scrape latencies
// (p50, p90, p99, max), the API answers' count and median latency, and,
// with -pid, the process's VmRSS sampled each second (max and last).
//
//	go run ./hack/serveload -url http://127.0.0.1:8080 -pid $(pgrep -n gpuwise) -duration 3m
package main

import (
	"bufio"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

func main() {
	url := flag.String("url", "http://127.0.0.1:8080", "the service's base URL")
	pid := flag.Int("pid", 0, "the service's process id, for VmRSS (0: not sampled)")
	clients := flag.Int("clients", 7, "API clients asking questions computed on demand")
	every := flag.Duration("scrape-every", time.Second, "time between the scraper's requests")
	duration := flag.Duration("duration", 2*time.Minute, "how long the load runs")
	flag.Parse()
	if err := run(*url, *pid, *clients, *every, *duration); err != nil {
		fmt.Fprintln(os.Stderr, "serveload:", err)
		os.Exit(1)
	}
}

// questions are what the API clients ask in turn; %s is a value (a whole
// percent, 0.05 to 0.93) that makes each request a new question until the
// values come round again (the service caches answers per cycle).
var questions = []string{
	"/api/v1/report?by=workload&idle-threshold=%s",
	"/api/v1/report?by=namespace&idle-threshold=%s",
	"/api/v1/audit?dev-namespaces=serveload-%s",
	"/api/v1/advise?engineer-rate=1%s",
	"/api/v1/report?by=node&idle-threshold=%s",
	"/api/v1/report?by=capacity-type&idle-threshold=%s",
	"/api/v1/report?by=gpu-model&idle-threshold=%s",
}

func run(base string, pid, clients int, every, duration time.Duration) error {
	load0 := loadavg()
	deadline := time.Now().Add(duration)
	client := &http.Client{Timeout: 10 * time.Minute, Transport: &http.Transport{MaxIdleConnsPerHost: clients + 2, DisableCompression: true}}
	var (
		mu        sync.Mutex
		scrapes   []time.Duration
		answers   []time.Duration
		failures  atomic.Int64
		rssMax    int
		rssLast   int
		rssSample []int
		wg        sync.WaitGroup
		seq       atomic.Int64
	)
	get := func(path string, gzip bool) (time.Duration, error) {
		req, err := http.NewRequest("GET", base+path, nil)
		if err != nil {
			return 0, err
		}
		if gzip {
			req.Header.Set("Accept-Encoding", "gzip")
		}
		t := time.Now()
		resp, err := client.Do(req)
		if err != nil {
			return 0, err
		}
		_, err = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if err == nil && resp.StatusCode != http.StatusOK {
			err = fmt.Errorf("%s: %s", path, resp.Status)
		}
		return time.Since(t), err
	}
	wg.Go(func() { // the scraper
		for time.Now().Before(deadline) {
			next := time.Now().Add(every)
			d, err := get("/metrics", true)
			if err != nil {
				failures.Add(1)
				fmt.Fprintln(os.Stderr, "scrape:", err)
			} else {
				mu.Lock()
				scrapes = append(scrapes, d)
				mu.Unlock()
			}
			time.Sleep(time.Until(next))
		}
	})
	for c := range clients {
		wg.Go(func() {
			for k := c; time.Now().Before(deadline); k++ {
				n := seq.Add(1)
				v := strconv.FormatFloat(float64(n%89+5)/100, 'f', 2, 64) // a whole percent, as idle-threshold takes
				d, err := get(fmt.Sprintf(questions[k%len(questions)], v), true)
				if err != nil {
					failures.Add(1)
					fmt.Fprintln(os.Stderr, "client:", err)
					continue
				}
				mu.Lock()
				answers = append(answers, d)
				mu.Unlock()
			}
		})
	}
	if pid > 0 {
		wg.Go(func() {
			for time.Now().Before(deadline) {
				if r := vmRSS(pid); r > 0 {
					mu.Lock()
					rssSample = append(rssSample, r)
					rssMax, rssLast = max(rssMax, r), r
					mu.Unlock()
				}
				time.Sleep(time.Second)
			}
		})
	}
	wg.Wait()
	slices.Sort(scrapes)
	slices.Sort(answers)
	fmt.Printf("load average %s → %s; %d clients, scrape every %s, %s\n", load0, loadavg(), clients, every, duration)
	fmt.Printf("/metrics: %d scrapes, p50 %s, p90 %s, p99 %s, max %s\n", len(scrapes), pct(scrapes, 50), pct(scrapes, 90), pct(scrapes, 99), pct(scrapes, 100))
	fmt.Printf("API: %d answers computed on demand, median %s, max %s; %d failed requests\n", len(answers), pct(answers, 50), pct(answers, 100), failures.Load())
	if pid > 0 {
		slices.Sort(rssSample)
		med := 0
		if len(rssSample) > 0 {
			med = rssSample[len(rssSample)/2]
		}
		fmt.Printf("VmRSS: max %d MB, median %d MB, last %d MB (%d samples)\n", rssMax, med, rssLast, len(rssSample))
	}
	if len(scrapes) == 0 {
		return fmt.Errorf("no scrape answered")
	}
	return nil
}

// pct is the p-th percentile of sorted ds (nearest rank), rounded to ms.
func pct(ds []time.Duration, p int) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	i := (len(ds)*p + 99) / 100
	i = min(max(i, 1), len(ds))
	return ds[i-1].Round(time.Millisecond)
}

// vmRSS is the process's resident set in MB (0 when unreadable).
func vmRSS(pid int) int {
	f, err := os.Open(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if rest, ok := strings.CutPrefix(sc.Text(), "VmRSS:"); ok {
			kb, _ := strconv.Atoi(strings.TrimSuffix(strings.TrimSpace(rest), " kB"))
			return kb / 1024
		}
	}
	return 0
}

func loadavg() string {
	b, _ := os.ReadFile("/proc/loadavg")
	f := strings.Fields(string(b))
	if len(f) < 3 {
		return "?"
	}
	return strings.Join(f[:3], " ")
}
