package cluster

import (
	"math"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/gpuwise/gpuwise/internal/usage"
)

// HourlyBuilder turns samples into hour-by-hour workload series. A sample
// covers [t, t+dt), in seconds from the window's start, and is spread over
// the hours it overlaps, so sums over hours equal sums over samples. It
// accumulates in float64 and rounds to float32 once, in Build. Not safe
// for concurrent use: sources that build in parallel use one builder per
// worker and join their results (JoinHourly).
type HourlyBuilder struct {
	start     time.Time
	window    float64 // seconds
	hours     int
	threshold float64
	loads     map[string]*HourlyAcc
	order     []string
	used      []*[]float64 // arrays handed out, for Release
}

// NewHourlyBuilder starts series over w, counting activity below
// idleThreshold as idle.
func NewHourlyBuilder(w Window, idleThreshold float64) *HourlyBuilder {
	return &HourlyBuilder{start: w.Start, window: w.Seconds(), hours: w.HourCount(), threshold: idleThreshold, loads: map[string]*HourlyAcc{}}
}

// Workload returns the accumulator of a workload key, creating it.
func (b *HourlyBuilder) Workload(key string) *HourlyAcc {
	if a := b.loads[key]; a != nil {
		return a
	}
	a := &HourlyAcc{b: b, key: key, first: b.hours, last: -1}
	b.loads[key] = a
	b.order = append(b.order, key)
	return a
}

// HourlyAcc accumulates one workload's samples. Each quantity is a
// full-window float64 array, allocated when first used.
type HourlyAcc struct {
	b           *HourlyBuilder
	key         string
	first, last int // hour span of the pods' lives
	server      string
	trackOOM    bool

	podSec, heldSec                  []float64
	measuredSec, activeSec, idleSec  []float64
	periods, throttled               []float64
	cpuUsed, cpuLimit                []float64
	memPeak                          []float64
	oom                              []float64
	pcie, pcieSec, nvlink, nvlinkSec []float64
	requests, genTokens, promptTok   []float64
	queue                            []float64
	models                           map[string]*modelAcc
	lat                              *latencyAcc
}

// modelAcc is one model name's requests and generated tokens.
type modelAcc struct{ requests, genTokens []float64 }

func (a *HourlyAcc) model(name string) *modelAcc {
	if a.models == nil {
		a.models = map[string]*modelAcc{}
	}
	m := a.models[name]
	if m == nil {
		m = &modelAcc{}
		a.models[name] = m
	}
	return m
}

// ServeModel records the part of Serve's requests and generated tokens
// per second (negative: not counted) that one model name served; an
// empty name records nothing.
func (a *HourlyAcc) ServeModel(sp Span, model string, requests, genTokens float64) {
	if model == "" {
		return
	}
	m := a.model(model)
	sp.add(a.alloc(&m.requests), requests)
	if genTokens >= 0 {
		sp.add(a.alloc(&m.genTokens), genTokens)
	}
}

// Life records a pod alive over [from, to) holding GPU units whose
// fractions sum to gpuFraction: pod-hours and held GPU-hours.
func (a *HourlyAcc) Life(from, to, gpuFraction float64) {
	from, to = max(from, 0), min(to, a.b.window)
	if to <= from {
		return
	}
	a.first = min(a.first, int(from/3600))
	a.last = max(a.last, min(int(math.Ceil(to/3600))-1, a.b.hours-1))
	a.b.spread(a.alloc(&a.podSec), from, to-from, 1)
	if gpuFraction > 0 {
		a.b.spread(a.alloc(&a.heldSec), from, to-from, gpuFraction)
	}
}

// Span is where a piece of a sample falls: an hour, and the piece's
// seconds in it and in the next hour (0 when it does not straddle).
// Quantities are added per span as rates, so a source finds a sample's
// span once and adds every GPU, container and counter of it.
type Span struct {
	h        int32
	hours    int32 // the window's hours: Bins a span first touches are sized to the window's end once
	in, next float64
}

// Spans appends to buf the spans of the sample [t, t+dt), clipped to the
// window: one for a sample of at most an hour, more for a longer one.
func (b *HourlyBuilder) Spans(t, dt float64, buf []Span) []Span {
	end := min(t+dt, b.window)
	for t = max(t, 0); t < end; {
		sp := b.span(t, end)
		buf = append(buf, sp)
		t += sp.in + sp.next
	}
	return buf
}

