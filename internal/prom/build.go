package prom

import (
	"context"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gpuwise/gpuwise/internal/cluster"
)

// Options steer what Build reads.
type Options struct {
	Window cluster.Window
	// Step is the resolution of usage series (default 5m): each point
	// stands for Step seconds. Use at least the scrape interval.
	Step time.Duration
	// InfoStep is the resolution of kube-state-metrics facts (default 1h).
	InfoStep time.Duration
	// MaxSteps caps the points per series of one request (default: one
	// day of steps, at most MaxPoints).
	MaxSteps int
	// ShardSize is how many nodes one usage query covers (default 16).
	ShardSize int
	// Read is how usage series are read: "raw" reads raw samples with
	// instant queries of range vectors, each sample standing for the time
	// to the series' next one (at most Step); "range" reads query_range at
	// Step, each point standing for Step; "auto" (the default) probes the
	// samples of the last probeSteps steps of each source (DCGM,
	// cAdvisor) and reads it raw when they come about once a step, by
	// remote read if the server answers it with streamed chunks. "remote"
	// reads the raw samples by remote read (/api/v1/read, streamed XOR
	// chunks), the whole window per request, with the same weighting.
	Read string
}

// Ways of reading usage series.
const (
	ReadAuto  = "auto"
	ReadRaw   = "raw"
	ReadRange = "range"
	// ReadRemote reads what ReadRaw reads by remote read (POST
	// /api/v1/read, streamed XOR chunks): Prometheus sends its stored
	// chunks as they are, with no JSON to write or parse.
	ReadRemote = "remote"
)

func (o Options) withDefaults() Options {
	if o.Step <= 0 {
		o.Step = 5 * time.Minute
	}
	if o.InfoStep <= 0 {
		o.InfoStep = time.Hour
	}
	if o.MaxSteps <= 0 {
		o.MaxSteps = int(24 * time.Hour / o.Step)
	}
	if o.ShardSize <= 0 {
		o.ShardSize = 16
	}
	if o.Read == "" {
		o.Read = ReadAuto
	}
	return o
}

// Activity metrics in order of preference; GPU_UTIL is in percent.
var activityMetrics = []string{
	"DCGM_FI_PROF_GR_ENGINE_ACTIVE",
	"DCGM_FI_PROF_GR_ENGINE_UTIL_RATIO",
	"DCGM_FI_DEV_GPU_UTIL",
}

// PartialError says the snapshot was built but some queries failed; the
// snapshot's notes say what is missing.
type PartialError struct {
	Failed []error
	Total  int
}

func (e *PartialError) Error() string {
	return fmt.Sprintf("%d of %d prometheus queries failed; first: %v", len(e.Failed), e.Total, e.Failed[0])
}

func (e *PartialError) Unwrap() []error { return e.Failed }

// Build reads the window's history and returns the snapshot. When some
// queries fail it still returns the snapshot, with a *PartialError; when
// nothing usable could be read it returns only the error.
func Build(ctx context.Context, c *Client, opts Options) (*cluster.Snapshot, error) {
	opts = opts.withDefaults()
	if opts.Read != ReadAuto && opts.Read != ReadRaw && opts.Read != ReadRange && opts.Read != ReadRemote {
		return nil, fmt.Errorf("prometheus read %q: want auto, remote, raw or range", opts.Read)
	}
	b := &builder{c: c, opts: opts, w: opts.Window}
	rctx, cancel := context.WithCancel(ctx)
	defer cancel()
	// The DCGM inventory is listed alongside the nodes: the DCGM series
	// wait on it. Read by remote read, it is not listed but taken from the
	// DCGM activity series themselves (free GPUs' included), and the
	// nodes are built after them (see readGPUUsageDerived).
	b.derive = opts.Read == ReadRemote
	invDone := make(chan error, 1)
	if b.derive {
		invDone <- nil
	} else {
		go func() { invDone <- b.listInventory(rctx) }()
	}
	if err := b.listNodes(ctx); err != nil {
		cancel()
		<-invDone
		return nil, err
	}
	// Everything after the node list overlaps, so that Prometheus always
	// has requests to answer while gpuwise decodes (the client's limit on
	// requests in flight holds for all of them together): cAdvisor series
	// need only the node names; the DCGM inventory and the facts nothing;
	// DCGM series the inventory and the node facts (buildNodes), not the
	// pod facts; the pods (buildPods) only the facts, so they are built
	// while the usage reads go on.
	b.gpus = &gpuUsage{holds: map[holdKey]*gpuSeries{}, hosts: map[string]bool{}}
	b.ctrs = &ctrUsage{ctrs: map[string]*ctrSeries{}}
	ctrDone := make(chan usageRun, 1)
	go func() { ctrDone <- b.readCtrUsage(rctx, b.nodeNames()) }()
	nodeTasks, podTasks := b.factTasks(rctx)
	podDone := make(chan []error, 1)
	go func() { podDone <- b.c.Run(rctx, podTasks) }()
	nodeErrs := b.c.Run(rctx, nodeTasks)
	invErr := <-invDone
	gpuDone := make(chan usageRun, 1)
	switch {
	case invErr == nil && b.derive:
		replicas, gpuNodes := b.nodeGPULabels()
		b.units = unitIndex{replicas: replicas}
		go func() { gpuDone <- b.readGPUUsageDerived(rctx, gpuNodes) }()
	case invErr == nil:
		b.buildNodes()
		go func() { gpuDone <- b.readGPUUsage(rctx) }()
	default:
		cancel()
		gpuDone <- usageRun{}
	}
	podErrs := <-podDone
	b.queries += len(nodeTasks) + len(podTasks)
	b.failed = append(append(b.failed, nodeErrs...), podErrs...)
	if invErr != nil || (b.queries > 0 && len(b.failed) == b.queries) {
		cancel()
		<-gpuDone
		<-ctrDone
		if invErr != nil {
			return nil, invErr // the inventory is part of the reachability probe
		}
		return nil, b.failed[0] // not one kube-state-metrics query passed
	}
	pods := b.buildPods()
	// Failures are listed facts first, then DCGM, then cAdvisor, as
	// before the reads overlapped.
	for _, r := range []usageRun{<-gpuDone, <-ctrDone} {
		b.queries += r.queries
		b.failed = append(b.failed, r.failed...)
	}
	if b.derive {
		b.buildNodes() // the inventory came with the DCGM series
	}
	s := b.snapshot(pods)
	if len(b.failed) > 0 {
		return s, &PartialError{Failed: b.failed, Total: b.queries}
	}
	return s, nil
}

