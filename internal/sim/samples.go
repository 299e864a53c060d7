package sim

import (
	"math"

	"github.com/gpuwise/gpuwise/internal/cluster"
)

// noise is a splitmix64 stream of uniform numbers: as deterministic as the
// cell's PCG and much cheaper per sample, which matters at 10k GPUs × 2016
// samples. Every series gets its own, seeded from the cell's PCG.
type noise struct{ s uint64 }

// next returns a uniform number in [0, 1).
func (n *noise) next() float64 {
	n.s += 0x9e3779b97f4a7c15
	z := n.s
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
	z = (z ^ (z >> 27)) * 0x94d049bb133111eb
	z ^= z >> 31
	return float64(z>>11) * 0x1p-53
}

// between returns a uniform number in [lo, hi).
func (n *noise) between(lo, hi float64) float64 { return lo + (hi-lo)*n.next() }

// shape names the activity patterns the archetypes follow.
type shape uint8

const (
	// steady is a level drawn in [lo, hi] every sample: batch, small
	// inference, agents.
	steady shape = iota
	// bursty is training: compute bursts in [lo, hi] separated by short
	// gaps for data loading and checkpoints, and now and then a stall of
	// hours (a hung data loader, an evaluation, someone debugging).
	bursty
	// diurnal is serving traffic: lo at 03:00 UTC rising to hi at 15:00,
	// half the swing at weekends.
	diurnal
	// sessions is a notebook or dev box: near zero, with working-hour
	// sessions whose samples burst up to hi a third of the time.
	sessions
)

// Phase lengths in seconds, and how often the rare events happen.
const (
	burstMin, burstMax     = 15 * 60, 45 * 60
	gapMin, gapMax         = 3 * 60, 12 * 60
	stallMin, stallMax     = 3600, 8 * 3600
	stallChance            = 0.12
	sessionMin, sessionMax = 20 * 60, 120 * 60
	sessionsPerHour        = 0.15 // chance per working hour that a session starts
)

// curve produces one activity value per sample for a pod. All of a pod's
// GPUs follow its curve (data-parallel training moves in lockstep).
type curve struct {
	shape  shape
	lo, hi float64
	rnd    noise
	busy   bool
	left   float64 // seconds left in the current phase
}

// next returns the activity in [0, 1] of the sample at unix seconds that
// covers dt seconds.
func (c *curve) next(unix, dt float64) float64 {
	switch c.shape {
	case bursty:
		return c.burst(dt)
	case diurnal:
		return c.daily(unix)
	case sessions:
		return c.session(unix, dt)
	}
	return c.rnd.between(c.lo, c.hi)
}

func (c *curve) burst(dt float64) float64 {
	c.left -= dt
	if c.left <= 0 {
		c.busy = !c.busy
		switch {
		case c.busy:
			c.left = c.rnd.between(burstMin, burstMax)
		case c.rnd.next() < stallChance:
			c.left = c.rnd.between(stallMin, stallMax)
		default:
			c.left = c.rnd.between(gapMin, gapMax)
		}
	}
	if c.busy {
		return c.rnd.between(c.lo, c.hi)
	}
	return c.rnd.between(0, 0.04)
}

func (c *curve) daily(unix float64) float64 {
	day := math.Floor(unix / 86400)
	hour := (unix - day*86400) / 3600
	level := 0.5 - 0.5*math.Cos(2*math.Pi*(hour-3)/24)
	if weekend(day) {
		level *= 0.5
	}
	v := (c.lo + (c.hi-c.lo)*level) * c.rnd.between(0.85, 1.15)
	return min(v, 1)
}

func (c *curve) session(unix, dt float64) float64 {
	if c.busy {
		c.left -= dt
		if c.left <= 0 {
			c.busy = false
		}
		if c.rnd.next() < 1.0/3 {
			return c.rnd.between(0.2, c.hi)
		}
		return c.rnd.between(0.005, 0.05)
	}
	if workingHour(unix) && c.rnd.next() < sessionsPerHour*dt/3600 {
		c.busy, c.left = true, c.rnd.between(sessionMin, sessionMax)
	}
	return c.rnd.between(0, 0.01)
}

// weekend reports whether a day counted from the Unix epoch (a Thursday) is
// a Saturday or Sunday.
func weekend(day float64) bool {
	wd := (int64(day) + 4) % 7
	return wd == 0 || wd == 6
}

