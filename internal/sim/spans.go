package sim

import (
	"fmt"
	"math"
	"time"

	"github.com/gpuwise/gpuwise/internal/cluster"
	"github.com/gpuwise/gpuwise/internal/rolling"
	"github.com/gpuwise/gpuwise/internal/usage"
)

// Spans generates the cluster like Generate and also returns its usage cut
// into consecutive spans of the given length from the window start (the
// last one shorter when the window is not a whole number of them): what a
// service reading the simulated cluster every `every` would have measured.
// A sample that crosses a span boundary is split by time, so the spans'
// usage merged is the snapshot's (OOM kills, which the simulator does not
// time, go to the span in which the pod's life inside the window ends).
func Spans(cfg Config, every time.Duration) (*cluster.Snapshot, []*rolling.Span, error) {
	return SpansIn(cfg, every, 0, math.MaxInt)
}

// SpansIn is Spans keeping only the spans numbered from first up to (not
// including) last, counted from 0 at the window start: the same cluster
// and the same spans, holding the usage of those spans only, so that a
// caller can take the window in a few passes at a fraction of the memory
// (each pass simulates the whole window again).
func SpansIn(cfg Config, every time.Duration, first, last int) (*cluster.Snapshot, []*rolling.Span, error) {
	cfg = cfg.withDefaults()
	if err := cfg.Validate(); err != nil {
		return nil, nil, fmt.Errorf("simulation config: %w", err)
	}
	if every < time.Minute {
		return nil, nil, fmt.Errorf("simulation spans: %s is shorter than 1m", every)
	}
	n := int((cfg.Window + every - 1) / every)
	first, last = max(first, 0), min(last, n)
	if first >= last {
		return nil, nil, fmt.Errorf("simulation spans: %d..%d is outside the window's %d spans", first, last, n)
	}
	cells := make([]built, cfg.Scale)
	splits := make([]*splitter, cfg.Scale)
	for k := range cells {
		c := newCell(cfg, k)
		splits[k] = newSplitter(c, every, n, first, last)
		c.sink = splits[k]
		cells[k] = c.build()
	}
	snap, err := assemble(cfg, cells)
	if err != nil {
		return nil, nil, err
	}
	return snap, joinSpans(cfg, every, splits, snap, first, last), nil
}

// splitter is a sample sink that adds each sample to the span it falls
// in; spans[k] is nil for a span not kept.
type splitter struct {
	unix0, every float64
	spans        []map[*cluster.Pod]*rolling.PodUsage
}

func newSplitter(c *cell, every time.Duration, n, first, last int) *splitter {
	s := &splitter{unix0: c.unix0, every: every.Seconds(), spans: make([]map[*cluster.Pod]*rolling.PodUsage, n)}
	for i := first; i < last; i++ {
		s.spans[i] = map[*cluster.Pod]*rolling.PodUsage{}
	}
	return s
}

// pieces calls fn for each part of [t, t+dt) inside one kept span.
func (s *splitter) pieces(t, dt float64, fn func(k int, seconds float64)) {
	for dt > 0 {
		rel := t - s.unix0
		k := int(math.Floor(rel / s.every))
		if k < 0 || k >= len(s.spans) {
			return
		}
		piece := min(dt, float64(k+1)*s.every-rel)
		if s.spans[k] != nil {
			fn(k, piece)
		}
		t, dt = t+piece, dt-piece
	}
}

func (s *splitter) pod(k int, p *cluster.Pod) *rolling.PodUsage {
	pu := s.spans[k][p]
	if pu == nil {
		pu = &rolling.PodUsage{}
		s.spans[k][p] = pu
	}
	return pu
}

func (s *splitter) gpu(p *cluster.Pod, i int, t, dt float64, x gpuSample) {
	s.pieces(t, dt, func(k int, sec float64) {
		pu := s.pod(k, p)
		if pu.GPUs == nil {
			pu.GPUs = map[string]*rolling.GPUUsage{}
		}
		id := p.GPUs[i].UnitID
		g := pu.GPUs[id]
		if g == nil {
			g = &rolling.GPUUsage{Activity: &usage.Activity{}, FramebufferMiB: &usage.Gauge{}}
			if !math.IsNaN(x.sm) { // accelerators' exporters have none
				g.SMActive = &usage.Activity{}
			}
			pu.GPUs[id] = g
		}
		g.Activity.Add(x.v, sec)
		if g.SMActive != nil {
			g.SMActive.Add(x.sm, sec)
		}
		g.FramebufferMiB.Add(x.fb, sec)
	})
}

func (s *splitter) container(p *cluster.Pod, j int, t, dt float64, x ctrSample) {
	s.pieces(t, dt, func(k int, sec float64) {
		pu := s.pod(k, p)
		if pu.Containers == nil {
			pu.Containers = map[string]*rolling.ContainerUsage{}
		}
		name := p.Containers[j].Name
		c := pu.Containers[name]
		if c == nil {
			c = &rolling.ContainerUsage{CPU: &usage.Gauge{}, Memory: &usage.Gauge{}}
			pu.Containers[name] = c
		}
		c.CPU.Add(x.cpu, sec)
		c.Memory.Add(x.mem, sec)
	})
}

// joinSpans keys each cell's pod usage by PodKey. Pods are matched by
// position: a cell's pods are assembled into the snapshot in order, so
// the i-th pod pointer of a cell is the snapshot's pod at the cell's
// offset + i. OOM kills go to the span of the pod's last moment.
func joinSpans(cfg Config, every time.Duration, splits []*splitter, snap *cluster.Snapshot, first, last int) []*rolling.Span {
	out := make([]*rolling.Span, last-first)
	for i := range out {
		start := cfg.Start.Add(time.Duration(first+i) * every)
		end := start.Add(every)
		if w := cfg.Start.Add(cfg.Window); end.After(w) {
			end = w
		}
		out[i] = &rolling.Span{Window: cluster.Window{Start: start, End: end}, Pods: map[string]*rolling.PodUsage{}, ActivityMetric: ActivityMetric}
	}
	for _, s := range splits {
		for k := first; k < last; k++ {
			for p, pu := range s.spans[k] {
				out[k-first].Pods[rolling.PodKey(p)] = pu
			}
		}
	}
	end := cfg.Start.Add(cfg.Window)
	for i := range snap.Pods {
		p := &snap.Pods[i]
		if p.OOMKills == 0 {
			continue
		}
		ended := end
		if !p.End.IsZero() && p.End.Before(end) {
			ended = p.End
		}
		// The span holding the instant just before ended: a life ending
		// on a boundary ended in the span before it.
		k := min(max(int((ended.Sub(cfg.Start)-1)/every), 0), len(splits[0].spans)-1)
		if k < first || k >= last {
			continue
		}
		pu := out[k-first].Pods[rolling.PodKey(p)]
		if pu == nil {
			pu = &rolling.PodUsage{}
			out[k-first].Pods[rolling.PodKey(p)] = pu
		}
		pu.OOMKills = p.OOMKills
	}
	return out
}

// serve: rolling.PodUsage has no place for inference-server counters,
// so the spans leave them out.
func (s *splitter) serve(*cluster.Pod, *serveLoad, float64, float64, serveSample) {}
