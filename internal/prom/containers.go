package prom

import (
	"sync"
	"sync/atomic"

	"github.com/gpuwise/gpuwise/internal/cluster"
	"github.com/gpuwise/gpuwise/internal/prom/query"
	"github.com/gpuwise/gpuwise/internal/prom/wire"
	"github.com/gpuwise/gpuwise/internal/usage"
)

// ctrSeries is the accumulated usage of one container, and its hourly
// bins.
type ctrSeries struct {
	cpu, mem *usage.Gauge
	resets   int
	hours    ctrHours
}

// ctrUsage is every container's usage, committed by the cAdvisor batches
// of a build under its lock.
type ctrUsage struct {
	memHint, cpuHint atomic.Int64 // series of the last batches, to size the next
	// clock, when set, bins the series by hour.
	clock *hourClock
	// binned, once set (onlyBin), are the containers whose hourly bins
	// are kept: those with GPU requests, the only ones hourlyOf folds.
	// Until the pods are known every container is binned; a series whose
	// first frame comes after is not, which changes no answer.
	binned atomic.Pointer[map[string]struct{}]

	mu   sync.Mutex
	ctrs map[string]*ctrSeries // namespace/pod/container
	// memRange, cpuRange and counterRanges count the samples left out
	// for being outside what the metric can hold (ctrRanges).
	memRange, cpuRange query.Range
	counterRanges      [nCounterKinds]query.Range
}

func newCtrUsage() *ctrUsage { return &ctrUsage{ctrs: map[string]*ctrSeries{}} }

// onlyBin keeps hourly bins, from now on, for the containers ks
// (namespace/pod/container) only.
func (u *ctrUsage) onlyBin(ks map[string]struct{}) { u.binned.Store(&ks) }

// bins says whether container k's series are binned by hour.
func (u *ctrUsage) bins(k string) bool {
	if u.clock == nil {
		return false
	}
	set := u.binned.Load()
	if set == nil {
		return true
	}
	_, ok := (*set)[k]
	return ok
}

func (u *ctrUsage) commit(fn func(map[string]*ctrSeries), ks []string) {
	u.mu.Lock()
	defer u.mu.Unlock()
	for _, k := range ks {
		if u.ctrs[k] == nil {
			u.ctrs[k] = &ctrSeries{}
		}
	}
	fn(u.ctrs)
}

// ctrKeep says which labels of a cAdvisor series route it (ctrKey).
func ctrKeep(name []byte) bool {
	switch string(name) {
	case "namespace", "pod", "container":
		return true
	}
	return false
}

func ctrKey(l wire.Labels) string {
	ns, pod, ctr := l.Get("namespace"), l.Get("pod"), l.Get("container")
	return ns + "/" + pod + "/" + ctr
}

// memBatch collects working-set series per container, and their peak
// per hour.
type memBatch struct {
	u      *ctrUsage
	series map[string]*usage.Gauge
	peaks  map[string]*cluster.Bins
	gauges slab[usage.Gauge]
	rng    query.Range
}

func (u *ctrUsage) memBatch() query.Batch {
	return &memBatch{u: u, series: make(map[string]*usage.Gauge, u.memHint.Load()), peaks: map[string]*cluster.Bins{}, rng: ctrRange(memMetric)}
}

// Series is the container's gauge in the batch, created on first use.
func (m *memBatch) Series(l wire.Labels) query.Target {
	k := ctrKey(l)
	g := m.series[k]
	if g == nil { // a restarted container is a new series of the same container
		g = m.gauges.new()
		m.series[k] = g
	}
	acc := query.Acc{Gauge: g, Check: &m.rng}
	if m.u.bins(k) {
		p := m.peaks[k]
		if p == nil {
			p = &cluster.Bins{}
			m.peaks[k] = p
		}
		acc.Timed = peakFeed(m.u.clock, p)
	}
	return query.Target{Acc: acc}
}

func (m *memBatch) Commit() {
	m.u.memHint.Store(int64(len(m.series)))
	ks := make([]string, 0, len(m.series))
	for k := range m.series {
		ks = append(ks, k)
	}
	m.u.commit(func(c map[string]*ctrSeries) {
		m.u.memRange.Add(&m.rng)
		for k, g := range m.series {
			s := c[k]
			s.mem = mergeGauge(s.mem, g)
			s.hours.merge(&ctrHours{memPeak: m.peaks[k]})
		}
	}, ks)
}

// cpuBatch turns CPU counter samples into rates: each rate stands for the
// time since the previous sample; a drop is a counter reset.
type cpuBatch struct {
	u   *ctrUsage
	cut float64 // samples before cut only seed the previous value
	// series are the request's series in the order they came, each with
	// its container: a container's series (one per restart) merge in that
	// order, so the sums do not depend on map iteration.
	series []ctrState
	states slab[cpuState]
	rng    query.Range
}

type ctrState struct {
	ctr string
	s   *cpuState
}

type cpuState struct {
	g      usage.Gauge
	cut    float64
	prevT  float64
	prevV  float64
	seeded bool
	resets int
	// hours, with a clock: core-seconds used and seconds measured per hour.
	clock     *hourClock
	used, ran cluster.Bins
	buf       []cluster.Span
	cur       cluster.SpanCursor
	rng       *query.Range // the batch's: samples left out, counted
}