// builder holds what Build has read so far.
type builder struct {
	c         *Client
	opts      Options
	w         cluster.Window
	failed    []error
	queries   int
	conflicts int // DCGM holdings dropped for overlapping another

	nodeInfo  map[string]map[string]string // node → kube_node_info labels
	inventory []gpuLabels                  // DCGM activity series' GPUs
	// Host labels the listed inventory uses (raw and range reads).
	invHostname, invLowerHostname bool
	// derive: the inventory comes from the DCGM activity series read by
	// remote read, not from a listing; units are looked up after the reads.
	derive   bool
	metric   string     // activity metric in use
	gpuRead  string     // how DCGM series were read
	ctrRead  string     // how cAdvisor series were read
	remoteOK *bool      // whether the remote-read probe passed
	probeMu  sync.Mutex // guards remoteOK: usage reads overlap

	nodeFacts map[string]*facts
	podFacts  map[string]*facts

	nodes []cluster.Node
	units unitIndex
	gpus  *gpuUsage
	ctrs  *ctrUsage

	// Series counts of the last committed usage batches, to size the
	// next ones' maps and lists (a shard's requests are alike in size).
	gpuHint, memHint, cpuHint atomic.Int64
}

// listNodes lists the nodes. It is also the reachability probe: its
// errors end the build.
func (b *builder) listNodes(ctx context.Context) error {
	b.nodeInfo = map[string]map[string]string{}
	err := b.c.Series(ctx, b.w.Start, b.w.End, []string{"kube_node_info"}, func(l map[string]string) {
		if n := l["node"]; n != "" {
			b.nodeInfo[n] = l
		}
	})
	if err != nil {
		return fmt.Errorf("listing nodes: %w", err)
	}
	if len(b.nodeInfo) == 0 {
		return &Error{Kind: Bad, URL: b.c.URL(), Query: "kube_node_info",
			Err:  fmt.Errorf("no kube-state-metrics node series between %s and %s", b.w.Start.Format(time.RFC3339), b.w.End.Format(time.RFC3339)),
			Hint: "is kube-state-metrics scraped by this Prometheus, and does the window hold data?"}
	}
	return nil
}

// listInventory lists the DCGM series of the first activity metric that
// has any. Its errors end the build too.
func (b *builder) listInventory(ctx context.Context) error {
	for _, m := range activityMetrics {
		var sets []gpuLabels
		n := 0
		err := b.c.Series(ctx, b.w.Start, b.w.End, []string{m}, func(l map[string]string) {
			n++
			if l["Hostname"] != "" {
				b.invHostname = true
			} else if l["hostname"] != "" {
				b.invLowerHostname = true
			}
			if g, ok := gpuLabelsOf(mapLabels(l)); ok {
				sets = append(sets, g)
			}
		})
		if err != nil {
			return fmt.Errorf("listing DCGM series: %w", err)
		}
		if n > 0 {
			b.metric, b.inventory = m, sets
			return nil
		}
		b.invHostname, b.invLowerHostname = false, false
	}
	return nil
}

var (
	nodeFactMetrics = []string{"kube_node_labels", "kube_node_status_allocatable", "kube_node_spec_taint",
		"kube_node_created", "kube_node_deletion_timestamp"}
	podFactMetrics = []string{"kube_pod_info", "kube_pod_owner", "kube_replicaset_owner", "kube_job_owner",
		"kube_pod_labels", "kube_pod_start_time", "kube_pod_completion_time",
		"kube_pod_container_resource_requests", "kube_pod_container_resource_limits",
		"kube_pod_container_status_last_terminated_reason", "kube_pod_container_status_restarts_total"}
)

