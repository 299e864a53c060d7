package prom

import (
	"math"
	"slices"

	"github.com/gpuwise/gpuwise/internal/cluster"
	"github.com/gpuwise/gpuwise/internal/prom/query"
	"github.com/gpuwise/gpuwise/internal/prom/wire"
)

// The hour-by-hour series (cluster.Hourly). Usage series are binned by
// hour as they stream — per holding, container or serving pod, since a
// series' workload and unit fraction are known only once the pod facts
// and nodes are in — with the same weights as the usage accumulators, and
// folded into workloads when the snapshot is assembled (hourlyOf).

// hourClock places Unix times in the window's hours. It is read-only and
// shared by every batch of a build.
type hourClock struct {
	b     *cluster.HourlyBuilder // its Spans and IsIdle only
	start float64                // the window's start, Unix seconds
}

func newHourClock(w cluster.Window) *hourClock {
	return &hourClock{b: cluster.NewHourlyBuilder(w, cluster.DefaultIdleThreshold),
		start: float64(w.Start.UnixMilli()) / 1000}
}

// spans appends the spans of [t, t+dt), t in Unix seconds.
func (c *hourClock) spans(t, dt float64, buf []cluster.Span) []cluster.Span {
	return c.b.Spans(t-c.start, dt, buf)
}

// span is the one span of [t, t+dt) when it has one (see
// cluster.HourlyBuilder.Span); else call spans. cur is the series'
// cursor: its samples come in time order.
func (c *hourClock) span(cur *cluster.SpanCursor, t, dt float64) (cluster.Span, bool) {
	return cur.Span(c.b, t-c.start, dt)
}

// hour is the hour holding Unix second t, or -1 outside the window.
func (c *hourClock) hour(t float64) int { return c.b.Hour(t - c.start) }

// holdHours are one holding's hourly bins: measured, active and idle
// seconds (relative to the unit), and for a whole GPU the PCIe and
// NVLink receive bytes and the seconds they cover.
type holdHours struct {
	measured, active, idle cluster.Bins
	pcie, pcieSec          *cluster.Bins
	nvlink, nvlinkSec      *cluster.Bins
	buf                    []cluster.Span
	actCur, pcieCur, nvCur cluster.SpanCursor // each series' cursor
	// The last sample of each series, whose weight (a whole step) may
	// reach past the pod's end: trim takes the excess back.
	actLast, pcieLast, nvLast lastSample
}

// lastSample is a series' latest sample: its time, weight and value.
type lastSample struct{ t, dt, v float64 }

func (l *lastSample) keep(t, dt, v float64) {
	if t >= l.t {
		*l = lastSample{t, dt, v}
	}
}

func later(a, b lastSample) lastSample {
	if b.t > a.t {
		return b
	}
	return a
}

// activity is the Timed feed of the holding's activity series: the
// values and weights usage.Activity takes (NaN and empty times skipped,
// values clamped to [0, 1]).
func (h *holdHours) activity(c *hourClock) func(t, v, dt float64) {
	return func(t, v, dt float64) {
		if v != v || !(dt > 0) {
			return
		}
		v = min(max(v, 0), 1)
		h.actLast.keep(t, dt, v)
		h.addActivity(c, t, dt, v, 1)
	}
}

// addActivity adds (sign 1) or takes back (−1) dt seconds at activity v.
func (h *holdHours) addActivity(c *hourClock, t, dt, v, sign float64) {
	idle := 0.0
	if c.b.IsIdle(v) {
		idle = sign
	}
	if sp, ok := c.span(&h.actCur, t, dt); ok {
		h.measured.Add(sp, sign)
		h.active.Add(sp, sign*v)
		h.idle.Add(sp, idle)
		return
	}
	h.buf = c.spans(t, dt, h.buf[:0])
	for _, sp := range h.buf {
		h.measured.Add(sp, sign)
		h.active.Add(sp, sign*v)
		h.idle.Add(sp, idle)
	}
}

// trim takes back what the last samples' weights put past end (Unix
// seconds, the pod's end): Prometheus weighs a series' last sample a
// whole step, while the pod may have ended within it.
func (h *holdHours) trim(c *hourClock, end float64) {
	if l := h.actLast; l.dt > 0 && l.t+l.dt > end {
		from := max(l.t, end)
		h.addActivity(c, from, l.t+l.dt-from, l.v, -1)
	}
	for _, x := range []struct {
		l          lastSample
		bytes, sec *cluster.Bins
	}{{h.pcieLast, h.pcie, h.pcieSec}, {h.nvLast, h.nvlink, h.nvlinkSec}} {
		if x.bytes == nil || x.l.dt <= 0 || x.l.t+x.l.dt <= end {
			continue
		}
		from := max(x.l.t, end)
		h.buf = c.spans(from, x.l.t+x.l.dt-from, h.buf[:0])
		for _, sp := range h.buf {
			x.bytes.Add(sp, -x.l.v)
			x.sec.Add(sp, -1)
		}
	}
}

