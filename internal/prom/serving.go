package prom

import (
	"context"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/gpuwise/gpuwise/internal/cluster"
	"github.com/gpuwise/gpuwise/internal/prom/query"
	"github.com/gpuwise/gpuwise/internal/prom/wire"
)

// Inference servers' request, token and queue series, read for the
// hourly series (capacity levers: autoscaling on queue depth or request
// rate, cost per inference). Series are per pod, by the namespace and pod
// labels Prometheus' pod discovery adds.

// serveField names which of a pod's serving bins a series feeds.
type serveField int

const (
	serveRequests serveField = iota
	serveGenTokens
	servePromptTokens
	serveWaiting
	serveLatency // a latency histogram's _bucket counters, by le
)

// serveMetric is one series a server exposes and how it is read.
type serveMetric struct {
	name   string
	server string
	field  serveField
	gauge  bool    // a gauge of waiting requests, weighed like usage
	scale  float64 // counter increments × scale
}

// serveMetrics are the vLLM and Triton series read, by their real names:
// vLLM counts requests by finished_reason (summed), tokens, and gauges the
// requests waiting; Triton counts successful requests and cumulative queue
// microseconds, which by Little's law are the mean number of requests
// waiting × time (µs / 10⁶ = waiting-seconds). Triton counts no tokens.
var serveMetrics = []serveMetric{
	{"vllm:request_success_total", cluster.ServerVLLM, serveRequests, false, 1},
	{"vllm:generation_tokens_total", cluster.ServerVLLM, serveGenTokens, false, 1},
	{"vllm:prompt_tokens_total", cluster.ServerVLLM, servePromptTokens, false, 1},
	{"vllm:num_requests_waiting", cluster.ServerVLLM, serveWaiting, true, 1},
	{"nv_inference_request_success", cluster.ServerTriton, serveRequests, false, 1},
	{"nv_inference_queue_duration_us", cluster.ServerTriton, serveWaiting, false, 1e-6},
	{"vllm:e2e_request_latency_seconds_bucket", cluster.ServerVLLM, serveLatency, false, 1},
	{"tgi_request_duration_bucket", cluster.ServerTGI, serveLatency, false, 1},
}

// serveHours are one pod's serving bins (nil: no such series), and the
// request and generated-token bins per model name the server labels them
// with (vLLM model_name, Triton model; a series without one counts in the
// pod's totals only).
type serveHours struct {
	server                            string
	requests, gen, prompt, waitingSec *cluster.Bins
	models                            map[string]*modelHours
	// latency are the increments per hour of a latency histogram's
	// cumulative bucket counters, by their le label's value (+Inf too),
	// of the histogram latMetric (without _bucket).
	latency   map[float64]*cluster.Bins
	latMetric string
}

// modelHours are one model name's request and generated-token bins.
type modelHours struct{ requests, gen *cluster.Bins }

// modelLabels are the labels inference servers name the model by: vLLM's
// model_name and Triton's model (docs/serving-metrics.md).
var modelLabels = []string{"model_name", "model"}

func (h *serveHours) field(f serveField) **cluster.Bins {
	switch f {
	case serveRequests:
		return &h.requests
	case serveGenTokens:
		return &h.gen
	case servePromptTokens:
		return &h.prompt
	}
	return &h.waitingSec
}

// serveUsage is every pod's serving bins, committed by the batches under
// its lock.
type serveUsage struct {
	clock *hourClock
	mu    sync.Mutex
	pods  map[string]*serveHours // namespace/pod
	// ranges count, per metric, the samples left out for being negative
	// or infinite (a count or a gauge of requests cannot be).
	ranges map[string]*query.Range
}

// serveBatch bins one serving metric per pod.
type serveBatch struct {
	u      *serveUsage
	m      serveMetric
	cut    float64
	series []podBins
	rng    query.Range
}

type podBins struct {
	pod, model string
	le         float64 // a latency bucket's upper bound
	bins       *cluster.Bins
}

func (u *serveUsage) batch(m serveMetric) func(cut float64) func() query.Batch {
	return func(cut float64) func() query.Batch {
		return func() query.Batch {
			return &serveBatch{u: u, m: m, cut: cut, rng: query.Range{Min: 0, Max: math.MaxFloat64}}
		}
	}
}

func serveKeep(name []byte) bool {
	switch string(name) {
	case "namespace", "pod", "model_name", "model", "le":
		return true
	}
	return false
}