// factTasks makes the requests for kube-state-metrics series, each read
// keeping the last value of each series. kube_pod_info, whose first and last points bound a pod's life when
// kube-state-metrics has no timestamp for it, is read at InfoStep; the
// other facts only need their last value and are read a day per point.
// Where remote read works (see factsByRemoteRead), each metric is one
// remote-read request over the whole window instead, its raw
// samples mapped onto the same grids: no PromQL evaluation and no JSON for
// Prometheus. factTasks returns the requests for the node facts and for the
// pod facts, to run apart: nodes need only the former.
func (b *builder) factTasks(ctx context.Context) (nodeTasks, podTasks []Task) {
	b.nodeFacts, b.podFacts = map[string]*facts{}, map[string]*facts{}
	remote := b.factsByRemoteRead(ctx)
	var tasks []Task
	add := func(into map[string]*facts, m string) {
		f := newFacts()
		into[m] = f
		step, anchor := b.opts.InfoStep, b.w.Start
		if m != "kube_pod_info" {
			step = max(24*time.Hour, b.opts.InfoStep)
			anchor = b.endAlignedStart(step)
		}
		if remote {
			ms := []Matcher{{MatchEqual, "__name__", m}}
			if m == "kube_pod_container_resource_limits" {
				// Only CPU and memory limits are read (see request): GPU
				// limits, as many series again on a GPU cluster, are not
				// asked for.
				ms = append(ms, Matcher{MatchRegexp, "resource", "cpu|memory"})
			}
			tasks = append(tasks, Task{Query: m + " (remote read)", From: anchor.Add(-step), To: b.w.End, Step: step,
				Raw: true, Remote: true, Ends: true, Matchers: ms, Open: f.openRaw(anchor, step)})
			return
		}
		q := fmt.Sprintf("last_over_time(%s[%s])", m, lookback(step))
		if m == "kube_pod_info" {
			tasks = append(tasks, b.spanTasks(q, step, b.infoSteps(), f.open)...)
			return
		}
		tasks = append(tasks, b.endAlignedTasks(q, step, f.open)...)
	}
	for _, m := range nodeFactMetrics {
		add(b.nodeFacts, m)
	}
	nodeTasks, tasks = tasks, nil
	for _, m := range podFactMetrics {
		add(b.podFacts, m)
	}
	return nodeTasks, tasks
}

// factsByRemoteRead tells whether the facts are read by remote read: with
// --prometheus-read remote, or auto when the server passes the remote-read
// probe. raw and range read them over the JSON API.
func (b *builder) factsByRemoteRead(ctx context.Context) bool {
	switch b.opts.Read {
	case ReadRemote:
		return true
	case ReadAuto:
		return b.remoteReadWorks(ctx)
	}
	return false
}

// infoSteps is how many info steps one facts request covers: a day, so
// that an answer for every container's requests stays small.
func (b *builder) infoSteps() int { return max(int(24*time.Hour/b.opts.InfoStep), 1) }

// endAlignedTasks reads a query at a coarse step on a grid that ends at
// the window's end, so that the last points are read; the first point may
// reach up to a step before the window.
func (b *builder) endAlignedTasks(q string, step time.Duration, open func() Batch) []Task {
	var out []Task
	for _, sp := range Split(b.endAlignedStart(step), b.w.End, step, 30) {
		out = append(out, Task{Query: q, From: sp.From, To: sp.To, Step: step, Open: open})
	}
	return out
}

// endAlignedStart is the first point of the grid of step that ends at the
// window's end and covers the window.
func (b *builder) endAlignedStart(step time.Duration) time.Time {
	n := int((b.w.End.Sub(b.w.Start) + step - 1) / step)
	return b.w.End.Add(-time.Duration(n) * step)
}

// spanTasks splits one query over the window.
func (b *builder) spanTasks(q string, step time.Duration, maxSteps int, open func() Batch) []Task {
	var out []Task
	for _, sp := range Split(b.w.Start, b.w.End, step, maxSteps) {
		out = append(out, Task{Query: q, From: sp.From, To: sp.To, Step: step, Open: open})
	}
	return out
}

// lookback is a range selector length just under step, so that a sample
// exactly one step before an evaluation point is not read twice (ranges
// are closed on the left before Prometheus 3).
func lookback(step time.Duration) string {
	return strconv.FormatInt(step.Milliseconds()-1, 10) + "ms"
}

// shards cuts names into groups of size and returns a quoted regex for each.
func shards(names []string, size int) []string {
	sort.Strings(names)
	var out []string
	for i := 0; i < len(names); i += size {
		group := names[i:min(i+size, len(names))]
		quoted := make([]string, len(group))
		for k, n := range group {
			quoted[k] = regexpQuote(n)
		}
		out = append(out, strconv.Quote(strings.Join(quoted, "|")))
	}
	return out
}

func regexpQuote(s string) string {
	var b strings.Builder
	for _, r := range s {
		if strings.ContainsRune(`\.+*?()|[]{}^$`, r) {
			b.WriteByte('\\')
		}
		b.WriteRune(r)
	}
	return b.String()
}
