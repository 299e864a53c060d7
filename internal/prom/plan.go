package prom

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/gpuwise/gpuwise/internal/prom/query"
	"github.com/gpuwise/gpuwise/internal/prom/wire"
)

// The requests of a build, planned here and run by query.Runner.

var (
	nodeFactMetrics = []string{"kube_node_labels", "kube_node_status_allocatable", "kube_node_spec_taint",
		"kube_node_created", "kube_node_deletion_timestamp", "kube_node_info"}
	podFactMetrics = []string{"kube_pod_info", "kube_pod_owner", "kube_replicaset_owner", "kube_job_owner",
		"kube_pod_labels", "kube_pod_start_time", "kube_pod_completion_time",
		"kube_pod_container_resource_requests", "kube_pod_container_resource_limits",
		"kube_pod_container_status_last_terminated_reason", "kube_pod_container_status_restarts_total",
		// Why a pod ended (Evicted, NodeLost, …) and its annotations
		// (the checkpoint hint, when allowed by
		// --metric-annotations-allowlist): for interruptions and spot.
		"kube_pod_status_reason", "kube_pod_annotations",
		// Scheduling facts (scheduling.go).
		tolerationsMetric, nodeSelectorsMetric}
)

// gpuLimitsFacts names the GPU limits read when no request series exist
// (see buildPods).
const gpuLimitsFacts = "kube_pod_container_resource_limits (GPU)"

// Activity metrics in order of preference; GPU_UTIL is in percent.
var activityMetrics = []string{
	"DCGM_FI_PROF_GR_ENGINE_ACTIVE",
	"DCGM_FI_PROF_GR_ENGINE_UTIL_RATIO",
	"DCGM_FI_DEV_GPU_UTIL",
}

// factTasks are the requests for one kube-state-metrics metric, each read
// keeping the last value of each series. kube_pod_info and kube_node_info,
// whose first and last points bound a pod's or a node's life when
// kube-state-metrics has no timestamp for it (no completion or deletion
// time), are read at InfoStep; the other facts only need their
// last value and are read a day per point. By remote read, a metric is
// one request over the whole window instead, its raw samples mapped onto
// the same grids: no PromQL evaluation and no JSON for Prometheus.
func (r *reader) factTasks(m string, into *facts, remote bool) []query.Task {
	step, anchor := r.opts.InfoStep, r.w.Start
	if !lifeFact(m) {
		step = max(24*time.Hour, r.opts.InfoStep)
		anchor = r.endAlignedStart(step)
	}
	open := into.batch(anchor, step)
	if remote {
		return []query.Task{{Query: m + " (remote read)", From: anchor.Add(-step), To: r.w.End, Step: step,
			Raw: true, Remote: true, Ends: true, Matchers: factMatchers(m), Open: open, Metric: m}}
	}
	metric := m
	if m == gpuLimitsFacts {
		metric = `kube_pod_container_resource_limits{resource!~"cpu|memory"}`
	}
	q := fmt.Sprintf("last_over_time(%s[%s])", metric, query.Lookback(step))
	var spans []query.Span
	if lifeFact(m) {
		spans = query.Split(r.w.Start, r.w.End, step, max(int(24*time.Hour/step), 1))
	} else {
		// A grid that ends at the window's end, so that the last points
		// are read; the first point may reach up to a step before it.
		spans = query.Split(anchor, r.w.End, step, 30)
	}
	tasks := make([]query.Task, 0, len(spans))
	for _, sp := range spans {
		tasks = append(tasks, query.Task{Query: q, From: sp.From, To: sp.To, Step: step, Open: open, Metric: m})
	}
	return tasks
}

// lifeFact says whether a fact metric is read at InfoStep for the lives
// its first and last points bound.
func lifeFact(m string) bool { return m == "kube_pod_info" || m == "kube_node_info" }

// factMatchers select a fact metric by remote read. Only CPU and memory
// limits are read: GPU limits, as many series again on a GPU cluster, are
// read only when requests are missing (gpuLimitsFacts).
func factMatchers(m string) []wire.Matcher {
	switch m {
	case "kube_pod_container_resource_limits":
		return []wire.Matcher{{Type: wire.MatchEqual, Name: "__name__", Value: m}, {Type: wire.MatchRegexp, Name: "resource", Value: "cpu|memory"}}
	case gpuLimitsFacts:
		return []wire.Matcher{{Type: wire.MatchEqual, Name: "__name__", Value: "kube_pod_container_resource_limits"},
			{Type: wire.MatchNotRegexp, Name: "resource", Value: "cpu|memory"}}
	}
	return []wire.Matcher{{Type: wire.MatchEqual, Name: "__name__", Value: m}}
}

