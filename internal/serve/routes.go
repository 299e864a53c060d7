package serve

import (
	"net/http"
	"strconv"
	"strings"

	"github.com/gpuwise/gpuwise/internal/app"
)

// param is one query parameter of a route, as the OpenAPI document shows
// it and the handler reads it.
type param struct {
	Name        string
	Description string
	Enum        []string
	Default     string
	// Required parameters answer 400 when absent; Example is a value
	// the OpenAPI document shows.
	Required bool
	Example  string
}

// route is one endpoint: the mux pattern, the OpenAPI operation and the
// handler. routes() is the one list both are made from.
type route struct {
	Method  string
	Path    string
	Summary string
	Params  []param
	// Types are the media types the route answers with, the first the
	// default.
	Types []string
	// Public routes need no credentials (probes, the metrics scrape when
	// --auth-metrics=false).
	Public  bool
	handler func(s *Service, rt route) http.HandlerFunc
}

var (
	outputParam = func(set string) param {
		return param{Name: "output", Description: "output format, as -o: " + set, Default: "json"}
	}
	windowParam   = param{Name: "window", Description: "the analysis window (e.g. 24h, 7d); it must be the service's rolling window, which is the default (other lengths: a 400 saying where that range is answered)"}
	reportTypes   = []string{"application/json", "application/yaml", "text/csv", "text/markdown", "text/html", "text/plain"}
	jsonType      = []string{"application/json"}
	formatOutputs = "table, wide, json, yaml, csv, markdown, html"
	// offsetParam and limitParam page an answer's per-row lists (the
	// report's rows and low-utilization units, recommend's lists): given
	// (or namespace, workload), the answer is one page and its "page"
	// says how many rows matched in all and their sum; absent, the whole
	// answer (docs/serve.md "Paging").
	offsetParam = param{Name: "offset", Description: "rows to skip (the page's start), in the answer's order: most dollars first", Default: "0"}
	limitParam  = param{Name: "limit", Description: "rows in the page, 0.." + strconv.Itoa(app.MaxPageLimit) + " (0: only how many and their sum); with offset or namespace and no limit, " + strconv.Itoa(app.DefaultPageLimit)}
)

// byClusterParam is advise's and plan's by: each cluster's own what.
func byClusterParam(what string) param {
	return param{Name: "by", Description: "cluster: each cluster's own " + what + " and their sum (a snapshot of several clusters always gives the ledgers per cluster)", Enum: []string{"cluster"}}
}

