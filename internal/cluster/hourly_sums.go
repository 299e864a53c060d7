package cluster

import (
	"fmt"
	"math"
	"math/bits"
	"slices"
	"time"
)

// HourSums are a builder's raw per-hour sums, before Build turns them
// into ratios and clamps measured time to held time, placed on the
// absolute hour axis (hour k is [k·1h, (k+1)·1h) since the Unix epoch).
// Sums over adjacent windows merge exactly (Add): sums add, peaks take
// the larger, lives join. Build then gives a window's series by the same
// rules as one builder over the whole window would. The service keeps
// them per interval read so that its rolling window has the series a
// single read of the window has.
//
// They are sparse: a workload keeps the hours of its pods' lives and of
// its nonzero sums only, and only the quantities measured.
type HourSums struct {
	IdleThreshold float64
	loads         map[string]*loadSums
}

// loadSums is one workload's raw sums over the absolute hours [lo, lo+n).
type loadSums struct {
	lo          int64
	n           int
	first, last int64 // hours of the pods' lives; first > last: none
	server      string
	trackOOM    bool
	present     uint32    // bit q: quantity q was measured
	vals        []float64 // present quantities in order, n hours each
	// models are the per-model sums (quantities qRequests and qGen
	// only, no lives), by model name.
	models map[string]*loadSums
	// lat is the latency histogram's sums; nil: none.
	lat *latSums
}

// The quantities of an accumulator, in the order of (*HourlyAcc).arrays.
const (
	qMemPeak  = 9
	qRequests = 15
	qGen      = 16
	nQuant    = 19
)

// arrays are the accumulator's quantity arrays in a fixed order.
func (a *HourlyAcc) arrays() [nQuant]*[]float64 {
	return [nQuant]*[]float64{&a.podSec, &a.heldSec, &a.measuredSec, &a.activeSec, &a.idleSec,
		&a.periods, &a.throttled, &a.cpuUsed, &a.cpuLimit, &a.memPeak, &a.oom,
		&a.pcie, &a.pcieSec, &a.nvlink, &a.nvlinkSec,
		&a.requests, &a.genTokens, &a.promptTok, &a.queue}
}

// unixHour is the absolute hour holding t.
func unixHour(t time.Time) int64 {
	return int64(math.Floor(float64(t.UnixMilli()) / 3.6e6))
}

// Sums returns the builder's raw sums; call it before Build, which
// finalizes the accumulators in place. The window must start on a whole
// hour or lie inside one hour, so that each of its hours is one absolute
// hour.
func (b *HourlyBuilder) Sums() (*HourSums, error) {
	base := unixHour(b.start)
	end := b.start.Add(time.Duration(b.window * float64(time.Second)))
	aligned := b.start.Equal(time.UnixMilli(base * 3.6e6))
	if !aligned && end.After(time.UnixMilli((base+1)*3.6e6)) {
		return nil, fmt.Errorf("cluster: hourly sums of a window starting %s: it starts inside an hour and crosses an hour boundary; read intervals that start on the hour or stay inside one", b.start.UTC().Format(time.RFC3339))
	}
	out := &HourSums{IdleThreshold: b.threshold, loads: make(map[string]*loadSums, len(b.order))}
	for _, k := range b.order {
		if l := b.loads[k].sums(base); l != nil {
			out.loads[k] = l
		}
	}
	return out, nil
}

// sums packs the accumulator's hours with a life or a nonzero sum; nil
// when there are none.
func (a *HourlyAcc) sums(base int64) *loadSums {
	arrs := a.arrays()
	lo, hi := a.first, a.last+1
	var present uint32
	for q, p := range arrs {
		if *p == nil {
			continue
		}
		present |= 1 << q
		for h, v := range *p {
			if v != 0 && v == v || q == qMemPeak && v == v {
				lo, hi = min(lo, h), max(hi, h+1)
			}
		}
	}
	lat := a.lat.sums(base)
	if lo >= hi && present == 0 && lat == nil {
		return nil
	}
	if lo >= hi {
		lo, hi = 0, 0 // no hours, but it says what was measured
	}
	l := &loadSums{lo: base + int64(lo), n: hi - lo, first: math.MaxInt64, last: math.MinInt64,
		server: a.server, trackOOM: a.trackOOM, present: present, lat: lat}
	if a.last >= a.first {
		l.first, l.last = base+int64(a.first), base+int64(a.last)
	}
	l.vals = make([]float64, 0, bits.OnesCount32(present)*l.n)
	for _, p := range arrs {
		if *p != nil {
			l.vals = append(l.vals, (*p)[lo:hi]...)
		}
	}
	for name, m := range a.models {
		ms := &loadSums{lo: l.lo, n: l.n, first: math.MaxInt64, last: math.MinInt64}
		for q, arr := range map[int][]float64{qRequests: m.requests, qGen: m.genTokens} {
			if arr != nil {
				ms.present |= 1 << q
			}
		}
		for _, arr := range [][]float64{m.requests, m.genTokens} { // quantity order
			if arr != nil {
				ms.vals = append(ms.vals, arr[lo:hi]...)
			}
		}
		if l.models == nil {
			l.models = map[string]*loadSums{}
		}
		l.models[name] = ms
	}
	return l
}