// endAlignedStart is the first point of the grid of step that ends at the
// window's end and covers the window.
func (r *reader) endAlignedStart(step time.Duration) time.Time {
	n := int((r.w.End.Sub(r.w.Start) + step - 1) / step)
	return r.w.End.Add(-time.Duration(n) * step)
}

type dcgmMetric struct {
	name  string
	f     field
	scale float64
}

// dcgmMetrics are the GPU exporters' metrics read for the DCGM activity
// metric m: the activity, SM activity and framebuffer for the usage
// accumulators, PCIe and NVLink receive rates for the hourly series
// (input-bound idle), and AMD's device-metrics-exporter's activity and
// VRAM (amdMetrics).
func dcgmMetrics(m string) []dcgmMetric {
	if m == "" { // no DCGM series: AMD's alone
		return amdMetrics
	}
	return append([]dcgmMetric{{m, activityField, activityScale(m)}, {"DCGM_FI_PROF_SM_ACTIVE", smField, 1}, {"DCGM_FI_DEV_FB_USED", fbField, 1},
		{pcieMetric, pcieField, 1}, {nvlinkMetric, nvlinkField, 1}}, amdMetrics...)
}

// amdMetrics are AMD's device-metrics-exporter's graphics-engine activity
// (percent) and used VRAM (MB, read as MiB), labelled hostname, gpu_id,
// pod and namespace (docs/accelerators.md): read beside DCGM's, into the
// same holdings, keyed by the lower-case host label only.
var amdMetrics = []dcgmMetric{{amdActivity, activityField, 0.01}, {"gpu_used_vram", fbField, 1}}

const amdActivity = "gpu_gfx_activity"

// isAMD says whether a metric is one of amdMetrics.
func isAMD(m string) bool { return m == amdActivity || m == "gpu_used_vram" }

// The link metrics of the hourly series: receive bytes per second per
// GPU (DCGM profiling fields 1010 and 1012).
const (
	pcieMetric   = "DCGM_FI_PROF_PCIE_RX_BYTES"
	nvlinkMetric = "DCGM_FI_PROF_NVLINK_RX_BYTES"
)

func activityScale(m string) float64 {
	if m == "DCGM_FI_DEV_GPU_UTIL" {
		return 0.01
	}
	return 1
}

// rangeGPUTasks read DCGM series by query_range, shard by shard and day by
// day.
func (r *reader) rangeGPUTasks(shards []query.Shard, metric string, u *gpuUsage) []query.Task {
	var tasks []query.Task
	lb := query.Lookback(r.opts.Step)
	for _, sh := range shards {
		for _, m := range dcgmMetrics(metric) {
			q := fmt.Sprintf(`avg_over_time(%[1]s{Hostname=~%[2]s}[%[3]s]) or avg_over_time(%[1]s{hostname=~%[2]s}[%[3]s])`, m.name, sh.Quoted(), lb)
			tasks = append(tasks, r.spanTasks(q, u.batch(m.f, m.scale), sh.Nodes)...)
		}
	}
	return tasks
}

// spanTasks splits one query over the window at Step.
func (r *reader) spanTasks(q string, open func() query.Batch, nodes []string) []query.Task {
	var out []query.Task
	for _, sp := range query.Split(r.w.Start, r.w.End, r.opts.Step, r.opts.maxSteps()) {
		out = append(out, query.Task{Query: q, From: sp.From, To: sp.To, Step: r.opts.Step, Open: open, Nodes: nodes})
	}
	return out
}

// rawDays are a raw read's tasks, one a day: the day whose query_range
// points are From…To reads the samples in (From−Step, To].
func (r *reader) rawDays(sel string, open func() query.Batch, nodes []string) []query.Task {
	step := r.opts.Step
	var days []query.Task
	for _, sp := range query.Split(r.w.Start, r.w.End, step, r.opts.maxSteps()) {
		from := sp.From.Add(-step)
		days = append(days, query.Task{Query: sel + query.RawRange(from, sp.To), From: from, To: sp.To, Step: step,
			Raw: true, Cap: step, Open: open, Nodes: nodes})
	}
	return days
}

// rawOrRemote is a raw read's days as they are, or as one remote-read
// task over the window (query.WholeWindow).
func rawOrRemote(remote bool, sel string, ms []wire.Matcher, keep func([]byte) bool, days []query.Task) []query.Task {
	if !remote {
		return days
	}
	return query.WholeWindow(days, sel, ms, keep)
}

