package prom

import (
	"math"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"
)

// fact is the last value of one series over the window and when it was
// first and last seen: what kube-state-metrics' info-style series need.
type fact struct {
	labels      labelSet
	value       float64
	first, last float64 // Unix seconds of the first and last point
}

// facts collects the last value of every series of one metric. Its state
// is one fact per series.
type facts struct {
	mu     sync.Mutex
	series map[string]*fact
	// list holds the series instead of series when one remote-read batch
	// was all (see factBatch.list).
	list []keyedFact
}

// keyedFact is a fact with its seriesKey.
type keyedFact struct {
	key string
	f   *fact
}

func newFacts() *facts { return &facts{series: map[string]*fact{}} }

func (f *facts) open() Batch { return &factBatch{into: f, series: map[string]*fact{}} }

// openRaw returns batches for the series' raw samples (remote read). A
// sample counts as seen at the first point of the grid anchor + k·step at
// or after it, where last_over_time(…[step−1ms]) evaluated on that grid
// (what open's query_range answers hold) first sees it, so first, last
// and value are those of the query_range read.
func (f *facts) openRaw(anchor time.Time, step time.Duration) func() Batch {
	g := grid{anchorMs: anchor.UnixMilli(), stepMs: step.Milliseconds()}
	return func() Batch { return &factBatch{into: f, series: map[string]*fact{}, grid: g} }
}

// grid maps a raw sample's time to the evaluation point that sees it; a
// zero grid leaves times as they are.
type grid struct{ anchorMs, stepMs int64 }

func (g grid) point(t float64) float64 {
	if g.stepMs <= 0 {
		return t
	}
	ms := int64(math.Round(t*1000)) - g.anchorMs
	// Samples reach back less than a step before the anchor, so the
	// dividend is never negative.
	k := (ms + g.stepMs - 1) / g.stepMs
	return float64(g.anchorMs+k*g.stepMs) / 1000
}

// each calls fn for every series, in key order.
func (f *facts) each(fn func(*fact)) {
	if f.list != nil {
		for _, kf := range f.list {
			fn(kf.f)
		}
		return
	}
	keys := make([]string, 0, len(f.series))
	for k := range f.series {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		fn(f.series[k])
	}
}

type factBatch struct {
	into   *facts
	series map[string]*fact
	grid   grid
	// For seriesPairs: the series whose points point takes, its bound
	// method value (one allocation a batch, not one a series) and a
	// buffer for keys.
	cur    *fact
	pointF PointFunc
	key    []byte
	// list holds seriesPairs' series, in the order they came: a remote
	// read sends each series once (the decoder joins one split over
	// frames), so no map is needed to find one again.
	list []keyedFact
}

func (b *factBatch) Series(l map[string]string) PointFunc {
	// Raw series carry their metric name; last_over_time drops it.
	delete(l, "__name__")
	ls := make(labelSet, 0, len(l))
	for k, v := range l {
		ls = append(ls, labelPair{k, v})
	}
	ls.sort()
	k := seriesKey(l)
	s := b.series[k]
	if s == nil {
		s = &fact{labels: ls, first: -1}
		b.series[k] = s
	}
	g := b.grid
	return func(t, v float64) {
		t = g.point(t)
		if s.first < 0 {
			s.first = t
		}
		s.last, s.value = t, v
	}
}

// seriesPairs is Series for remote read: ls is the decoder's, reused for
// the next series, and the PointFunc it returns is used only until the
// next call (remote read hands on one series at a time).
func (b *factBatch) seriesPairs(ls labelSet) PointFunc {
	n := 0
	for _, p := range ls {
		if p.name != "__name__" {
			ls[n] = p
			n++
		}
	}
	ls = ls[:n]
	ls.sort() // Prometheus sends them sorted: a check
	b.key = ls.appendKey(b.key[:0])
	s := &fact{labels: slices.Clone(ls), first: -1}
	b.list = append(b.list, keyedFact{string(b.key), s})
	b.cur = s
	if b.pointF == nil {
		b.pointF = b.point
	}
	return b.pointF
}