// Span is the one span of a sample [t, t+dt) that Spans would return,
// ok false when Spans returns none or more than one (a sample longer
// than an hour, or cut by the window's ends): then call Spans. Sources
// call it first for each sample, which is most often the whole answer.
func (b *HourlyBuilder) Span(t, dt float64) (sp Span, ok bool) {
	end := min(t+dt, b.window)
	if t = max(t, 0); !(t < end) {
		return Span{}, false
	}
	sp = b.span(t, end)
	// The same test as Spans' loop: the span must reach end.
	return sp, !(t+sp.in+sp.next < end)
}

// span is the span starting at t (0 ≤ t < end ≤ the window's end).
func (b *HourlyBuilder) span(t, end float64) Span {
	h := int(t / 3600)
	cut := float64(h+1) * 3600
	sp := Span{h: int32(h), hours: int32(b.hours), in: min(cut, end) - t}
	if end > cut && h+1 < b.hours {
		sp.next = min(end, cut+3600) - cut
	}
	return sp
}

// Hour is the hour the span starts in.
func (sp Span) Hour() int { return int(sp.h) }

// Seconds is the span's length.
func (sp Span) Seconds() float64 { return sp.in + sp.next }

func (sp Span) add(arr []float64, rate float64) {
	arr[sp.h] += rate * sp.in
	if sp.next > 0 {
		arr[sp.h+1] += rate * sp.next
	}
}

// IsIdle reports whether activity v counts as idle in these series, by
// the cost engine's rule (usage.IsIdle).
func (b *HourlyBuilder) IsIdle(v float64) bool { return usage.IsIdle(v, b.threshold) }

// GPUs records a span of measured units, summed over the units of a
// sample: Σ fraction, Σ fraction × activity and Σ fraction of those idle
// (IsIdle). A pod whose GPUs move in lockstep adds them in one call.
func (a *HourlyAcc) GPUs(sp Span, measured, active, idle float64) {
	sp.add(a.alloc(&a.measuredSec), measured)
	sp.add(a.alloc(&a.activeSec), active)
	sp.add(a.alloc(&a.idleSec), idle)
}

// Links records the summed receive rates (bytes/s) of a span's whole
// GPUs: pcie over pcieGPUs, nvlink over nvGPUs (0: no NVLink series).
// The hourly figures are means per GPU.
func (a *HourlyAcc) Links(sp Span, pcie float64, pcieGPUs int, nvlink float64, nvGPUs int) {
	if pcieGPUs > 0 {
		sp.add(a.alloc(&a.pcie), pcie)
		sp.add(a.alloc(&a.pcieSec), float64(pcieGPUs))
	}
	if nvGPUs > 0 {
		sp.add(a.alloc(&a.nvlink), nvlink)
		sp.add(a.alloc(&a.nvlinkSec), float64(nvGPUs))
	}
}

// CPU records a CPU-limited container's usage and limit, in cores.
func (a *HourlyAcc) CPU(sp Span, usedCores, limitCores float64) {
	sp.add(a.alloc(&a.cpuUsed), usedCores)
	sp.add(a.alloc(&a.cpuLimit), limitCores)
}

// Throttle records a container's CFS periods and throttled periods, as
// rates per second.
func (a *HourlyAcc) Throttle(sp Span, periods, throttled float64) {
	sp.add(a.alloc(&a.periods), periods)
	sp.add(a.alloc(&a.throttled), throttled)
}

// Memory records a memory-limited container's working set / limit.
func (a *HourlyAcc) Memory(sp Span, ofLimit float64) {
	if a.memPeak == nil {
		a.memPeak = a.b.array()
		for i := range a.memPeak {
			a.memPeak[i] = math.NaN()
		}
	}
	peak(a.memPeak, int(sp.h), ofLimit)
	if sp.next > 0 {
		peak(a.memPeak, int(sp.h)+1, ofLimit)
	}
}

func peak(arr []float64, h int, v float64) {
	if !(arr[h] >= v) {
		arr[h] = v
	}
}

// TrackOOM says the source counts OOM kills for this workload, so hours
// without one hold 0 rather than no series.
func (a *HourlyAcc) TrackOOM() { a.trackOOM = true; a.alloc(&a.oom) }

// OOMKills records n OOM kills at t (seconds from the window's start).
func (a *HourlyAcc) OOMKills(t, n float64) {
	a.TrackOOM()
	if h := a.b.Hour(t); h >= 0 {
		a.oom[h] += n
	}
}