// workingHour reports whether unix seconds fall in 08:00–18:00 UTC on a
// weekday.
func workingHour(unix float64) bool {
	day := math.Floor(unix / 86400)
	hour := (unix - day*86400) / 3600
	return hour >= 8 && hour < 18 && !weekend(day)
}

// load says how a pod uses what it holds, sample by sample: its activity
// curve drives the GPUs, the framebuffer and the containers' CPU and memory.
type load struct {
	curve curve
	// share scales the curve per holding; nil means 1 for all. A job that
	// holds 8 GPUs but computes on one has share [1, 0.01, ...].
	share []float64
	// sm is SM_ACTIVE as a share of activity (0.5–0.8).
	sm float64
	// Framebuffer MiB: fbBase + fbSwing × activity, capped at fbCap.
	fbBase, fbSwing, fbCap float64
	// ctrs are the pod's containers, whose usage follows the curve too.
	ctrs []ctr
	// link is the PCIe/NVLink traffic of each held whole GPU.
	link linkLoad
	// noLinks: the device has no PCIe/NVLink metric (AMD, Neuron: only
	// DCGM reports them), so the hourly series carry none.
	noLinks bool
	// serve is the pod's inference server; nil for none.
	serve *serveLoad
	// oom says when the pod's containers are OOM-killed.
	oom oomPlan
}

// use is a container resource as a function of the pod's activity a:
// base + perActivity × a, with ±jitter relative noise.
type use struct{ base, perActivity, jitter float64 }

func (u use) at(a float64, n *noise) float64 {
	v := u.base + u.perActivity*a
	if u.jitter > 0 {
		v *= 1 + u.jitter*(2*n.next()-1)
	}
	return v
}

// slab hands out pointers into chunks of T, so that the ~10 accumulators
// of a pod cost no allocation of their own.
type slab[T any] struct{ free []T }

func (s *slab[T]) get() *T {
	if len(s.free) == 0 {
		s.free = make([]T, 256)
	}
	p := &s.free[0]
	s.free = s.free[1:]
	return p
}

// stream adds the samples of p's life inside the window, [from, to) in
// seconds from the window start, to p's accumulators and its workload's
// hourly series.
func (c *cell) stream(p *cluster.Pod, l *load, from, to int64) {
	from, to = max(from, 0), min(to, c.window)
	if to <= from {
		return
	}
	life := float64(to - from)
	unix0 := c.unix0 + float64(from)
	st := c.newSignals(p, float64(from), float64(to))
	for k := 0; ; k++ {
		t := float64(k) * c.step
		if t >= life {
			break
		}
		dt := min(c.step, life-t)
		a := l.curve.next(unix0+t, dt)
		rel := float64(from) + t
		if st.acc != nil {
			// A sample is one step, at most an hour (Validate): one span.
			st.spans = c.hourly.Spans(rel, dt, st.spans[:0])
			st.sp = st.spans[0]
		}
		c.gpuSamples(p, l, st, a, rel, dt)
		c.ctrSamples(p, l, st, a, rel, dt)
		if l.serve != nil {
			c.serveSamples(p, l, st, a, rel, dt)
		}
	}
	st.finish(p)
}

// gpuSamples adds one sample to every measured holding of p, and their
// sum to the workload's hourly series.
func (c *cell) gpuSamples(p *cluster.Pod, l *load, st *signals, a, rel, dt float64) {
	rnd := &l.curve.rnd
	var sum gpuSum
	jitter := math.NaN() // the sample's link noise, drawn once for its GPUs
	for i := range p.GPUs {
		h := &p.GPUs[i]
		if h.Activity == nil {
			continue
		}
		v, fb := l.addGPU(h, i, a, dt, rnd)
		g := gpuSample{v: v, sm: v * l.sm, fb: fb, pcie: math.NaN(), nvlink: math.NaN()}
		if l.noLinks { // an accelerator: its exporter has no SM-activity metric
			g.sm = math.NaN()
		}
		sum.add(st.fraction[i], v, c.hourly.IsIdle(v))
		if st.whole[i] && !l.noLinks {
			if jitter != jitter {
				jitter = st.sig.between(0.9, 1.1)
			}
			g.pcie, g.nvlink = l.linkSample(v, jitter)
			sum.link(g.pcie, g.nvlink)
		}
		if c.sink != nil {
			c.sink.gpu(p, i, c.unix0+rel, dt, g)
		}
	}
	if sum.measured > 0 {
		st.acc.GPUs(st.sp, sum.measured, sum.active, sum.idle)
		st.acc.Links(st.sp, sum.pcie, sum.pcieGPUs, sum.nvlink, sum.nvGPUs)
	}
}