// routes is every endpoint the service answers.
func routes() []route {
	return []route{
		{Method: "GET", Path: "/healthz", Summary: "Liveness: the process serves HTTP.", Types: []string{"text/plain"}, Public: true, handler: healthz},
		{Method: "GET", Path: "/readyz", Summary: "Readiness: a result exists (503 before the first cycle finished).", Types: []string{"text/plain"}, Public: true, handler: readyz},
		{Method: "GET", Path: "/metrics", Summary: "Prometheus metrics (docs/metrics.md).", Types: []string{"text/plain"}, handler: nil},
		{Method: "GET", Path: "/openapi.json", Summary: "This document.", Types: jsonType, handler: openapiHandler},
		{Method: "GET", Path: "/api/v1/status", Summary: "The service: its window, sources, last cycle and whether results are partial or stale.", Types: jsonType, handler: statusHandler},
		{Method: "GET", Path: "/api/v1/report", Summary: "The cost report on the rolling window: exactly `gpuwise report -o json` (other formats with output).",
			Params: []param{
				{Name: "by", Description: "group rows by namespace, workload, pod, node, gpu-model, capacity-type, mechanism, cluster or label:KEY", Default: "namespace"},
				{Name: "idle-share", Description: "where unallocated cost goes", Enum: []string{"none", "node", "cluster"}, Default: "none"},
				{Name: "idle-threshold", Description: "activity below which a GPU counts as idle: a whole percent in [0, 1]", Default: "0.1"},
				{Name: "top", Description: "how many workloads the idle leaderboard shows", Default: "10"},
				{Name: "low-util", Description: "list the GPUs and MIG slices below PERCENT utilization for at least DURATION of the window (low_utilization), e.g. 30%:6h; off when absent"},
				{Name: "namespace", Description: "one page of that namespace's rows only (grouped by namespace, workload or pod; never the unallocated row)", Example: "inference"},
				offsetParam, limitParam,
				windowParam, rangeParam, fromParam, toParam, outputParam(formatOutputs)},
			Types: reportTypes, handler: reportHandler},
		{Method: "GET", Path: "/api/v1/audit", Summary: "The hygiene audit on the window: exactly `gpuwise audit -o json`.",
			Params: []param{
				{Name: "allow-agent", Description: "extra node-agent globs over namespace/owner, comma-separated (added to the defaults)"},
				{Name: "dev-namespaces", Description: "namespace globs where whole GPUs are flagged, comma-separated"},
				{Name: "namespace", Description: "keep the findings on that namespace's objects only (page: how many, their $/month); summary, notes and undecided stay the whole audit's", Example: "inference"},
				windowParam, rangeParam, fromParam, toParam, outputParam(formatOutputs + ", sarif")},
			Types: append(append([]string{}, reportTypes...), "application/sarif+json"), handler: auditHandler},
		{Method: "GET", Path: "/api/v1/recommend", Summary: "Right-sizing recommendations on the window: exactly `gpuwise recommend -o json`.",
			Params: []param{
				{Name: "workload", Description: "one page of these workloads' recommendations only: namespace/Kind/name, comma-separated (or give namespace)", Example: "inference/Deployment/chat-llm"},
				{Name: "namespace", Description: "one page of that namespace's recommendations only (or give workload)", Example: "inference"},
				offsetParam, limitParam,
				windowParam, rangeParam, fromParam, toParam, outputParam(formatOutputs)}, Types: reportTypes, handler: recommendHandler},
		{Method: "GET", Path: "/api/v1/plan", Summary: "The consolidation plan on the window: exactly `gpuwise plan -o json`.",
			Params: []param{{Name: "shapes", Description: "pack right-sized shapes or the current ones", Enum: []string{"recommended", "current"}, Default: "recommended"},
				byClusterParam("plan"), windowParam, rangeParam, fromParam, toParam, outputParam(formatOutputs)}, Types: reportTypes, handler: planHandler},
		{Method: "GET", Path: "/api/v1/advise", Summary: "The savings ledger on the window: exactly `gpuwise advise -o json`.",
			Params: []param{
				{Name: "levers", Description: "levers to apply, comma-separated (default all but region, always in the documented order): " + strings.Join(app.LeverNames(), ", ")},
				{Name: "engineer-rate", Description: "engineering cost in $ per hour, for payback", Default: strconv.FormatFloat(app.DefaultAdviseRequest().EngineerUSDPerHour, 'f', -1, 64)},
				byClusterParam("ledger"), windowParam, rangeParam, fromParam, toParam, outputParam(formatOutputs)}, Types: reportTypes, handler: adviseHandler},
		{Method: "GET", Path: "/api/v1/history", Summary: "Hourly or daily aggregates from the history store, per key of one kind.",
			Params: historyParams, Types: jsonType, handler: historyHandler},
		{Method: "GET", Path: "/api/v1/history/low-util", Summary: "The low-utilization list (GPUs and MIG slices below a threshold for at least N hours) over a range of the history store.",
			Params: lowUtilParams, Types: jsonType, handler: lowUtilHandler},
		{Method: "GET", Path: "/api/v1/history/unit-costs", Summary: "The hourly trend of cost per 1,000 inferences and per 100,000 tokens, per serving workload, per model name and for the cluster, from the history store.",
			Params: unitCostParams, Types: jsonType, handler: unitCostHandler},
		{Method: "GET", Path: "/api/v1/history/unit", Summary: "One GPU unit (whole GPU, MIG slice, time-slice share) over a range of the history store: each hour's time on its node, held, measured and active, and those hours in dollars (active, allocated but idle, unmeasured, unallocated), with the holders.",
			Params: unitParams, Types: jsonType, handler: unitHandler},
		{Method: "GET", Path: "/api/v1/pods", Summary: "One page of a workload's or a namespace's pods on the rolling window: the rows of report?by=pod that belong to it (each with its workload and the GPU units it held), how many matched and their sum.",
			Params: podsParams, Types: jsonType, handler: podsHandler},
		{Method: "GET", Path: "/api/v1/showback", Summary: "Showback over any range of the history: per group (namespace, workload, node, GPU model or a recorded label such as team) GPU-hours, active, idle and unallocated $, and the trend against a comparison period; CSV, or a FOCUS-style allocation file.",
			Params: showbackParams, Types: []string{"application/json", "text/csv"}, handler: showbackHandler},
		{Method: "GET", Path: "/api/v1/compare", Summary: "The last period against the one before it, per key, from the history store.",
			Params: compareParams, Types: jsonType, handler: compareHandler},
		{Method: "GET", Path: "/team/{value}", Summary: "A team's page of the dashboard (showback over the range, hourly spend), to bookmark: value is the team label's value; ?label=KEY for another recorded label.", Types: []string{"text/html"}, handler: nil},
		{Method: "GET", Path: "/api/v1/progress", Summary: "The tracked savings plan (docs/progress.md): the baseline, each action's status from what the cluster shows, what the applied ones realised; exactly `gpuwise progress --history FILE -o json`.",
			Params: []param{outputParam(formatOutputs)}, Types: reportTypes, handler: progressHandler},
		{Method: "POST", Path: "/api/v1/progress/marks", Summary: `Mark a tracked action applied or rejected, or clear its mark: body {"id", "status": "applied|rejected|clear", "note"}; needs the service's credentials (refused without --auth-token-file or --auth-basic-file).`,
			Types: jsonType, handler: markHandler},
		{Method: "GET", Path: "/", Summary: "The dashboard (docs/dashboard.md): one page drawn from this API.", Types: []string{"text/html"}, Public: false, handler: nil},
	}
}
