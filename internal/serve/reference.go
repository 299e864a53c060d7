package serve

import (
	"fmt"
	"io"
	"strings"

	"github.com/gpuwise/gpuwise/internal/collector"
	"github.com/gpuwise/gpuwise/internal/exporter"
)

// SelfMetrics are the service's own families (the collector's), for
// docs/metrics.md.
var SelfMetrics = collector.SelfMetrics

// WriteMetricsReference writes docs/metrics.md from the metric tables:
// every family gpuwise serve exports, its type, labels, help and
// cardinality. `go test ./internal/serve -update` rewrites the file; a
// test fails when it is out of date.
func WriteMetricsReference(w io.Writer) error {
	var b strings.Builder
	b.WriteString(referenceIntro)
	section := func(title string, ms []*exporter.Metric) {
		fmt.Fprintf(&b, "\n## %s\n\n| metric | type | labels | series | meaning |\n|---|---|---|---|---|\n", title)
		for _, m := range ms {
			labels := "—"
			if len(m.Labels) > 0 {
				labels = "`" + strings.Join(m.Labels, "`, `") + "`"
			}
			fmt.Fprintf(&b, "| `%s` | %s | %s | %s | %s |\n", m.Name, m.Type, labels, m.Cardinality, strings.ReplaceAll(m.Help, "|", "\\|"))
		}
	}
	var counters, window, pods []*exporter.Metric
	for _, m := range exporter.Families {
		switch {
		case strings.HasPrefix(m.Name, "gpuwise_window_pod_"):
			pods = append(pods, m)
		case strings.HasPrefix(m.Name, "gpuwise_window_"):
			window = append(window, m)
		default:
			counters = append(counters, m)
		}
	}
	section("History counters (accumulated per cycle; use increase())", counters)
	section("Rolling-window gauges (the numbers /api/v1/report answers)", window)
	section("Per-pod gauges (only with --metrics-pods)", pods)
	section("The service itself", SelfMetrics)
	b.WriteString(referenceOutro)
	_, err := io.WriteString(w, b.String())
	return err
}

const referenceIntro = `# gpuwise serve metrics

Generated from the metric tables in internal/exporter/metrics.go and internal/collector/metrics.go by
` + "`go test ./internal/serve -run TestMetricsReference -update`" + `; do not edit by hand.

Every series carries the ` + "`cluster`" + ` label (` + "`--cluster`" + `), so that a central Prometheus
(federation, or remote write to Thanos/Mimir) can sum or split clusters. Dollars are the cost engine's
(` + "`_usd`" + `: US dollars, a project convention — Prometheus has no currency unit); GPU time is in
GPU-seconds (a unit held for one second, weighted by its fraction of a physical GPU: divide by 3600 for
the report's GPU-hours). Counters add up what the process recorded, cycle by cycle: they start at zero in
every process, which ` + "`increase()`" + ` and ` + "`rate()`" + ` handle (the history store, not the counters, is the
durable record: ` + "`/api/v1/history`" + `). Missing data is never exported as 0: an unmeasured ratio and an unpriced dollar
figure have no sample.

Cardinality: namespaces × 7 workload families (× 5 components for ` + "`gpuwise_workload_cost_usd_total`" + `), for
at most ` + "`--metrics-max-workloads`" + ` workloads (default 500) plus one ` + "`__other__`" + ` per namespace; a few series
per GPU model and audit rule; per-pod series only with ` + "`--metrics-pods`" + `. The demo cluster exports about
1,000 series; 10,000 GPUs with 500 named workloads about 4,000 (docs/performance.md).
`

const referenceOutro = `
The Go runtime (` + "`go_*`" + `), process (` + "`process_*`" + `) and history database pool (` + "`go_sql_*`" + `, ` + "`db_name=\"history\"`" + `)
collectors are registered too.

## Queries the dashboard and alerts build on

| what | PromQL |
|---|---|
| GPU utilization per namespace, last day | ` + "`sum by (namespace) (increase(gpuwise_workload_gpu_active_seconds_total[1d])) / sum by (namespace) (increase(gpuwise_workload_gpu_allocated_seconds_total[1d]) - increase(gpuwise_workload_gpu_unmeasured_seconds_total[1d]))`" + ` |
| cost per namespace, last 7 days | ` + "`sum by (namespace) (increase(gpuwise_workload_cost_usd_total[7d]))`" + ` |
| top 10 workloads by idle dollars | ` + "`topk(10, sum by (namespace, workload) (increase(gpuwise_workload_cost_usd_total{component=\"gpu_idle\"}[7d])))`" + ` |
| idle dollars (allocated-idle + unallocated), window | ` + "`gpuwise_window_unused_gpu_cost_usd`" + ` |
| coverage | ` + "`gpuwise_window_coverage_ratio`" + ` |
| OOM kills rising | ` + "`sum by (namespace, workload) (increase(gpuwise_workload_oom_kills_total[1h])) > 0`" + ` |
| cycles failing | ` + "`increase(gpuwise_cycles_total{result=\"failure\"}[30m]) > 0`" + ` or ` + "`time() - gpuwise_last_successful_cycle_timestamp_seconds > 1800`" + ` |
| all clusters | ` + "`sum by (cluster) (increase(gpuwise_workload_cost_usd_total[1d]))`" + ` |
`
