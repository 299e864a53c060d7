package prom

import (
	"sort"
	"strings"
	"sync"
)

// fact is the last value of one series over the window and when it was
// first and last seen: what kube-state-metrics' info-style series need.
type fact struct {
	labels      map[string]string
	value       float64
	first, last float64 // Unix seconds of the first and last point
}

// facts collects the last value of every series of one metric. Its state
// is one fact per series.
type facts struct {
	mu     sync.Mutex
	series map[string]*fact
}

func newFacts() *facts { return &facts{series: map[string]*fact{}} }

func (f *facts) open() Batch { return &factBatch{into: f, series: map[string]*fact{}} }

// each calls fn for every series, in key order.
func (f *facts) each(fn func(*fact)) {
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
}

func (b *factBatch) Series(l map[string]string) PointFunc {
	k := seriesKey(l)
	s := b.series[k]
	if s == nil {
		s = &fact{labels: l, first: -1}
		b.series[k] = s
	}
	return func(t, v float64) {
		if s.first < 0 {
			s.first = t
		}
		s.last, s.value = t, v
	}
}

func (b *factBatch) Commit() {
	b.into.mu.Lock()
	defer b.into.mu.Unlock()
	for k, s := range b.series {
		if s.first < 0 {
			continue
		}
		have := b.into.series[k]
		switch {
		case have == nil:
			b.into.series[k] = s
		case s.last >= have.last:
			have.value, have.last = s.value, s.last
			have.first = min(have.first, s.first)
		default:
			have.first = min(have.first, s.first)
		}
	}
}

// seriesKey is a label set in canonical form.
func seriesKey(l map[string]string) string {
	keys := make([]string, 0, len(l))
	for k := range l {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var b strings.Builder
	for _, k := range keys {
		b.WriteString(k)
		b.WriteByte('=')
		b.WriteString(l[k])
		b.WriteByte(0)
	}
	return b.String()
}