// gpuSum is one sample of a pod's measured units, summed for the hourly
// series.
type gpuSum struct {
	measured, active, idle float64
	pcie, nvlink           float64
	pcieGPUs, nvGPUs       int
}

func (s *gpuSum) add(fraction, v float64, idle bool) {
	s.measured += fraction
	s.active += fraction * v
	if idle {
		s.idle += fraction
	}
}

func (s *gpuSum) link(pcie, nvlink float64) {
	s.pcie += pcie
	s.pcieGPUs++
	if nvlink == nvlink {
		s.nvlink += nvlink
		s.nvGPUs++
	}
}

// ctrSamples adds one sample to every container of p.
func (c *cell) ctrSamples(p *cluster.Pod, l *load, st *signals, a, rel, dt float64) {
	rnd := &l.curve.rnd
	kills, at := 0, 0.0
	if l.oom != (oomPlan{}) {
		kills, at = l.oom.kills(st.from, st.to, rel, dt)
	}
	for j := range p.Containers {
		ct, k := &p.Containers[j], &l.ctrs[j]
		x := ctrSample{cpu: k.cpu.at(a, rnd), mem: k.mem.at(a, rnd)}
		if k.cpuLim > 0 {
			lim := float64(k.cpuLim) / 1000
			x.cpu = min(x.cpu, lim)
			x.periods = dt * cfsPeriodsPerSecond
			x.throttled = x.periods * throttledShare(x.cpu, lim, &st.sig)
		}
		if j == 0 {
			if l.oom.every > 0 {
				x.mem = l.oom.sawtooth(rel-st.from, float64(k.memLim))
			}
			x.kills, x.killAt = kills, c.unix0+at
		}
		ct.CPU.Add(x.cpu, dt)
		ct.Memory.Add(x.mem, dt)
		if j == st.gpuCtr {
			st.gpuContainer(k, x, dt, kills, at)
		}
		if c.sink != nil {
			c.sink.container(p, j, c.unix0+rel, dt, x)
		}
	}
	st.kills += kills
}

// serveSamples adds one sample of p's inference server.
func (c *cell) serveSamples(p *cluster.Pod, l *load, st *signals, a, rel, dt float64) {
	x := l.serve.sample(a, dt, &st.sig)
	if st.acc != nil {
		st.acc.Serve(st.sp, l.serve.server, x.requests/dt, x.genTokens/dt, x.promptTokens/dt, x.waiting)
		st.acc.ServeModel(st.sp, l.serve.model, x.requests/dt, x.genTokens/dt)
		if sh := l.serve.latShares; sh != nil {
			st.lat = st.lat[:0]
			for _, f := range sh {
				st.lat = append(st.lat, x.requests/dt*f)
			}
			st.acc.Latency(st.sp, VLLMLatencyMetric, VLLMLatencyBounds, st.lat)
		}
	}
	if c.sink != nil {
		c.sink.serve(p, l.serve, c.unix0+rel, dt, x)
	}
}

// addGPU adds one sample to a holding: the pod's activity with a little
// per-GPU jitter, SM_ACTIVE and framebuffer. It returns the activity and
// framebuffer it added, for the metrics exporter.
func (l *load) addGPU(h *cluster.Holding, i int, a, dt float64, rnd *noise) (v, fb float64) {
	v = a
	if l.share != nil {
		v *= l.share[i]
	}
	v = min(max(v+0.02*(rnd.next()-0.5), 0), 1)
	fb = min(l.fbBase+l.fbSwing*v, l.fbCap)
	h.Activity.Add(v, dt)
	h.SMActive.Add(v*l.sm, dt)
	h.FramebufferMiB.Add(fb, dt)
	return v, fb
}

// measure gives a holding its series, from the cell's slabs.
func (c *cell) measure(h *cluster.Holding) {
	h.Activity, h.SMActive = c.acts.get(), c.acts.get()
	h.FramebufferMiB = c.gauges.get()
}
