package prom

import (
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/gpuwise/gpuwise/internal/prom/query"
	"github.com/gpuwise/gpuwise/internal/prom/wire"
)

// fact is the last value of one series over the window and when it was
// first and last seen: what kube-state-metrics' info-style series need.
type fact struct {
	labels      wire.Labels // sorted, without __name__
	value       float64
	first, last float64 // Unix seconds of the first and last point
}

// keyedFact is a fact with its key: its labels in canonical form.
type keyedFact struct {
	key string
	f   *fact
}

// facts collects the last value of every series of one metric, one fact
// per series, sorted by key.
type facts struct {
	mu   sync.Mutex
	list []keyedFact
}

// batch returns batches for the metric's answers. A sample counts as
// seen at the first point of the grid anchor + k·step at or after it
// (a zero step: at its own time), where last_over_time(…[step−1ms])
// evaluated on that grid (what a query_range read answers) first sees
// it, so that first, last and value are those of the query_range read
// however the samples come.
func (f *facts) batch(anchor time.Time, step time.Duration) func() query.Batch {
	g := grid{anchorMs: anchor.UnixMilli(), stepMs: step.Milliseconds()}
	return func() query.Batch { return &factBatch{into: f, grid: g} }
}

// each calls fn for every series, in key order.
func (f *facts) each(fn func(*fact)) {
	if f == nil {
		return
	}
	for _, kf := range f.list {
		fn(kf.f)
	}
}

// len is the number of series seen.
func (f *facts) len() int {
	if f == nil {
		return 0
	}
	return len(f.list)
}

// grid maps a raw sample's time to the evaluation point that sees it; a
// zero grid leaves times as they are.
type grid struct{ anchorMs, stepMs int64 }

func (g grid) point(ms int64) float64 {
	if g.stepMs <= 0 {
		return float64(ms) / 1000
	}
	// Samples reach back less than a step before the anchor, so the
	// dividend is never negative.
	k := (ms - g.anchorMs + g.stepMs - 1) / g.stepMs
	return float64(g.anchorMs+k*g.stepMs) / 1000
}

// factBatch collects one answer's series in the order they come (each is
// handed on once), and is the sink of the current one.
type factBatch struct {
	into *facts
	grid grid
	cur  *fact
	key  []byte
	list []keyedFact
}

func (b *factBatch) Series(l wire.Labels) query.Target {
	n := len(l)
	if l.Get("__name__") != "" {
		n--
	}
	ls := make(wire.Labels, 0, n)
	for _, p := range l {
		if p.Name != "__name__" { // raw series carry it; last_over_time drops it
			ls = append(ls, p)
		}
	}
	ls.Sort() // Prometheus sends them sorted: a check
	b.key = ls.AppendKey(b.key[:0])
	b.cur = &fact{labels: ls, first: -1}
	b.list = append(b.list, keyedFact{string(b.key), b.cur})
	return query.Target{Sink: b}
}

// Samples takes the current series' samples.
func (b *factBatch) Samples(xs []wire.Sample) {
	s := b.cur
	for _, x := range xs {
		t := b.grid.point(x.T)
		if s.first < 0 {
			s.first = t
		}
		s.last, s.value = t, x.V
	}
}

func (b *factBatch) End() {}

// Commit merges the batch's seen series into the metric's, sorted by key;
// a series in both keeps the later last value and the earlier first
// sighting.
func (b *factBatch) Commit() {
	slices.SortFunc(b.list, func(x, y keyedFact) int { return strings.Compare(x.key, y.key) })
	kept := b.list[:0]
	for _, kf := range b.list {
		switch {
		case kf.f.first < 0: // never seen: no sample, or only NaNs
		case len(kept) > 0 && kept[len(kept)-1].key == kf.key:
			mergeFact(kept[len(kept)-1].f, kf.f)
		default:
			kept = append(kept, kf)
		}
	}
	b.into.mu.Lock()
	defer b.into.mu.Unlock()
	b.into.list = mergeFacts(b.into.list, kept)
}

// mergeFacts merges two key-sorted lists.
func mergeFacts(have, add []keyedFact) []keyedFact {
	if len(have) == 0 {
		return add
	}
	out := make([]keyedFact, 0, len(have)+len(add))
	i, j := 0, 0
	for i < len(have) && j < len(add) {
		switch c := strings.Compare(have[i].key, add[j].key); {
		case c < 0:
			out, i = append(out, have[i]), i+1
		case c > 0:
			out, j = append(out, add[j]), j+1
		default:
			mergeFact(have[i].f, add[j].f)
			out, i, j = append(out, have[i]), i+1, j+1
		}
	}
	return append(append(out, have[i:]...), add[j:]...)
}

// mergeFact merges s, seen, into have, seen: the later last value wins.
func mergeFact(have, s *fact) {
	if s.last >= have.last {
		have.value, have.last = s.value, s.last
	}
	have.first = min(have.first, s.first)
}
