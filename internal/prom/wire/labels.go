package wire

import (
	"slices"
	"strings"
)

// Label is one label of a series.
type Label struct{ Name, Value string }

// Labels are a series' labels. Decoders hand on a list they refill for
// the next series: keep the strings, or a copy of the list, never the
// list itself. Series have a dozen labels at most, so a look-up is a scan.
type Labels []Label

// Get returns the value of the label name, or "".
func (ls Labels) Get(name string) string {
	for _, p := range ls {
		if p.Name == name {
			return p.Value
		}
	}
	return ""
}

// First returns the first non-empty value among names: exporters spell the
// same label differently (Hostname and hostname, pod and pod_name).
func (ls Labels) First(names ...string) string {
	for _, n := range names {
		if v := ls.Get(n); v != "" {
			return v
		}
	}
	return ""
}

// Sort puts the labels in name order (a no-op for Prometheus' answers,
// which come sorted).
func (ls Labels) Sort() {
	if !slices.IsSortedFunc(ls, cmpLabels) {
		slices.SortFunc(ls, cmpLabels)
	}
}

func cmpLabels(a, b Label) int { return strings.Compare(a.Name, b.Name) }

// AppendKey appends the labels in canonical form, name=value\0 for each,
// in their order (sort them first for a canonical key).
func (ls Labels) AppendKey(b []byte) []byte {
	for _, p := range ls {
		b = append(b, p.Name...)
		b = append(b, '=')
		b = append(b, p.Value...)
		b = append(b, 0)
	}
	return b
}

// Map returns the labels as a map.
func (ls Labels) Map() map[string]string {
	m := make(map[string]string, len(ls))
	for _, p := range ls {
		m[p.Name] = p.Value
	}
	return m
}

// labelCache turns label bytes into strings: series come sorted, so a
// label's name, and often its value (namespace, pod), is the previous
// series' at the same place, found without hashing; else from strs.
type labelCache struct {
	prev, cur Labels
	strs      interned
}

func newLabelCache() *labelCache { return &labelCache{strs: getInterned()} }

func (c *labelCache) release() { putInterned(c.strs) }

// next starts the next series' labels.
func (c *labelCache) next() { c.prev, c.cur = c.cur, c.prev[:0] }

func (c *labelCache) get(i int, value bool, b []byte) string {
	if i < len(c.prev) {
		s := c.prev[i].Name
		if value {
			s = c.prev[i].Value
		}
		if s == string(b) {
			return s
		}
	}
	return c.strs.get(b)
}

// interned holds the label names and values of one answer: most repeat
// from series to series (names, namespaces, nodes, models), so each is
// allocated once. Bounded: past maxInterned it starts afresh.
type interned map[string]string

const maxInterned = 1 << 14

// internedPool hands each answer an interning table that earlier answers
// grew (and partly filled: their strings are as good as new ones), so that
// the table is not grown from empty, rehashing on the way, per request.
// It is a free list rather than a sync.Pool, which drops its contents
// at every other GC (often, during an ingest): each table starts at its
// full size and keeps it.
var internedPool = make(chan interned, 8)

func getInterned() interned {
	select {
	case s := <-internedPool:
		return s
	default:
		return make(interned, maxInterned)
	}
}

func putInterned(s interned) {
	select {
	case internedPool <- s:
	default:
	}
}

func (s interned) get(b []byte) string {
	if v, ok := s[string(b)]; ok {
		return v
	}
	if len(s) >= maxInterned {
		clear(s)
	}
	v := string(b)
	s[v] = v
	return v
}
