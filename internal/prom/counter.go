package prom

import (
	"github.com/gpuwise/gpuwise/internal/usage"
)

// counterTasks are span tasks that each start one step early: a counter
// needs the point before a span to turn its first point into a rate.
func (b *builder) counterTasks(q string) []Task {
	step := b.opts.Step
	var out []Task
	for _, sp := range Split(b.w.Start, b.w.End, step, b.opts.MaxSteps) {
		from := sp.From
		if from.After(b.w.Start) {
			from = from.Add(-step)
		}
		cut := float64(sp.From.UnixMilli()) / 1000
		out = append(out, Task{Query: q, From: from, To: sp.To, Step: step, Open: func() Batch { return b.newCPUBatch(cut) }})
	}
	return out
}

// cpuBatch turns CPU counter points into rates: each rate stands for the
// time since the previous point; a drop is a counter reset.
type cpuBatch struct {
	b   *builder
	cut float64 // points before cut only seed the previous value
	// series are the request's series in the order they came, each with
	// its container: a container's series (one per restart) merge in that
	// order, so the sums do not depend on map iteration.
	series []ctrState
	states slab[cpuState]
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
}

func (b *builder) newCPUBatch(cut float64) Batch {
	return &cpuBatch{b: b, cut: cut, series: make([]ctrState, 0, b.cpuHint.Load())}
}

func (*cpuBatch) transientLabels() {}

func (*cpuBatch) routedBy(name []byte) bool { return ctrLabel(name) }

func (c *cpuBatch) Series(l map[string]string) PointFunc {
	return c.state(mapLabels(l)).point
}

// sink takes the series' samples a chunk at a time (remote read).
func (c *cpuBatch) sink(l seriesLabels) sampleSink { return c.state(l) }

func (c *cpuBatch) state(l seriesLabels) *cpuState {
	s := c.states.new()
	s.cut = c.cut
	c.series = append(c.series, ctrState{ctrKey(l), s})
	return s
}

// point takes one counter sample: from the second on, the rate since the
// previous one stands for the time between them; a drop is a reset.
func (s *cpuState) point(t, v float64) {
	if s.seeded && t >= s.cut && t > s.prevT {
		inc := v - s.prevV
		if inc < 0 {
			inc, s.resets = v, s.resets+1
		}
		s.g.Add(inc/(t-s.prevT), t-s.prevT)
	}
	s.prevT, s.prevV, s.seeded = t, v, true
}

// samples is point for each of xs (timestamps in ms).
func (s *cpuState) samples(xs []xorSample) {
	prevT, prevV, seeded, resets, cut := s.prevT, s.prevV, s.seeded, s.resets, s.cut
	for _, x := range xs {
		t, v := float64(x.t)/1000, x.v
		if seeded && t >= cut && t > prevT {
			inc := v - prevV
			if inc < 0 {
				inc, resets = v, resets+1
			}
			s.g.Add(inc/(t-prevT), t-prevT)
		}
		prevT, prevV, seeded = t, v, true
	}
	s.prevT, s.prevV, s.seeded, s.resets = prevT, prevV, seeded, resets
}

func (*cpuState) end() {}

func (c *cpuBatch) Commit() {
	c.b.cpuHint.Store(int64(len(c.series)))
	ks := make([]string, len(c.series))
	for i, cs := range c.series {
		ks[i] = cs.ctr
	}
	c.b.ctrs.commit(func(m map[string]*ctrSeries) {
		for _, cs := range c.series {
			into := m[cs.ctr]
			into.cpu = mergeGauge(into.cpu, &cs.s.g)
			into.resets += cs.s.resets
		}
	}, ks)
}
