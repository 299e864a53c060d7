package serve

import (
	"runtime/debug"
	"runtime/metrics"
	"strconv"
	"strings"
)

// cgroupMemoryFiles are where a container's memory limit is read: cgroup
// v2, then v1.
var cgroupMemoryFiles = []string{"/sys/fs/cgroup/memory.max", "/sys/fs/cgroup/memory/memory.limit_in_bytes"}

// noLimit is the smallest value taken as "no limit": cgroup v1 reports an
// unlimited group as a huge page-aligned number, v2 as "max".
const noLimit = 1 << 60

// MemoryLimit is the Go soft memory limit for a service in a container
// with no GOMEMLIMIT of its own: ratio (0 < ratio ≤ 1) of the container's
// memory limit, so that the collector runs more often as the heap nears
// the limit instead of letting it double between collections until the
// container is killed; the rest is room for what the Go runtime does not
// count (SQLite's page cache, the binary's pages). It returns 0 when
// GOMEMLIMIT is set (the runtime has applied it), ratio is 0, or no
// container limit is found; from names the file it read.
func MemoryLimit(ratio float64, getenv func(string) string, read func(string) ([]byte, error)) (limit int64, from string) {
	if getenv("GOMEMLIMIT") != "" || !(ratio > 0 && ratio <= 1) {
		return 0, ""
	}
	for _, f := range cgroupMemoryFiles {
		b, err := read(f)
		if err != nil {
			continue
		}
		n, err := strconv.ParseInt(strings.TrimSpace(string(b)), 10, 64)
		if err != nil || n <= 0 || n >= noLimit {
			return 0, "" // "max": the container has no limit
		}
		return int64(float64(n) * ratio), f
	}
	return 0, ""
}

// MemoryPacer sets the Go soft memory limit from the live heap the
// service measures after each published state: the live heap, plus
// Headroom of it (at least MinHeadroom), plus what the runtime holds
// besides the heap (stacks, its metadata), capped at Cap (the container's
// limit by MemoryLimit; 0: none). Without it Go's collector lets the heap
// grow to twice what is live between collections (GOGC=100), and a
// service that holds a few hundred MB and allocates gigabytes a cycle
// settles at twice its size; with it the heap stays within Headroom of
// what the last state holds, at the cost of more frequent collections.
// The limit is soft: a working set above it (an answer computed on
// demand) is collected more often, never failed, and the next published
// state sets it again from what is live then.
type MemoryPacer struct {
	Headroom    float64
	MinHeadroom int64
	Cap         int64
	// exclude is left out of the live heap that Headroom is a share of
	// (a benchmark's own simulated world: ExcludeFromPacing).
	exclude uint64
	// read gives the live heap and the runtime's memory besides the heap
	// (readRuntimeMemory); set applies a limit (debug.SetMemoryLimit).
	read func() (live, other uint64)
	set  func(int64) int64
}

// Pacing: PacedMemoryHeadroom is the headroom measured in docs/performance.md
// (--memory-headroom 0.25: a quarter of the live heap over it); pacing is off
// unless asked for (it costs the cycle CPU). At least 64 MiB over the heap.
const (
	PacedMemoryHeadroom      = 0.25
	DefaultMemoryMinHeadroom = 64 << 20
)

// NewMemoryPacer is a pacer on the Go runtime's own figures.
func NewMemoryPacer(headroom float64, capBytes int64) *MemoryPacer {
	return &MemoryPacer{Headroom: headroom, MinHeadroom: DefaultMemoryMinHeadroom, Cap: capBytes,
		read: readRuntimeMemory, set: debug.SetMemoryLimit}
}

// Limit is the limit for a live heap and the runtime's other memory.
func (p *MemoryPacer) Limit(live, other uint64) int64 {
	room := max(int64(float64(live-min(live, p.exclude))*p.Headroom), p.MinHeadroom)
	limit := int64(live) + room + int64(other)
	if p.Cap > 0 && limit > p.Cap {
		limit = p.Cap
	}
	return limit
}

// Pace sets the limit from what is live now and returns it.
func (p *MemoryPacer) Pace() int64 {
	limit := p.Limit(p.read())
	p.set(limit)
	return limit
}

// readRuntimeMemory is the heap live at the last collection and the
// runtime's mapped memory that is not heap (runtime/metrics).
func readRuntimeMemory() (live, other uint64) {
	s := []metrics.Sample{{Name: "/gc/heap/live:bytes"}, {Name: "/memory/classes/total:bytes"},
		{Name: "/memory/classes/heap/objects:bytes"}, {Name: "/memory/classes/heap/unused:bytes"},
		{Name: "/memory/classes/heap/free:bytes"}, {Name: "/memory/classes/heap/released:bytes"}}
	metrics.Read(s)
	v := func(i int) uint64 {
		if s[i].Value.Kind() != metrics.KindUint64 {
			return 0
		}
		return s[i].Value.Uint64()
	}
	heap := v(2) + v(3) + v(4) + v(5)
	if t := v(1); t > heap {
		other = t - heap
	}
	return v(0), other
}