func (u *ctrUsage) cpuBatch(cut float64) func() query.Batch {
	return func() query.Batch {
		return &cpuBatch{u: u, cut: cut, series: make([]ctrState, 0, u.cpuHint.Load()), rng: ctrRange(cpuMetric)}
	}
}

func (c *cpuBatch) Series(l wire.Labels) query.Target {
	s := c.states.new()
	k := ctrKey(l)
	s.cut, s.rng = c.cut, &c.rng
	if c.u.bins(k) {
		s.clock = c.u.clock
	}
	c.series = append(c.series, ctrState{k, s})
	return query.Target{Sink: s}
}

// Samples takes counter samples: from the second on, the rate since the
// previous one stands for the time between them; a drop is a reset.
func (s *cpuState) Samples(xs []wire.Sample) {
	if s.rng != nil {
		xs = s.rng.Keep(xs)
	}
	prevT, prevV, seeded, resets, cut := s.prevT, s.prevV, s.seeded, s.resets, s.cut
	for _, x := range xs {
		t, v := float64(x.T)/1000, x.V
		if seeded && t >= cut && t > prevT {
			inc := v - prevV
			if inc < 0 {
				inc, resets = v, resets+1
			}
			s.g.Add(inc/(t-prevT), t-prevT)
			if s.clock != nil {
				s.hour(prevT, t, inc)
			}
		}
		prevT, prevV, seeded = t, v, true
	}
	s.prevT, s.prevV, s.seeded, s.resets = prevT, prevV, seeded, resets
}

// hour bins one rate: inc core-seconds over [from, to).
func (s *cpuState) hour(from, to, inc float64) {
	if sp, ok := s.clock.span(&s.cur, from, to-from); ok {
		s.used.Add(sp, inc/(to-from))
		s.ran.Add(sp, 1)
		return
	}
	s.buf = s.clock.spans(from, to-from, s.buf[:0])
	for _, sp := range s.buf {
		s.used.Add(sp, inc/(to-from))
		s.ran.Add(sp, 1)
	}
}

func (*cpuState) End() {}

func (c *cpuBatch) Commit() {
	c.u.cpuHint.Store(int64(len(c.series)))
	ks := make([]string, len(c.series))
	for i, cs := range c.series {
		ks[i] = cs.ctr
	}
	c.u.commit(func(m map[string]*ctrSeries) {
		c.u.cpuRange.Add(&c.rng)
		for _, cs := range c.series {
			into := m[cs.ctr]
			into.cpu = mergeGauge(into.cpu, &cs.s.g)
			into.resets += cs.s.resets
			if cs.s.clock != nil {
				into.hours.merge(&ctrHours{used: &cs.s.used, ran: &cs.s.ran})
			}
		}
	}, ks)
}

// counterKind names which hourly bins of a container a counter feeds.
type counterKind int

const (
	cfsPeriods counterKind = iota
	cfsThrottled
	oomEvents
	nCounterKinds
)

// The cAdvisor counters read for the hourly series only.
var ctrCounterMetrics = map[counterKind]string{
	cfsPeriods:   "container_cpu_cfs_periods_total",
	cfsThrottled: "container_cpu_cfs_throttled_periods_total",
	oomEvents:    "container_oom_events_total",
}

// counterBatch bins one cAdvisor counter per container: CFS periods
// spread over the time between samples, OOM events counted in the hour
// they show.
type counterBatch struct {
	u      *ctrUsage
	kind   counterKind
	cut    float64
	series []ctrCounter
	rng    query.Range
}

type ctrCounter struct {
	ctr string
	s   *counterBins
}

func (u *ctrUsage) counterBatch(kind counterKind) func(cut float64) func() query.Batch {
	return func(cut float64) func() query.Batch {
		return func() query.Batch {
			return &counterBatch{u: u, kind: kind, cut: cut, rng: ctrRange(ctrCounterMetrics[kind])}
		}
	}
}

func (c *counterBatch) Series(l wire.Labels) query.Target {
	if c.u.clock == nil {
		return query.Target{}
	}
	k := ctrKey(l)
	if !c.u.bins(k) { // its samples only checked (the range notes), never binned
		return query.Target{Sink: checkOnly{&c.rng}}
	}
	s := &counterBins{c: c.u.clock, into: &cluster.Bins{}, instant: c.kind == oomEvents, cut: c.cut, rng: &c.rng}
	c.series = append(c.series, ctrCounter{k, s})
	return query.Target{Sink: s}
}

// checkOnly counts a series' samples outside the metric's range, and
// keeps nothing.
type checkOnly struct{ rng *query.Range }

func (c checkOnly) Samples(xs []wire.Sample) { c.rng.Keep(xs) }
func (checkOnly) End()                       {}

func (c *counterBatch) Commit() {
	ks := make([]string, len(c.series))
	for i, cs := range c.series {
		ks[i] = cs.ctr
	}
	c.u.commit(func(m map[string]*ctrSeries) {
		c.u.counterRanges[c.kind].Add(&c.rng)
		for _, cs := range c.series {
			h := &ctrHours{}
			switch c.kind {
			case cfsPeriods:
				h.periods = cs.s.into
			case cfsThrottled:
				h.throttled = cs.s.into
			case oomEvents:
				h.oom = cs.s.into
			}
			m[cs.ctr].hours.merge(h)
		}
	}, ks)
}
