package cluster

import (
	"math"
	"slices"
	"strings"

	"github.com/gpuwise/gpuwise/internal/usage"
)

// HourlyBuilder turns samples into hour-by-hour workload series. A sample
// covers [t, t+dt), in seconds from the window's start, and is spread over
// the hours it overlaps, so sums over hours equal sums over samples. It
// accumulates in float64 and rounds to float32 once, in Build. Not safe
// for concurrent use: sources that build in parallel use one builder per
// worker and join their results (JoinHourly).
type HourlyBuilder struct {
	window    float64 // seconds
	hours     int
	threshold float64
	loads     map[string]*HourlyAcc
	order     []string
}

// NewHourlyBuilder starts series over w, counting activity below
// idleThreshold as idle.
func NewHourlyBuilder(w Window, idleThreshold float64) *HourlyBuilder {
	return &HourlyBuilder{window: w.Seconds(), hours: w.HourCount(), threshold: idleThreshold, loads: map[string]*HourlyAcc{}}
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

// GPU records dt measured seconds of a unit of the given fraction at
// activity v (relative to the unit).
func (a *HourlyAcc) GPU(t, dt, fraction, v float64) {
	a.b.spread(a.alloc(&a.measuredSec), t, dt, fraction)
	a.b.spread(a.alloc(&a.activeSec), t, dt, fraction*min(max(v, 0), 1))
	a.alloc(&a.idleSec)
	if usage.IsIdle(v, a.b.threshold) {
		a.b.spread(a.idleSec, t, dt, fraction)
	}
}

// PCIe records a whole GPU's mean PCIe receive rate (bytes/s) over dt.
func (a *HourlyAcc) PCIe(t, dt, bytesPerSec float64) {
	a.b.spread(a.alloc(&a.pcie), t, dt, bytesPerSec)
	a.b.spread(a.alloc(&a.pcieSec), t, dt, 1)
}

// NVLink records a whole GPU's mean NVLink receive rate (bytes/s) over dt.
func (a *HourlyAcc) NVLink(t, dt, bytesPerSec float64) {
	a.b.spread(a.alloc(&a.nvlink), t, dt, bytesPerSec)
	a.b.spread(a.alloc(&a.nvlinkSec), t, dt, 1)
}

// CPU records a limited container's usage and limit (cores) over dt.
func (a *HourlyAcc) CPU(t, dt, usedCores, limitCores float64) {
	a.b.spread(a.alloc(&a.cpuUsed), t, dt, usedCores)
	a.b.spread(a.alloc(&a.cpuLimit), t, dt, limitCores)
}

// Throttle records CFS periods and throttled periods counted over
// [t, t+dt).
func (a *HourlyAcc) Throttle(t, dt, periods, throttled float64) {
	if dt <= 0 {
		return
	}
	a.b.spread(a.alloc(&a.periods), t, dt, periods/dt)
	a.b.spread(a.alloc(&a.throttled), t, dt, throttled/dt)
}

// Memory records a limited container's working set / limit at time t.
func (a *HourlyAcc) Memory(t, ofLimit float64) {
	h := a.b.hour(t)
	if h < 0 {
		return
	}
	if a.memPeak == nil {
		a.memPeak = make([]float64, a.b.hours)
		for i := range a.memPeak {
			a.memPeak[i] = math.NaN()
		}
	}
	if !(a.memPeak[h] >= ofLimit) {
		a.memPeak[h] = ofLimit
	}
}

// TrackOOM says the source counts OOM kills for this workload, so hours
// without one hold 0 rather than no series.
func (a *HourlyAcc) TrackOOM() { a.trackOOM = true; a.alloc(&a.oom) }

// OOMKills records n OOM kills counted over [t, t+dt) (dt 0: at t).
func (a *HourlyAcc) OOMKills(t, dt, n float64) {
	a.TrackOOM()
	a.b.count(a.oom, t, dt, n)
}

// Serve records an inference server's counts over [t, t+dt): requests
// completed, tokens generated and prompt tokens (negative: the server
// does not count them), and the mean number of requests waiting.
func (a *HourlyAcc) Serve(server string, t, dt, requests, genTokens, promptTokens, waiting float64) {
	a.server = server
	a.b.count(a.alloc(&a.requests), t, dt, requests)
	if genTokens >= 0 {
		a.b.count(a.alloc(&a.genTokens), t, dt, genTokens)
	}
	if promptTokens >= 0 {
		a.b.count(a.alloc(&a.promptTok), t, dt, promptTokens)
	}
	a.b.spread(a.alloc(&a.queue), t, dt, waiting)
}

func (a *HourlyAcc) alloc(p *[]float64) []float64 {
	if *p == nil {
		*p = make([]float64, a.b.hours)
	}
	return *p
}

// hour is the index of the hour holding t, or -1 outside the window.
func (b *HourlyBuilder) hour(t float64) int {
	if t < 0 || t >= b.window {
		return -1
	}
	return min(int(t/3600), b.hours-1)
}

// count adds n events spread evenly over [t, t+dt), or at t when dt is 0.
func (b *HourlyBuilder) count(arr []float64, t, dt, n float64) {
	if dt > 0 {
		b.spread(arr, t, dt, n/dt)
		return
	}
	if h := b.hour(t); h >= 0 {
		arr[h] += n
	}
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

// hourSeconds is the length of hour h inside the window.
func (b *HourlyBuilder) hourSeconds(h int) float64 {
	return min(float64(h+1)*3600, b.window) - float64(h)*3600
}

func (a *HourlyAcc) build() WorkloadHours {
	lo, hi := a.first, a.last+1
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