// hostSelector is a DCGM metric's selector and matchers for a shard by a
// host label: Hostname, or hostname where Hostname is empty (a range
// vector cannot be or-ed: one selector per host label).
func hostSelector(metric, hostLabel string, sh query.Shard) (string, []wire.Matcher) {
	name := wire.Matcher{Type: wire.MatchEqual, Name: "__name__", Value: metric}
	if hostLabel == "hostname" {
		return metric + "{hostname=~" + sh.Quoted() + `,Hostname=""}`,
			[]wire.Matcher{name, {Type: wire.MatchRegexp, Name: "hostname", Value: sh.Regex}, {Type: wire.MatchEqual, Name: "Hostname", Value: ""}}
	}
	return metric + "{Hostname=~" + sh.Quoted() + "}", []wire.Matcher{name, {Type: wire.MatchRegexp, Name: "Hostname", Value: sh.Regex}}
}

// rawGPUTasks read DCGM series as raw samples (or by remote read), one
// selector per host label the listed inventory uses.
func (r *reader) rawGPUTasks(shards []query.Shard, listed listing, u *gpuUsage, remote bool) []query.Task {
	var hostLabels []string
	if listed.hostname {
		hostLabels = append(hostLabels, "Hostname")
	}
	if listed.lowerHostname {
		hostLabels = append(hostLabels, "hostname")
	}
	var tasks []query.Task
	for _, sh := range shards {
		for _, m := range dcgmMetrics(listed.metric) {
			hls := hostLabels
			if isAMD(m.name) {
				hls = []string{"hostname"}
			}
			for _, hl := range hls {
				sel, ms := hostSelector(m.name, hl, sh)
				days := r.rawDays(sel, u.batch(m.f, m.scale), sh.Nodes)
				tasks = append(tasks, rawOrRemote(remote, sel, ms, dcgmKeep(false), days)...)
			}
		}
	}
	return tasks
}

// derivedGPUTasks read DCGM metrics ms by remote read before the nodes
// are built (see readGPUsDerived): the nodes whose labels count GPUs in
// shards, and every other host, each one request reading both host
// labels (two queries: Hostname, and hostname where Hostname is empty).
// The other hosts' requests for metrics besides the activity are
// returned apart (others): their series count only for hosts whose
// activity series came (a host no node label counts GPUs on has only the
// units its activity series name), so they are read only when the
// activity's request for other hosts found one or failed.
func (r *reader) derivedGPUTasks(gpuNodes []string, ms []dcgmMetric, u *gpuUsage) (tasks, others []query.Task) {
	allRe := query.Alternatives(slices.Sorted(slices.Values(gpuNodes)))
	for _, m := range ms {
		keep, open := dcgmKeep(m.f == activityField), u.batch(m.f, m.scale)
		add := func(into *[]query.Task, sel, sel2 string, ms, ms2 []wire.Matcher, nodes []string) {
			sel, ms = wholeGPUs(m.f, sel, ms)
			sel2, ms2 = wholeGPUs(m.f, sel2, ms2)
			t := query.WholeWindow(r.rawDays(sel, open, nodes), sel+" and "+sel2, ms, keep)[0]
			t.Also = [][]wire.Matcher{ms2}
			t.Metric = m.name // see completeInventory
			*into = append(*into, t)
		}
		for _, sh := range query.Shards(gpuNodes, r.opts.ShardSize) {
			sel, ms := hostSelector(m.name, "Hostname", sh)
			sel2, ms2 := hostSelector(m.name, "hostname", sh)
			add(&tasks, sel, sel2, ms, ms2, sh.Nodes)
		}
		into := &tasks
		if m.f != activityField {
			into = &others
		}
		name := wire.Matcher{Type: wire.MatchEqual, Name: "__name__", Value: m.name}
		add(into, m.name+`{Hostname!~<GPU nodes>,Hostname!=""}`, m.name+`{hostname!~<GPU nodes>,hostname!="",Hostname=""}`,
			[]wire.Matcher{name, {Type: wire.MatchNotRegexp, Name: "Hostname", Value: allRe}, {Type: wire.MatchNotEqual, Name: "Hostname", Value: ""}},
			[]wire.Matcher{name, {Type: wire.MatchNotRegexp, Name: "hostname", Value: allRe}, {Type: wire.MatchNotEqual, Name: "hostname", Value: ""},
				{Type: wire.MatchEqual, Name: "Hostname", Value: ""}}, nil)
	}
	return tasks, others
}

