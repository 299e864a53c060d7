package grafana

import (
	"encoding/json"
	"fmt"

	"github.com/grafana/grafana-foundation-sdk/go/bargauge"
	"github.com/grafana/grafana-foundation-sdk/go/cog"
	"github.com/grafana/grafana-foundation-sdk/go/common"
	"github.com/grafana/grafana-foundation-sdk/go/dashboard"
	"github.com/grafana/grafana-foundation-sdk/go/prometheus"
	"github.com/grafana/grafana-foundation-sdk/go/stat"
	"github.com/grafana/grafana-foundation-sdk/go/timeseries"
	"github.com/grafana/grafana-foundation-sdk/go/units"
)

// UID is the dashboard's stable identifier (links survive re-imports).
const UID = "gpuwise-overview"

// Selectors every query filters by: the dashboard's variables.
const (
	cluster   = `cluster=~"$cluster"`
	namespace = `cluster=~"$cluster",namespace=~"$namespace"`
)

var promDS = common.DataSourceRef{Type: cog.ToPtr("prometheus"), Uid: cog.ToPtr("${datasource}")}

// JSON is the dashboard as Grafana imports it, indented, with a final
// newline.
func JSON() ([]byte, error) {
	d, err := Build()
	if err != nil {
		return nil, err
	}
	b, err := json.MarshalIndent(d, "", "  ")
	if err != nil {
		return nil, fmt.Errorf("encoding the dashboard: %w", err)
	}
	return append(b, '\n'), nil
}

// Build assembles the dashboard.
func Build() (dashboard.Dashboard, error) {
	b := dashboard.NewDashboardBuilder("gpuwise: GPU cost and utilization").
		Uid(UID).
		Description("What Kubernetes GPUs cost and how much of them is used, from gpuwise serve's metrics (docs/metrics.md). Rolling-window panels show the numbers gpuwise's API and dashboard answer; range panels add up the counters over the selected time.").
		Tags([]string{"gpuwise", "gpu", "finops"}).
		Refresh("5m").
		Time("now-7d", "now").
		Tooltip(dashboard.DashboardCursorSyncCrosshair).
		WithVariable(dashboard.NewDatasourceVariableBuilder("datasource").Label("Data source").Type("prometheus")).
		WithVariable(queryVariable("cluster", "Cluster", "label_values(gpuwise_window_seconds, cluster)")).
		WithVariable(queryVariable("namespace", "Namespace", `label_values(gpuwise_window_namespace_cost_usd{cluster=~"$cluster"}, namespace)`))
	b = b.WithRow(dashboard.NewRowBuilder("Now: the rolling window"))
	for _, p := range headline() {
		b = b.WithPanel(p)
	}
	b = b.WithRow(dashboard.NewRowBuilder("Trends"))
	for _, p := range trends() {
		b = b.WithPanel(p)
	}
	b = b.WithRow(dashboard.NewRowBuilder("Red flags and the service"))
	for _, p := range flags() {
		b = b.WithPanel(p)
	}
	return b.Build()
}

func queryVariable(name, label, query string) *dashboard.QueryVariableBuilder {
	return dashboard.NewQueryVariableBuilder(name).Label(label).
		Query(dashboard.StringOrMap{String: cog.ToPtr(query)}).
		Datasource(promDS).
		Refresh(dashboard.VariableRefreshOnTimeRangeChanged).
		Sort(dashboard.VariableSortAlphabeticalAsc).
		Multi(true).IncludeAll(true).AllValue(".*")
}

// query is one PromQL target.
func query(expr, legend string) *prometheus.DataqueryBuilder {
	q := prometheus.NewDataqueryBuilder().Expr(expr).Datasource(promDS)
	if legend != "" {
		q = q.LegendFormat(legend)
	}
	return q
}

func statPanel(title, desc, unit, expr string) *stat.PanelBuilder {
	return stat.NewPanelBuilder().Title(title).Description(desc).Datasource(promDS).Unit(unit).
		Height(4).Span(4).
		GraphMode(common.BigValueGraphModeArea).
		ReduceOptions(common.NewReduceDataOptionsBuilder().Calcs([]string{"lastNotNull"})).
		WithTarget(query(expr, ""))
}

func headline() []cog.Builder[dashboard.Panel] {
	return []cog.Builder[dashboard.Panel]{
		statPanel("Spend in the window", "The window's cost: every namespace's plus capacity no pod held (the report's totals.total_cost_usd, the dashboard's card of the same name); the namespace table below splits it.",
			units.Dollars, `sum(gpuwise_window_cost_usd{`+cluster+`})`),
		statPanel("GPU utilization of provisioned", "Active over provisioned GPU-hours whose state is known (target above 60%).",
			units.PercentUnit, `avg(gpuwise_window_gpu_utilization_of_provisioned_ratio{`+cluster+`})`),
		statPanel("Unused GPU cost", "Allocated-but-idle plus unallocated GPU dollars in the window.",
			units.Dollars, `sum(gpuwise_window_unused_gpu_cost_usd{`+cluster+`})`),
		statPanel("Recoverable a month", "The savings ledger's saving (gpuwise advise): the GPU nodes' cost before every action minus after.",
			units.Dollars, `sum(gpuwise_window_savings_usd_per_month{`+cluster+`})`),
		statPanel("Usage coverage", "Share of allocated GPU-hours with DCGM usage series; the rest is unmeasured, never counted as idle.",
			units.PercentUnit, `min(gpuwise_window_coverage_ratio{`+cluster+`,kind="measured"})`),
		statPanel("Partial data", "1 when some of the window's data could not be read (the API marks its answers partial).",
			units.Short, `max(gpuwise_window_partial{`+cluster+`})`),
	}
}