// Serve records an inference server's rates over a span: requests
// completed, tokens generated and prompt tokens per second (negative: the
// server does not count them), and the mean number of requests waiting.
func (a *HourlyAcc) Serve(sp Span, server string, requests, genTokens, promptTokens, waiting float64) {
	a.server = server
	sp.add(a.alloc(&a.requests), requests)
	if genTokens >= 0 {
		sp.add(a.alloc(&a.genTokens), genTokens)
	}
	if promptTokens >= 0 {
		sp.add(a.alloc(&a.promptTok), promptTokens)
	}
	sp.add(a.alloc(&a.queue), waiting)
}

func (a *HourlyAcc) alloc(p *[]float64) []float64 {
	if *p == nil {
		*p = a.b.array()
	}
	return *p
}

// arrays recycles accumulator arrays between builders: a source that
// builds cell after cell (the simulator at scale) would otherwise allocate
// a dozen window-long arrays per workload and feed the garbage collector.
var arrays sync.Pool

// array returns a zeroed window-long array, recycled when one is free.
func (b *HourlyBuilder) array() []float64 {
	if p, ok := arrays.Get().(*[]float64); ok && cap(*p) >= b.hours {
		arr := (*p)[:b.hours]
		clear(arr)
		b.used = append(b.used, p)
		return arr
	}
	arr := make([]float64, b.hours)
	b.used = append(b.used, &arr)
	return arr
}

// Release returns the builder's arrays for reuse; call it after Build,
// when nothing reads the builder any more.
func (b *HourlyBuilder) Release() {
	for _, p := range b.used {
		arrays.Put(p)
	}
	b.used, b.loads, b.order = nil, nil, nil
}

// Hour is the index of the hour holding t (seconds from the window's
// start), or -1 outside the window.
func (b *HourlyBuilder) Hour(t float64) int {
	if t < 0 || t >= b.window {
		return -1
	}
	return min(int(t/3600), b.hours-1)
}

// spread adds rate × the seconds [t, t+dt) overlaps each hour, clipped to
// the window.
func (b *HourlyBuilder) spread(arr []float64, t, dt, rate float64) {
	end := min(t+dt, b.window)
	t = max(t, 0)
	for t < end {
		h := int(t / 3600)
		next := min(float64(h+1)*3600, end)
		arr[h] += rate * (next - t)
		t = next
	}
}

// Build returns the series of every workload that had a pod in the
// window, sorted by workload key.
func (b *HourlyBuilder) Build() []WorkloadHours {
	out := make([]WorkloadHours, 0, len(b.order))
	for _, k := range b.order {
		if a := b.loads[k]; a.last >= a.first {
			out = append(out, a.build())
		}
	}
	slices.SortFunc(out, func(x, y WorkloadHours) int { return strings.Compare(x.Workload, y.Workload) })
	return out
}

// clampMeasured scales an hour's measured, active and idle time down to
// its held time where a series outlived its pod (a pod's end known to a
// scrape, a clock skew): the hourly form of the cost engine's rule that
// activity never covers more than the time a unit was held.
func (a *HourlyAcc) clampMeasured(lo, hi int) {
	if a.measuredSec == nil {
		return
	}
	for h := lo; h < hi; h++ {
		held := 0.0
		if a.heldSec != nil {
			held = a.heldSec[h]
		}
		if m := a.measuredSec[h]; m > held {
			k := held / m
			a.measuredSec[h] = held
			a.activeSec[h] *= k
			a.idleSec[h] *= k
		}
	}
}

// hourSeconds is the length of hour h inside the window.
func (b *HourlyBuilder) hourSeconds(h int) float64 {
	return min(float64(h+1)*3600, b.window) - float64(h)*3600
}

