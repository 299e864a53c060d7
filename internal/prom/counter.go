package prom

import (
	"strings"

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
	b      *builder
	cut    float64 // points before cut only seed the previous value
	series map[string]*cpuState
}

type cpuState struct {
	g      usage.Gauge
	prevT  float64
	prevV  float64
	seeded bool
	resets int
}

func (b *builder) newCPUBatch(cut float64) Batch {
	return &cpuBatch{b: b, cut: cut, series: map[string]*cpuState{}}
}

func (c *cpuBatch) Series(l map[string]string) PointFunc {
	s := &cpuState{}
	c.series[ctrKey(l)+"\x00"+seriesKey(l)] = s
	return func(t, v float64) {
		if s.seeded && t >= c.cut && t > s.prevT {
			inc := v - s.prevV
			if inc < 0 {
				inc, s.resets = v, s.resets+1
			}
			s.g.Add(inc/(t-s.prevT), t-s.prevT)
		}
		s.prevT, s.prevV, s.seeded = t, v, true
	}
}

func (c *cpuBatch) Commit() {
	c.b.ctrs.commit(func(m map[string]*ctrSeries) {
		for k, s := range c.series {
			cs := m[ctrOf(k)]
			g := s.g
			cs.cpu = mergeGauge(cs.cpu, &g)
			cs.resets += s.resets
		}
	}, ctrKeys(c.series))
}

// ctrOf is the container part of a cpuBatch key.
func ctrOf(k string) string {
	c, _, _ := strings.Cut(k, "\x00")
	return c
}

func ctrKeys(m map[string]*cpuState) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, ctrOf(k))
	}
	return out
}