func seriesPanel(title, desc, unit string, targets ...*prometheus.DataqueryBuilder) *timeseries.PanelBuilder {
	p := timeseries.NewPanelBuilder().Title(title).Description(desc).Datasource(promDS).Unit(unit).
		Height(8).Span(12).FillOpacity(10).
		Legend(common.NewVizLegendOptionsBuilder().ShowLegend(true).DisplayMode(common.LegendDisplayModeList).Placement(common.LegendPlacementBottom))
	for _, t := range targets {
		p = p.WithTarget(t)
	}
	return p
}

func trends() []cog.Builder[dashboard.Panel] {
	return []cog.Builder[dashboard.Panel]{
		seriesPanel("GPU utilization per namespace", "Active over measured allocated GPU-hours of each namespace, over the rolling window.", units.PercentUnit,
			query(`gpuwise_window_namespace_gpu_utilization_ratio{`+namespace+`}`, "{{cluster}} {{namespace}}")),
		seriesPanel("Cost per namespace", "Each namespace's cost over the rolling window.", units.Dollars,
			query(`sum by (cluster, namespace) (gpuwise_window_namespace_cost_usd{`+namespace+`})`, "{{cluster}} {{namespace}}")),
		seriesPanel("Idle GPU cost per namespace", "Allocated-but-idle GPU dollars of each namespace over the rolling window.", units.Dollars,
			query(`sum by (cluster, namespace) (gpuwise_window_namespace_gpu_idle_cost_usd{`+namespace+`})`, "{{cluster}} {{namespace}}")),
		seriesPanel("GPUs held and busy", "GPUs held by pods and their busy equivalent (GPU-seconds recorded per second), selected namespaces.", units.Short,
			query(`sum by (cluster) (rate(gpuwise_workload_gpu_allocated_seconds_total{`+namespace+`}[$__rate_interval]))`, "{{cluster}} held"),
			query(`sum by (cluster) (rate(gpuwise_workload_gpu_active_seconds_total{`+namespace+`}[$__rate_interval]))`, "{{cluster}} busy")),
		topWorkloads(),
		seriesPanel("GPUs by sharing", "Physical GPUs at the window's end by model and sharing: a step in mig or time-slicing is a sharing change.", units.Short,
			query(`sum by (cluster, gpu_model, sharing) (gpuwise_window_end_gpus{`+cluster+`})`, "{{cluster}} {{gpu_model}} {{sharing}}")),
	}
}

// topWorkloads is the playbook's "top 10 workloads": idle GPU dollars the
// counters recorded in the selected time range.
func topWorkloads() *bargauge.PanelBuilder {
	return bargauge.NewPanelBuilder().Title("Top 10 workloads by idle GPU cost (selected range)").
		Description("GPU dollars allocated but unused, per workload, recorded in the selected time range (counters: increase over the range).").
		Datasource(promDS).Unit(units.Dollars).Height(8).Span(12).
		Orientation(common.VizOrientationHorizontal).
		DisplayMode(common.BarGaugeDisplayModeBasic).
		ReduceOptions(common.NewReduceDataOptionsBuilder().Calcs([]string{"lastNotNull"})).
		WithTarget(query(`topk(10, sum by (cluster, namespace, workload) (increase(gpuwise_workload_cost_usd_total{`+namespace+`,component="gpu_idle"}[$__range])))`,
			"{{cluster}} {{namespace}}/{{workload}}").Instant())
}

func flags() []cog.Builder[dashboard.Panel] {
	return []cog.Builder[dashboard.Panel]{
		seriesPanel("OOM kills per hour", "Out-of-memory kills per workload (a memory request cut too far shows here first).", units.Short,
			query(`sum by (cluster, namespace, workload) (increase(gpuwise_workload_oom_kills_total{`+namespace+`}[1h]))`, "{{cluster}} {{namespace}}/{{workload}}")),
		seriesPanel("Spot GPU nodes ended in the window", "Spot GPU nodes whose life ended inside the rolling window (reclaimed or scaled down).", units.Short,
			query(`sum by (cluster, gpu_model) (gpuwise_window_spot_gpu_nodes_ended{`+cluster+`})`, "{{cluster}} {{gpu_model}}")),
		seriesPanel("Audit findings by rule", "Hygiene findings on the window's snapshot (gpuwise audit).", units.Short,
			query(`sum by (cluster, rule) (gpuwise_window_audit_findings{`+cluster+`})`, "{{cluster}} {{rule}}")),
		seriesPanel("gpuwise cycles", "Cycles by result, and the age of the last published result.", units.Short,
			query(`sum by (cluster, result) (increase(gpuwise_cycles_total{`+cluster+`}[$__rate_interval]))`, "{{cluster}} {{result}}"),
			query(`time() - max by (cluster) (gpuwise_last_successful_cycle_timestamp_seconds{`+cluster+`})`, "{{cluster}} seconds since the last result")),
	}
}
