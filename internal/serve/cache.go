package serve

import (
	"sync"
)

// resultCache keeps rendered API answers for the current state: requests
// with the same parameters are computed once per cycle. It holds at most
// max answers of at most maxBytes in all (an answer at 10,000 GPUs runs to
// megabytes: the count alone would not bound the memory) and forgets them
// all when the state changes.
type resultCache struct {
	mu       sync.Mutex
	max      int
	maxBytes int
	bytes    int
	gen      uint64
	data     map[string]cached
}

type cached struct {
	body        []byte
	contentType string
	partial     string
}

func newResultCache(max, maxBytes int) *resultCache {
	return &resultCache{max: max, maxBytes: maxBytes, data: map[string]cached{}}
}

func (c *resultCache) reset(gen uint64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.gen, c.data, c.bytes = gen, map[string]cached{}, 0
}

func (c *resultCache) get(gen uint64, key string) (cached, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if gen != c.gen {
		return cached{}, false
	}
	v, ok := c.data[key]
	return v, ok
}

func (c *resultCache) put(gen uint64, key string, v cached) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, ok := c.data[key]; ok || gen != c.gen || len(c.data) >= c.max || c.bytes+len(v.body) > c.maxBytes {
		return
	}
	c.data[key] = v
	c.bytes += len(v.body)
}