// mergeModels returns a's and b's per-model sums merged (neither changed).
func mergeModels(a, b map[string]*loadSums) map[string]*loadSums {
	if a == nil && b == nil {
		return nil
	}
	out := make(map[string]*loadSums, len(a)+len(b))
	for k, m := range a {
		out[k] = merge(nil, m)
	}
	for k, m := range b {
		out[k] = merge(out[k], m)
	}
	return out
}

// quantity is the stored hours of quantity q; nil when not measured.
func (l *loadSums) quantity(q int) []float64 {
	if l.present&(1<<q) == 0 {
		return nil
	}
	i := bits.OnesCount32(l.present & (1<<q - 1))
	return l.vals[i*l.n : (i+1)*l.n]
}

// Add merges o into s; o is not changed and shares nothing with s after.
func (s *HourSums) Add(o *HourSums) {
	if o == nil {
		return
	}
	if s.loads == nil {
		s.loads = make(map[string]*loadSums, len(o.loads))
	}
	if s.IdleThreshold == 0 {
		s.IdleThreshold = o.IdleThreshold
	}
	for k, l := range o.loads {
		if dst := s.loads[k]; dst != nil && dst.holds(l) {
			dst.addIn(l)
		} else {
			s.loads[k] = merge(dst, l)
		}
	}
}

// Workloads is the number of workloads with sums.
func (s *HourSums) Workloads() int {
	if s == nil {
		return 0
	}
	return len(s.loads)
}

// Floats is the number of sums stored, for sizing: each is 8 bytes.
func (s *HourSums) Floats() int {
	if s == nil {
		return 0
	}
	n := 0
	for _, l := range s.loads {
		n += len(l.vals)
		if l.lat != nil {
			n += len(l.lat.rows)
		}
		for _, m := range l.models {
			n += len(m.vals)
		}
	}
	return n
}

// holds reports whether b's hours and quantities are all within l's, so
// that b adds in place (the common case: an interval added to its
// segment).
func (l *loadSums) holds(b *loadSums) bool {
	return b.lat == nil && b.present&^l.present == 0 && (b.n == 0 || b.lo >= l.lo && b.lo+int64(b.n) <= l.lo+int64(l.n))
}

// addIn adds b into l, which holds it.
func (l *loadSums) addIn(b *loadSums) {
	l.first, l.last = min(l.first, b.first), max(l.last, b.last)
	l.trackOOM = l.trackOOM || b.trackOOM
	if b.server != "" {
		l.server = b.server
	}
	for q := range nQuant {
		if src := b.quantity(q); src != nil {
			into(l.quantity(q), l.lo, b.lo, src, q == qMemPeak)
		}
	}
	for k, m := range b.models {
		if l.models == nil {
			l.models = map[string]*loadSums{}
		}
		if dst := l.models[k]; dst != nil && dst.holds(m) {
			dst.addIn(m)
		} else {
			l.models[k] = merge(dst, m)
		}
	}
}

// merge returns a new loadSums holding a and b (a may be nil).
func merge(a, b *loadSums) *loadSums {
	if a == nil {
		c := *b
		c.vals = slices.Clone(b.vals)
		c.models = mergeModels(nil, b.models)
		c.lat = mergeLat(nil, b.lat)
		return &c
	}
	lo, hi := span(a, b)
	out := &loadSums{lo: lo, n: int(hi - lo), first: min(a.first, b.first), last: max(a.last, b.last),
		server: a.server, trackOOM: a.trackOOM || b.trackOOM, present: a.present | b.present}
	if b.server != "" {
		out.server = b.server
	}
	out.vals = make([]float64, bits.OnesCount32(out.present)*out.n)
	for q := range nQuant {
		dst := out.quantity(q)
		if dst == nil {
			continue
		}
		if q == qMemPeak {
			fill(dst, math.NaN())
		}
		into(dst, lo, a.lo, a.quantity(q), q == qMemPeak)
		into(dst, lo, b.lo, b.quantity(q), q == qMemPeak)
	}
	out.models = mergeModels(a.models, b.models)
	out.lat = mergeLat(a.lat, b.lat)
	return out
}

// span is the union of a's and b's hours, an empty range taking none.
func span(a, b *loadSums) (lo, hi int64) {
	switch {
	case a.n == 0:
		return b.lo, b.lo + int64(b.n)
	case b.n == 0:
		return a.lo, a.lo + int64(a.n)
	}
	return min(a.lo, b.lo), max(a.lo+int64(a.n), b.lo+int64(b.n))
}