func (b *factBatch) point(t, v float64) {
	s := b.cur
	t = b.grid.point(t)
	if s.first < 0 {
		s.first = t
	}
	s.last, s.value = t, v
}

func (b *factBatch) Commit() {
	b.into.mu.Lock()
	defer b.into.mu.Unlock()
	if len(b.list) > 0 {
		// Sorted by key, as each hands them on; equal keys (none from
		// Prometheus) are merged as Commit merges batches.
		slices.SortFunc(b.list, func(x, y keyedFact) int { return strings.Compare(x.key, y.key) })
		if len(b.series) == 0 && len(b.into.series) == 0 && b.into.list == nil {
			kept := b.list[:0]
			for _, kf := range b.list {
				switch {
				case kf.f.first < 0:
				case len(kept) > 0 && kept[len(kept)-1].key == kf.key:
					mergeFact(kept[len(kept)-1].f, kf.f)
				default:
					kept = append(kept, kf)
				}
			}
			b.into.list, b.list = kept, nil
			return
		}
		// Else (not so with remote read) as if they came as maps.
		if b.into.list != nil {
			b.into.series = make(map[string]*fact, len(b.into.list))
			for _, kf := range b.into.list {
				b.into.series[kf.key] = kf.f
			}
			b.into.list = nil
		}
		for _, kf := range b.list {
			if have := b.series[kf.key]; have != nil && kf.f.first >= 0 {
				if have.first >= 0 {
					mergeFact(have, kf.f)
				} else {
					b.series[kf.key] = kf.f
				}
			} else if have == nil {
				b.series[kf.key] = kf.f
			}
		}
		b.list = nil
	}
	if b.into.list != nil {
		b.into.series = make(map[string]*fact, len(b.into.list))
		for _, kf := range b.into.list {
			b.into.series[kf.key] = kf.f
		}
		b.into.list = nil
	}
	if len(b.into.series) == 0 { // the first batch (remote read: the only one)
		for k, s := range b.series {
			if s.first < 0 {
				delete(b.series, k)
			}
		}
		b.into.series, b.series = b.series, nil
		return
	}
	for k, s := range b.series {
		if s.first < 0 {
			continue
		}
		have := b.into.series[k]
		if have == nil {
			b.into.series[k] = s
			continue
		}
		mergeFact(have, s)
	}
}

// mergeFact merges s, seen, into have, seen: the later last value wins.
func mergeFact(have, s *fact) {
	if s.last >= have.last {
		have.value, have.last = s.value, s.last
	}
	have.first = min(have.first, s.first)
}

// seriesKey is a label set in canonical form: name=value\0 for each
// label in name order, built in one allocation.
func seriesKey(l map[string]string) string {
	var arr [24]string
	keys := arr[:0]
	n := 0
	for k, v := range l {
		keys = append(keys, k)
		n += len(k) + len(v) + 2
	}
	slices.Sort(keys)
	var b strings.Builder
	b.Grow(n)
	for _, k := range keys {
		b.WriteString(k)
		b.WriteByte('=')
		b.WriteString(l[k])
		b.WriteByte(0)
	}
	return b.String()
}

// labelPair is one label of a fact.
type labelPair struct{ name, value string }

// labelSet is a fact's labels in name order: kube-state-metrics series
// have a dozen labels at most, so a look-up is a scan.
type labelSet []labelPair

func (ls labelSet) get(name string) string {
	for _, p := range ls {
		if p.name == name {
			return p.value
		}
	}
	return ""
}

func (ls labelSet) sort() {
	if !slices.IsSortedFunc(ls, cmpPairs) {
		slices.SortFunc(ls, cmpPairs)
	}
}

func cmpPairs(a, b labelPair) int { return strings.Compare(a.name, b.name) }

// appendKey appends the labels' seriesKey.
func (ls labelSet) appendKey(b []byte) []byte {
	for _, p := range ls {
		b = append(b, p.name...)
		b = append(b, '=')
		b = append(b, p.value...)
		b = append(b, 0)
	}
	return b
}