// link is the Timed feed of a receive-rate series (bytes/s) into bins of
// bytes and seconds.
func (h *holdHours) link(c *hourClock, bytes, secs **cluster.Bins, last *lastSample, cur *cluster.SpanCursor) func(t, v, dt float64) {
	if *bytes == nil {
		*bytes, *secs = &cluster.Bins{}, &cluster.Bins{}
	}
	b, s := *bytes, *secs
	return func(t, v, dt float64) {
		if v != v || v < 0 || !(dt > 0) {
			return
		}
		last.keep(t, dt, v)
		if sp, ok := c.span(cur, t, dt); ok {
			b.Add(sp, v)
			s.Add(sp, 1)
			return
		}
		h.buf = c.spans(t, dt, h.buf[:0])
		for _, sp := range h.buf {
			b.Add(sp, v)
			s.Add(sp, 1)
		}
	}
}

func (h *holdHours) merge(o *holdHours) {
	h.measured.Merge(&o.measured)
	h.active.Merge(&o.active)
	h.idle.Merge(&o.idle)
	mergeBins(&h.pcie, o.pcie)
	mergeBins(&h.pcieSec, o.pcieSec)
	mergeBins(&h.nvlink, o.nvlink)
	mergeBins(&h.nvlinkSec, o.nvlinkSec)
	h.actLast, h.pcieLast, h.nvLast = later(h.actLast, o.actLast), later(h.pcieLast, o.pcieLast), later(h.nvLast, o.nvLast)
}

// mergeBins adds o into *into, creating it.
func mergeBins(into **cluster.Bins, o *cluster.Bins) {
	if o == nil {
		return
	}
	if *into == nil {
		*into = &cluster.Bins{}
	}
	(*into).Merge(o)
}

// ctrHours are one container's hourly bins: CPU core-seconds used and
// seconds measured, CFS periods and throttled periods, peak working set
// and OOM kills (nil: no such series).
type ctrHours struct {
	used, ran          *cluster.Bins
	periods, throttled *cluster.Bins
	memPeak            *cluster.Bins
	oom                *cluster.Bins
}

func (h *ctrHours) merge(o *ctrHours) {
	if o == nil {
		return
	}
	mergeBins(&h.used, o.used)
	mergeBins(&h.ran, o.ran)
	mergeBins(&h.periods, o.periods)
	mergeBins(&h.throttled, o.throttled)
	mergeBins(&h.oom, o.oom)
	if o.memPeak != nil {
		if h.memPeak == nil {
			h.memPeak = &cluster.Bins{}
		}
		h.memPeak.MergePeak(o.memPeak)
	}
}

// peak is the Timed feed of a working-set series: its peak per hour.
func peakFeed(c *hourClock, into *cluster.Bins) func(t, v, dt float64) {
	st := &struct { // one allocation for both
		buf []cluster.Span
		cur cluster.SpanCursor
	}{}
	return func(t, v, dt float64) {
		if v != v || !(dt > 0) {
			return
		}
		if sp, ok := c.span(&st.cur, t, dt); ok {
			into.Peak(sp, v)
			return
		}
		st.buf = c.spans(t, dt, st.buf[:0])
		for _, sp := range st.buf {
			into.Peak(sp, v)
		}
	}
}

// counterBins turns a counter's samples into increments binned by hour:
// spread evenly over the time since the previous sample (a rate), or,
// for events (instant), counted in the hour of the sample that first
// shows them. A drop is a reset: the increment is the new value. Samples
// before cut only seed the previous value.
type counterBins struct {
	c       *hourClock
	into    *cluster.Bins
	secs    *cluster.Bins // with a rate: the seconds covered (nil: not kept)
	instant bool
	scale   float64 // increments × scale (0: 1)
	cut     float64
	prevT   float64
	prevV   float64
	seeded  bool
	buf     []cluster.Span
	cur     cluster.SpanCursor
	rng     *query.Range // when set: samples outside it left out, counted
}

// Samples takes a run of the counter's samples.
func (s *counterBins) Samples(xs []wire.Sample) {
	if s.rng != nil {
		xs = s.rng.Keep(xs)
	}
	for _, x := range xs {
		t, v := float64(x.T)/1000, x.V
		if v != v {
			continue
		}
		if s.seeded && t >= s.cut && t > s.prevT {
			s.add(t, v)
		}
		s.prevT, s.prevV, s.seeded = t, v, true
	}
}

