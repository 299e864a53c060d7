package prom

import (
	"sync"
	"sync/atomic"

	"github.com/gpuwise/gpuwise/internal/prom/query"
	"github.com/gpuwise/gpuwise/internal/prom/wire"
	"github.com/gpuwise/gpuwise/internal/usage"
)

// ctrSeries is the accumulated usage of one container.
type ctrSeries struct {
	cpu, mem *usage.Gauge
	resets   int
}

// ctrUsage is every container's usage, committed by the cAdvisor batches
// of a build under its lock.
type ctrUsage struct {
	memHint, cpuHint atomic.Int64 // series of the last batches, to size the next

	mu   sync.Mutex
	ctrs map[string]*ctrSeries // namespace/pod/container
}

func newCtrUsage() *ctrUsage { return &ctrUsage{ctrs: map[string]*ctrSeries{}} }

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

// memBatch collects working-set series per container.
type memBatch struct {
	u      *ctrUsage
	series map[string]*usage.Gauge
	gauges slab[usage.Gauge]
}

func (u *ctrUsage) memBatch() query.Batch {
	return &memBatch{u: u, series: make(map[string]*usage.Gauge, u.memHint.Load())}
}

// Series is the container's gauge in the batch, created on first use.
func (m *memBatch) Series(l wire.Labels) query.Target {
	k := ctrKey(l)
	g := m.series[k]
	if g == nil { // a restarted container is a new series of the same container
		g = m.gauges.new()
		m.series[k] = g
	}
	return query.Target{Acc: query.Acc{Gauge: g}}
}

func (m *memBatch) Commit() {
	m.u.memHint.Store(int64(len(m.series)))
	ks := make([]string, 0, len(m.series))
	for k := range m.series {
		ks = append(ks, k)
	}
	m.u.commit(func(c map[string]*ctrSeries) {
		for k, g := range m.series {
			s := c[k]
			s.mem = mergeGauge(s.mem, g)
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

func (u *ctrUsage) cpuBatch(cut float64) func() query.Batch {
	return func() query.Batch {
		return &cpuBatch{u: u, cut: cut, series: make([]ctrState, 0, u.cpuHint.Load())}
	}
}

func (c *cpuBatch) Series(l wire.Labels) query.Target {
	s := c.states.new()
	s.cut = c.cut
	c.series = append(c.series, ctrState{ctrKey(l), s})
	return query.Target{Sink: s}
}

// Samples takes counter samples: from the second on, the rate since the
// previous one stands for the time between them; a drop is a reset.
func (s *cpuState) Samples(xs []wire.Sample) {
	prevT, prevV, seeded, resets, cut := s.prevT, s.prevV, s.seeded, s.resets, s.cut
	for _, x := range xs {
		t, v := float64(x.T)/1000, x.V
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

func (*cpuState) End() {}

func (c *cpuBatch) Commit() {
	c.u.cpuHint.Store(int64(len(c.series)))
	ks := make([]string, len(c.series))
	for i, cs := range c.series {
		ks[i] = cs.ctr
	}
	c.u.commit(func(m map[string]*ctrSeries) {
		for _, cs := range c.series {
			into := m[cs.ctr]
			into.cpu = mergeGauge(into.cpu, &cs.s.g)
			into.resets += cs.s.resets
		}
	}, ks)
}