func (a *HourlyAcc) build() WorkloadHours {
	lo, hi := a.first, a.last+1
	a.clampMeasured(lo, hi)
	w := WorkloadHours{Workload: a.key, From: lo, Server: a.server}
	hours := func(arr []float64) Series { return a.b.scaled(arr, lo, hi, func(int) float64 { return 3600 }) }
	w.Pods, w.GPUHeld, w.GPUMeasured = hours(a.podSec), hours(a.heldSec), hours(a.measuredSec)
	if w.GPUHeld == nil {
		w.GPUHeld = make(Series, hi-lo)
	}
	if w.GPUMeasured == nil {
		w.GPUMeasured = make(Series, hi-lo)
	}
	if w.GPUMeasured.Sum() > 0 {
		w.GPUActive, w.GPUIdle = hours(a.activeSec), hours(a.idleSec)
	}
	w.CPUThrottled = ratio(a.throttled, a.periods, lo, hi)
	w.CPUOfLimit = ratio(a.cpuUsed, a.cpuLimit, lo, hi)
	w.MemoryOfLimit = a.b.scaled(a.memPeak, lo, hi, func(int) float64 { return 1 })
	w.OOMKills = a.b.scaled(a.oom, lo, hi, func(int) float64 { return 1 })
	w.PCIeRx, w.NVLinkRx = ratio(a.pcie, a.pcieSec, lo, hi), ratio(a.nvlink, a.nvlinkSec, lo, hi)
	w.Requests = a.b.scaled(a.requests, lo, hi, func(int) float64 { return 1 })
	w.GenerationTokens = a.b.scaled(a.genTokens, lo, hi, func(int) float64 { return 1 })
	w.PromptTokens = a.b.scaled(a.promptTok, lo, hi, func(int) float64 { return 1 })
	w.QueueDepth = a.b.scaled(a.queue, lo, hi, a.b.hourSeconds)
	w.Latency = a.lat.build(lo, hi)
	if len(a.models) > 0 {
		names := make([]string, 0, len(a.models))
		for n := range a.models {
			names = append(names, n)
		}
		slices.Sort(names)
		for _, n := range names {
			m := a.models[n]
			w.Models = append(w.Models, ModelHours{Model: n,
				Requests:         a.b.scaled(m.requests, lo, hi, func(int) float64 { return 1 }),
				GenerationTokens: a.b.scaled(m.genTokens, lo, hi, func(int) float64 { return 1 })})
		}
	}
	return w
}

// scaled is arr[lo:hi] / div(hour) as float32; nil for a nil arr.
func (b *HourlyBuilder) scaled(arr []float64, lo, hi int, div func(int) float64) Series {
	if arr == nil {
		return nil
	}
	out := make(Series, hi-lo)
	for i := range out {
		out[i] = float32(arr[lo+i] / div(lo+i))
	}
	return out
}

// ratio is num/den per hour, NaN where den is 0; nil when den is.
func ratio(num, den []float64, lo, hi int) Series {
	if den == nil {
		return nil
	}
	out := make(Series, hi-lo)
	for i := range out {
		out[i] = float32(math.NaN())
		if d := den[lo+i]; d > 0 {
			out[i] = float32(num[lo+i] / d)
		}
	}
	return out
}

// JoinHourly joins workload series built separately (one builder per
// cell or worker) into one sorted list; the parts must not share keys.
func JoinHourly(parts ...[]WorkloadHours) []WorkloadHours {
	var n int
	for _, p := range parts {
		n += len(p)
	}
	out := make([]WorkloadHours, 0, n)
	for _, p := range parts {
		out = append(out, p...)
	}
	slices.SortFunc(out, func(x, y WorkloadHours) int { return strings.Compare(x.Workload, y.Workload) })
	return out
}

// Lives adds every GPU-holding pod's life to its workload: pod-hours and
// held GPU-hours over the pod's life clipped to the window and to its
// node's life — the time the cost engine allocates, so that Σ hourly held
// GPU-hours equals its allocated GPU-hours. Unit fractions come from the
// index: call it once the GPUs are normalized (GPU.Normalize, Prepare).
// Sources that know lives only from the finished snapshot (Prometheus)
// use it; the simulator adds each pod as it streams it.
func (b *HourlyBuilder) Lives(s *Snapshot, ix *Index) {
	for i := range s.Pods {
		p := &s.Pods[i]
		n := ix.Nodes[p.Node]
		if len(p.GPUs) == 0 || n == nil {
			continue
		}
		from, to, ok := s.Window.Interval(p.Start, p.End)
		if !ok {
			continue
		}
		if from, to, ok = (Window{Start: from, End: to}).Interval(n.Created, n.Deleted); !ok {
			continue
		}
		var held float64
		for _, h := range p.GPUs {
			if ref, ok := ix.Units[h.UnitID]; ok {
				held += ref.Unit.Fraction
			}
		}
		b.Workload(p.WorkloadKey()).Life(from.Sub(s.Window.Start).Seconds(), to.Sub(s.Window.Start).Seconds(), held)
	}
}
