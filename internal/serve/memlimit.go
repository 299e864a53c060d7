package serve

import (
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