func fill(arr []float64, v float64) {
	for i := range arr {
		arr[i] = v
	}
}

// into adds src (hours from srcLo) into dst (hours from dstLo), or keeps
// the larger value for a peak.
func into(dst []float64, dstLo, srcLo int64, src []float64, isPeak bool) {
	off := int(srcLo - dstLo)
	for i, v := range src {
		if isPeak {
			if v == v {
				peak(dst, off+i, v)
			}
		} else {
			dst[off+i] += v
		}
	}
}

// Build returns the series of w from the sums of w's intervals, by the
// rules of HourlyBuilder.Build: one builder over w would give the same
// series, to float32 rounding. w must start on a whole hour. Sums that
// reach outside w are clipped to it, but a series measured only outside
// w is still present (zeros) and a workload's hours span its lives'
// hull, as they would in a builder over the sums' whole time.
func (s *HourSums) Build(w Window) (*Hourly, error) {
	base := unixHour(w.Start)
	if !w.Start.Equal(time.UnixMilli(base * 3.6e6)) {
		return nil, fmt.Errorf("cluster: hourly series of window %s: it does not start on a whole hour", w)
	}
	b := NewHourlyBuilder(w, s.IdleThreshold)
	defer b.Release()
	keys := make([]string, 0, len(s.loads))
	for k := range s.loads {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		s.loads[k].place(b, k, base)
	}
	return &Hourly{IdleThreshold: s.IdleThreshold, Workloads: b.Build()}, nil
}

// place puts the sums of the hours of b's window into a new accumulator;
// nothing when the workload had no pod in the window.
func (l *loadSums) place(b *HourlyBuilder, key string, base int64) {
	first, last := max(l.first-base, 0), min(l.last-base, int64(b.hours-1))
	if first > last {
		return
	}
	a := b.Workload(key)
	a.first, a.last = int(first), int(last)
	a.server, a.trackOOM = l.server, l.trackOOM
	for q, p := range a.arrays() {
		src := l.quantity(q)
		if src == nil {
			continue
		}
		arr := a.alloc(p)
		if q == qMemPeak {
			fill(arr, math.NaN())
		}
		for i, v := range src {
			if h := l.lo + int64(i) - base; h >= 0 && h < int64(b.hours) {
				arr[h] = v
			}
		}
	}
	l.lat.place(a, base)
	for name, ms := range l.models {
		m := a.model(name)
		for q, p := range map[int]*[]float64{qRequests: &m.requests, qGen: &m.genTokens} {
			src := ms.quantity(q)
			if src == nil {
				continue
			}
			arr := a.alloc(p)
			for i, v := range src {
				if h := ms.lo + int64(i) - base; h >= 0 && h < int64(b.hours) {
					arr[h] = v
				}
			}
		}
	}
}

// lifeQuantities are the sums a pod's life makes (pod and held seconds).
const lifeQuantities = 1<<0 | 1<<1

// WithLives returns the sums with the pods' lives of lives: pod-hours,
// held GPU-hours and the hours each workload had pods come from lives,
// every measured quantity from s. The service takes the lives from its
// inventory, the pods the cost engine allocates, so that Σ hourly held
// GPU-hours stays the cost engine's allocated GPU-hours; an interval read
// only bounds a pod by what it saw of it. A workload lives has no life
// for keeps its measured sums but builds no series.
func (s *HourSums) WithLives(lives *HourSums) *HourSums {
	out := &HourSums{IdleThreshold: s.IdleThreshold, loads: make(map[string]*loadSums, len(s.loads))}
	for k, l := range s.loads {
		out.loads[k] = l.only(^uint32(lifeQuantities), false)
	}
	if lives == nil {
		return out
	}
	for k, l := range lives.loads {
		lv := l.only(lifeQuantities, true)
		if dst := out.loads[k]; dst != nil {
			out.loads[k] = merge(dst, lv)
		} else {
			out.loads[k] = lv
		}
	}
	return out
}

// only is a copy of l with the quantities of mask, and its lives when
// lives is set (else none).
func (l *loadSums) only(mask uint32, lives bool) *loadSums {
	c := &loadSums{lo: l.lo, n: l.n, first: math.MaxInt64, last: math.MinInt64, server: l.server,
		trackOOM: l.trackOOM, present: l.present & mask}
	if lives {
		c.first, c.last = l.first, l.last
	}
	c.vals = make([]float64, 0, bits.OnesCount32(c.present)*c.n)
	for q := range nQuant {
		if c.present&(1<<q) != 0 {
			c.vals = append(c.vals, l.quantity(q)...)
		}
	}
	if mask&(1<<qRequests) != 0 {
		c.models = mergeModels(nil, l.models)
		c.lat = mergeLat(nil, l.lat)
	}
	return c
}