func (s *counterBins) add(t, v float64) {
	inc := v - s.prevV
	if inc < 0 {
		inc = v
	}
	if s.scale != 0 {
		inc *= s.scale
	}
	if s.instant {
		if h := s.c.hour(t); h >= 0 && inc > 0 {
			s.into.Count(h, inc)
		}
		return
	}
	dt := t - s.prevT
	if sp, ok := s.c.span(&s.cur, s.prevT, dt); ok {
		s.into.Add(sp, inc/dt)
		if s.secs != nil {
			s.secs.Add(sp, 1)
		}
		return
	}
	s.buf = s.c.spans(s.prevT, dt, s.buf[:0])
	for _, sp := range s.buf {
		s.into.Add(sp, inc/dt)
		if s.secs != nil {
			s.secs.Add(sp, 1)
		}
	}
}

// End ends the series.
func (*counterBins) End() {}

// hourlyOf folds the binned series into the snapshot's workloads: each
// pod's life (held GPU-hours, as the cost engine counts them), its
// holdings' activity and links weighted by their units' fractions, its GPU
// containers' CPU, CFS, memory and OOM bins against their limits, and its
// server's series. It returns data-quality notes naming the metrics whose
// absence leaves series out, and with keepSums the raw sums too.
func hourlyOf(s *cluster.Snapshot, a assembly, keepSums bool) (*cluster.Hourly, *cluster.HourSums, []string) {
	for i := range s.Nodes {
		for j := range s.Nodes[i].GPUs {
			s.Nodes[i].GPUs[j].Normalize() // an invalid layout is Prepare's to refuse
		}
	}
	ix := cluster.NewIndex(s)
	b := cluster.NewHourlyBuilder(s.Window, cluster.DefaultIdleThreshold)
	b.Lives(s, ix)
	var seen seenSeries
	for i := range s.Pods {
		p := &s.Pods[i]
		n := ix.Nodes[p.Node]
		if len(p.GPUs) == 0 || n == nil {
			continue
		}
		l, ok := lifeOf(s.Window, p, n)
		if !ok {
			continue
		}
		acc := b.Workload(p.WorkloadKey())
		seen.holdings(acc, p, a.gpu.usage, ix, l)
		seen.containers(acc, p, a.ctr.usage, l)
		if h := servingOf(a.serve.usage, p.Key()); h != nil {
			acc.AddServeBins(h.server, l.within(h.requests), l.within(h.gen), l.within(h.prompt), l.within(h.waitingSec))
			for name, m := range h.models {
				acc.AddModelBins(name, l.within(m.requests), l.within(m.gen))
			}
			if bounds, cum := latencyBuckets(h.latency); cum != nil {
				for j := range cum {
					cum[j] = l.within(cum[j])
				}
				acc.AddLatencyBins(h.latMetric, bounds, cum)
				seen.latency = true
			}
			seen.serving = true
		}
	}
	notes := seen.notes()
	var sums *cluster.HourSums
	if keepSums { // before Build, which finalizes the sums in place
		var err error
		if sums, err = b.Sums(); err != nil {
			notes = append(notes, "hourly sums not kept: "+err.Error())
		}
	}
	return &cluster.Hourly{IdleThreshold: cluster.DefaultIdleThreshold, Workloads: b.Build()}, sums, notes
}

// life is a pod's life in the window and on its node: its end (Unix
// seconds) and its hours [lo, hi). Binned series are folded within it:
// a series' last sample, weighed a whole step, may reach past the pod.
type life struct {
	end    float64
	lo, hi int
}

func lifeOf(w cluster.Window, p *cluster.Pod, n *cluster.Node) (life, bool) {
	from, to, ok := w.Interval(p.Start, p.End)
	if ok {
		from, to, ok = cluster.Window{Start: from, End: to}.Interval(n.Created, n.Deleted)
	}
	if !ok {
		return life{}, false
	}
	lo := int(from.Sub(w.Start).Hours())
	hi := int(math.Ceil(to.Sub(w.Start).Hours()))
	return life{end: float64(to.UnixMilli()) / 1000, lo: lo, hi: hi}, true
}

func (l life) within(b *cluster.Bins) *cluster.Bins { return b.Within(l.lo, l.hi) }