// wholeGPUs narrows a link metric's read to whole devices: dcgm-exporter
// reports links per device, and gpuBatch.Series leaves a MIG instance's or
// a time-slice replica's copy out (not its own traffic), so Prometheus
// need not send them. Other metrics are read as they are.
func wholeGPUs(f field, sel string, ms []wire.Matcher) (string, []wire.Matcher) {
	if f != pcieField && f != nvlinkField {
		return sel, ms
	}
	ms = append(slices.Clip(ms), wire.Matcher{Type: wire.MatchEqual, Name: "vgpu", Value: ""},
		wire.Matcher{Type: wire.MatchEqual, Name: "GPU_I_PROFILE", Value: ""})
	return strings.TrimSuffix(sel, "}") + `,vgpu="",GPU_I_PROFILE=""}`, ms
}

// ctrTasks read one shard's cAdvisor series: working sets and CPU
// counters, by query_range or raw (or remote read).
func (r *reader) ctrTasks(sh query.Shard, mode string, u *ctrUsage) []query.Task {
	sel := fmt.Sprintf(`{container!="",container!="POD",node=~%s}`, sh.Quoted())
	if mode == ReadRange {
		lb := query.Lookback(r.opts.Step)
		mem := fmt.Sprintf("avg_over_time(container_memory_working_set_bytes%s[%s])", sel, lb)
		tasks := r.spanTasks(mem, u.memBatch, sh.Nodes)
		cpu := fmt.Sprintf("last_over_time(container_cpu_usage_seconds_total%s[%s])", sel, lb)
		tasks = append(tasks, r.counterTasks(cpu, u.cpuBatch, sh.Nodes)...)
		for _, k := range []counterKind{cfsPeriods, cfsThrottled, oomEvents} {
			q := fmt.Sprintf("last_over_time(%s%s[%s])", ctrCounterMetrics[k], sel, lb)
			tasks = append(tasks, r.counterTasks(q, u.counterBatch(k), sh.Nodes)...)
		}
		return tasks
	}
	matchers := func(name string) []wire.Matcher {
		return []wire.Matcher{{Type: wire.MatchEqual, Name: "__name__", Value: name}, {Type: wire.MatchNotEqual, Name: "container", Value: ""},
			{Type: wire.MatchNotEqual, Name: "container", Value: "POD"}, {Type: wire.MatchRegexp, Name: "node", Value: sh.Regex}}
	}
	remote := mode == ReadRemote
	mem := r.rawDays("container_memory_working_set_bytes"+sel, u.memBatch, sh.Nodes)
	tasks := rawOrRemote(remote, "container_memory_working_set_bytes"+sel, matchers("container_memory_working_set_bytes"), ctrKeep, mem)
	counters := []counterRead{{"container_cpu_usage_seconds_total", u.cpuBatch}}
	for _, k := range []counterKind{cfsPeriods, cfsThrottled, oomEvents} {
		counters = append(counters, counterRead{ctrCounterMetrics[k], u.counterBatch(k)})
	}
	for _, c := range counters {
		days := r.rawCounterDays(c.metric+sel, c.open, sh.Nodes)
		tasks = append(tasks, rawOrRemote(remote, c.metric+sel, matchers(c.metric), ctrKeep, days)...)
	}
	return tasks
}

// counterRead is a counter metric and the batches that read it, from a
// cut before which samples only seed the previous value.
type counterRead struct {
	metric string
	open   func(cut float64) func() query.Batch
}

// counterTasks are span tasks that each start one step early: a counter
// needs the point before a span to turn its first point into a rate.
func (r *reader) counterTasks(q string, open func(cut float64) func() query.Batch, nodes []string) []query.Task {
	step := r.opts.Step
	var out []query.Task
	for _, sp := range query.Split(r.w.Start, r.w.End, step, r.opts.maxSteps()) {
		from := sp.From
		if from.After(r.w.Start) {
			from = from.Add(-step)
		}
		cut := float64(sp.From.UnixMilli()) / 1000
		out = append(out, query.Task{Query: q, From: from, To: sp.To, Step: step, Open: open(cut), Nodes: nodes})
	}
	return out
}

// rawCounterDays are rawDays for CPU counters: query_range turns points
// after the window's start into rates, and in later spans points after
// the previous span, seeded by the last sample a step before; so a day
// reaches one more step back for the seed sample.
func (r *reader) rawCounterDays(sel string, open func(cut float64) func() query.Batch, nodes []string) []query.Task {
	step := r.opts.Step
	var days []query.Task
	for i, sp := range query.Split(r.w.Start, r.w.End, step, r.opts.maxSteps()) {
		cut := r.w.Start
		if i > 0 {
			cut = sp.From.Add(-step)
		}
		from := cut.Add(-step)
		c := float64(cut.UnixMilli()+1) / 1000
		days = append(days, query.Task{Query: sel + query.RawRange(from, sp.To), From: from, To: sp.To, Step: step,
			Raw: true, Open: open(c), Nodes: nodes})
	}
	return days
}
