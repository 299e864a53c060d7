package serve_test

import (
	"encoding/json"
	"math"
	"regexp"
	"strconv"
	"testing"
)

// metricSum sums the samples of one family on /metrics whose labels match
// the filter (nil: all).
func metricSum(t *testing.T, body []byte, family string, filter *regexp.Regexp) (float64, int) {
	t.Helper()
	re := regexp.MustCompile(`(?m)^` + family + `(\{[^}]*\})? (\S+)$`)
	sum, n := 0.0, 0
	for _, m := range re.FindAllSubmatch(body, -1) {
		if filter != nil && !filter.Match(m[1]) {
			continue
		}
		v, err := strconv.ParseFloat(string(m[2]), 64)
		if err != nil {
			t.Fatalf("%s: %q: %v", family, m[2], err)
		}
		sum, n = sum+v, n+1
	}
	return sum, n
}

// TestMetricsAgreeWithTheReport (issue 26.6): on the demo week the cost
// counters (every workload's components plus the unallocated gpu and
// cpu_memory dollars) sum to the report's total, to the cent; the
// unallocated cpu_memory counters carry the report's unheld CPU and
// memory; the window gauge behind Grafana's "Spend in the window" is the
// number the dashboard's card of that name shows (totals.total_cost_usd),
// and the unused-GPU gauge is the report's.
func TestMetricsAgreeWithTheReport(t *testing.T) {
	t.Parallel()
	in := demo(t)
	metrics := mustGet(t, in, "/metrics")
	var rep struct {
		Totals struct {
			Total   float64 `json:"total_cost_usd"`
			GPUCost struct {
				Idle        float64 `json:"allocated_idle"`
				Unallocated float64 `json:"unallocated"`
			} `json:"gpu_cost_usd"`
		} `json:"totals"`
		Rows []struct {
			Key     string  `json:"key"`
			CPU     float64 `json:"cpu_cost_usd"`
			Memory  float64 `json:"memory_cost_usd"`
			GPUCost struct {
				Unallocated float64 `json:"unallocated"`
			} `json:"gpu_cost_usd"`
		} `json:"rows"`
	}
	if err := json.Unmarshal(mustGet(t, in, "/api/v1/report"), &rep); err != nil {
		t.Fatal(err)
	}
	var unheldCPUMem float64
	for _, r := range rep.Rows {
		if r.Key == "__unallocated__" {
			unheldCPUMem = r.CPU + r.Memory
		}
	}
	if unheldCPUMem <= 0 {
		t.Fatal("the demo report has no unallocated CPU and memory: the test needs some")
	}
	cents := func(v float64) int64 { return int64(math.Round(v * 100)) }
	workloads, nw := metricSum(t, metrics, "gpuwise_workload_cost_usd_total", nil)
	unalloc, nu := metricSum(t, metrics, "gpuwise_unallocated_cost_usd_total", nil)
	cpuMem, _ := metricSum(t, metrics, "gpuwise_unallocated_cost_usd_total", regexp.MustCompile(`component="cpu_memory"`))
	if nw == 0 || nu == 0 {
		t.Fatalf("%d workload and %d unallocated cost series on /metrics", nw, nu)
	}
	if got, want := cents(workloads+unalloc), cents(rep.Totals.Total); got != want {
		t.Errorf("cost counters sum to $%.2f (workloads $%.2f + unallocated $%.2f); the report's total is $%.2f",
			float64(got)/100, workloads, unalloc, float64(want)/100)
	}
	if got, want := cents(cpuMem), cents(unheldCPUMem); got != want {
		t.Errorf(`gpuwise_unallocated_cost_usd_total{component="cpu_memory"} sums to $%.2f; the report's unallocated CPU and memory is $%.2f`, cpuMem, unheldCPUMem)
	}
	for _, g := range []struct {
		family string
		want   float64
	}{
		{"gpuwise_window_cost_usd", rep.Totals.Total},
		{"gpuwise_window_unused_gpu_cost_usd", rep.Totals.GPUCost.Idle + rep.Totals.GPUCost.Unallocated},
	} {
		if got, n := metricSum(t, metrics, g.family, nil); n != 1 || cents(got) != cents(g.want) {
			t.Errorf("%s: %d series, $%.2f; the report says $%.2f", g.family, n, got, g.want)
		}
	}
}