// latencyBuckets orders a pod's bucket bins by their bound: the finite
// bounds and the bins of each, then +Inf's; nil when there is no +Inf
// bucket (every Prometheus histogram has one) or no finite one.
func latencyBuckets(by map[float64]*cluster.Bins) ([]float64, []*cluster.Bins) {
	inf := by[math.Inf(1)]
	if inf == nil || len(by) < 2 {
		return nil, nil
	}
	bounds := make([]float64, 0, len(by)-1)
	for le := range by {
		if !math.IsInf(le, 1) {
			bounds = append(bounds, le)
		}
	}
	slices.Sort(bounds)
	cum := make([]*cluster.Bins, 0, len(by))
	for _, le := range bounds {
		cum = append(cum, by[le])
	}
	return bounds, append(cum, inf)
}

func servingOf(u *serveUsage, pod string) *serveHours {
	if u == nil {
		return nil
	}
	return u.pods[pod]
}

// seenSeries records which hourly inputs any GPU workload had, for the
// notes on what is absent.
type seenSeries struct {
	measured, pcie, nvlink bool
	cpuLimited, cfs, oom   bool
	gpuContainers, serving bool
	latency                bool
}

func (sn *seenSeries) holdings(acc *cluster.HourlyAcc, p *cluster.Pod, u *gpuUsage, ix *cluster.Index, l life) {
	if u == nil {
		return
	}
	for _, hd := range p.GPUs {
		ref, ok := ix.Units[hd.UnitID]
		s := u.holds[holdKey{p.Key(), hd.UnitID}]
		if !ok || s == nil || s.hours == nil {
			continue
		}
		h := s.hours
		h.trim(u.clock, l.end)
		acc.AddGPUBins(ref.Unit.Fraction, l.within(&h.measured), l.within(&h.active), l.within(&h.idle))
		acc.AddLinkBins(l.within(h.pcie), l.within(h.pcieSec), l.within(h.nvlink), l.within(h.nvlinkSec))
		sn.measured = true
		sn.pcie = sn.pcie || h.pcie != nil
		sn.nvlink = sn.nvlink || h.nvlink != nil
	}
}

func (sn *seenSeries) containers(acc *cluster.HourlyAcc, p *cluster.Pod, u *ctrUsage, l life) {
	for _, c := range p.Containers {
		if len(c.GPURequests) == 0 {
			continue
		}
		sn.gpuContainers = true
		sn.cpuLimited = sn.cpuLimited || c.CPULimitMilli > 0
		var h *ctrHours
		if u != nil {
			if s := u.ctrs[p.Key()+"/"+c.Name]; s != nil {
				h = &s.hours
			}
		}
		if h == nil {
			continue
		}
		if c.CPULimitMilli > 0 && h.used != nil {
			acc.AddCPUBins(l.within(h.used), l.within(h.ran), float64(c.CPULimitMilli)/1000)
		}
		if h.periods != nil && h.throttled != nil {
			acc.AddThrottleBins(l.within(h.periods), l.within(h.throttled))
			sn.cfs = true
		}
		if c.MemoryLimit > 0 {
			acc.AddMemoryBins(l.within(h.memPeak), float64(c.MemoryLimit))
		}
		if h.oom != nil {
			acc.AddOOMBins(l.within(h.oom))
			sn.oom = true
		}
	}
}

// notes name the metrics whose absence leaves hourly series out, and
// what that costs the idle-cause split.
func (sn *seenSeries) notes() []string {
	var out []string
	add := func(missing bool, metric, effect string) {
		if missing {
			out = append(out, "hourly series: no "+metric+" series for GPU workloads: "+effect)
		}
	}
	add(sn.measured && !sn.pcie, pcieMetric,
		"input-bound idle cannot be told from no work, so idle hours are of unknown cause; enable the field in dcgm-exporter's counters CSV")
	add(sn.gpuContainers && !sn.oom, "container_oom_events_total (cAdvisor)",
		"memory-pressured idle cannot be ruled out, so idle hours are of unknown cause")
	add(sn.cpuLimited && !sn.cfs, "container_cpu_cfs_periods_total / container_cpu_cfs_throttled_periods_total (cAdvisor)",
		"CPU-starved idle rests on CPU use against the limit alone")
	if !sn.serving {
		out = append(out, "hourly series: no vLLM (vllm:request_success_total, vllm:num_requests_waiting) or Triton (nv_inference_request_success, nv_inference_queue_duration_us) series for GPU workloads: no request, token or queue counts")
	}
	add(sn.serving && !sn.latency, "vllm:e2e_request_latency_seconds_bucket or tgi_request_duration_bucket",
		"no serving latency histograms, so the latency red flag has no data (Triton exposes only cumulative durations, a mean)")
	return out
}