func (b *serveBatch) Series(l wire.Labels) query.Target {
	ns, pod := l.Get("namespace"), l.Get("pod")
	if ns == "" || pod == "" {
		return query.Target{}
	}
	model := ""
	for _, name := range modelLabels {
		if model = l.Get(name); model != "" {
			break
		}
	}
	le := 0.0
	if b.m.field == serveLatency {
		v, err := strconv.ParseFloat(l.Get("le"), 64)
		if err != nil || v != v {
			return query.Target{} // no bucket bound: not a histogram's bucket
		}
		le = v
	}
	bins := &cluster.Bins{}
	b.series = append(b.series, podBins{ns + "/" + pod, model, le, bins})
	if b.m.gauge {
		return query.Target{Acc: query.Acc{Timed: waitingFeed(b.u.clock, bins), Check: &b.rng}}
	}
	return query.Target{Sink: &counterBins{c: b.u.clock, into: bins, cut: b.cut, scale: b.m.scale, rng: &b.rng}}
}

// waitingFeed bins a gauge of waiting requests as waiting × seconds.
func waitingFeed(c *hourClock, into *cluster.Bins) func(t, v, dt float64) {
	var buf []cluster.Span
	return func(t, v, dt float64) {
		if v != v || v < 0 || !(dt > 0) {
			return
		}
		buf = c.spans(t, dt, buf[:0])
		for _, sp := range buf {
			into.Add(sp, v)
		}
	}
}

func (b *serveBatch) Commit() {
	u := b.u
	u.mu.Lock()
	defer u.mu.Unlock()
	if b.rng.Out > 0 {
		if u.ranges == nil {
			u.ranges = map[string]*query.Range{}
		}
		if u.ranges[b.m.name] == nil {
			u.ranges[b.m.name] = &query.Range{}
		}
		u.ranges[b.m.name].Add(&b.rng)
	}
	for _, s := range b.series {
		h := u.pods[s.pod]
		if h == nil {
			h = &serveHours{}
			u.pods[s.pod] = h
		}
		h.server = b.m.server
		if b.m.field == serveLatency {
			if h.latency == nil {
				h.latency, h.latMetric = map[float64]*cluster.Bins{}, strings.TrimSuffix(b.m.name, "_bucket")
			}
			if h.latMetric == strings.TrimSuffix(b.m.name, "_bucket") {
				into := h.latency[s.le]
				mergeBins(&into, s.bins)
				h.latency[s.le] = into
			}
			continue
		}
		if s.model != "" && (b.m.field == serveRequests || b.m.field == serveGenTokens) {
			if h.models == nil {
				h.models = map[string]*modelHours{}
			}
			m := h.models[s.model]
			if m == nil {
				m = &modelHours{}
				h.models[s.model] = m
			}
			into := &m.requests
			if b.m.field == serveGenTokens {
				into = &m.gen
			}
			// Merge hands the merged bins' storage on: the model's bins get
			// a copy, the pod's totals the original.
			mergeBins(into, &cluster.Bins{From: s.bins.From, S: slices.Clone(s.bins.S)})
		}
		mergeBins(h.field(b.m.field), s.bins)
	}
}

// serveRead is what the serving reads left.
type serveRead struct {
	usage   *serveUsage
	queries int
	failed  []query.Failure
}

// readServing reads the servers' series over the whole cluster (they
// carry no node label to shard by), counters as counters are read.
func (r *reader) readServing(ctx context.Context) serveRead {
	s := serveRead{usage: &serveUsage{clock: r.clock, pods: map[string]*serveHours{}}}
	mode := r.readMode(ctx, `vllm:request_success_total{namespace!="",pod!=""}`)
	var tasks []query.Task
	for _, m := range serveMetrics {
		tasks = append(tasks, r.serveTasks(m, mode, s.usage)...)
	}
	s.queries, s.failed = len(tasks), r.q.Run(ctx, tasks, (r.opts.Client.Concurrency+1)/2)
	return s
}

func (r *reader) serveTasks(m serveMetric, mode string, u *serveUsage) []query.Task {
	sel := m.name + `{namespace!="",pod!=""}`
	open := u.batch(m)
	if mode == ReadRange {
		lb := query.Lookback(r.opts.Step)
		if m.gauge {
			return r.spanTasks(fmt.Sprintf("avg_over_time(%s[%s])", sel, lb), open(0), nil)
		}
		return r.counterTasks(fmt.Sprintf("last_over_time(%s[%s])", sel, lb), open, nil)
	}
	ms := []wire.Matcher{{Type: wire.MatchEqual, Name: "__name__", Value: m.name},
		{Type: wire.MatchNotEqual, Name: "namespace", Value: ""}, {Type: wire.MatchNotEqual, Name: "pod", Value: ""}}
	days := r.rawCounterDays(sel, open, nil)
	if m.gauge {
		days = r.rawDays(sel, open(0), nil)
	}
	return rawOrRemote(mode == ReadRemote, sel, ms, serveKeep, days)
}
