package serve

import (
	"container/list"
	"sync"
)

// The answers cache's bounds: at 10,000 GPUs one cycle's dashboard views
// ask for ~25 distinct answers, ~9 MB gzipped (docs/performance.md, "Every
// view at 10k GPUs"), about 100 MB uncompressed at JSON's ~10× (an
// estimate: bench-views now counts them); 192 MiB holds them with room.
const (
	cacheAnswers = 256
	cacheBytes   = 192 << 20
)

// resultCache keeps rendered API answers for the current state: requests
// with the same parameters are computed once per cycle. It holds at most
// max answers of at most maxBytes in all (an answer at 10,000 GPUs runs to
// megabytes: the count alone would not bound the memory), forgetting the
// least recently asked for to make room for a new one, and forgets them
// all when the state changes. An answer larger than maxBytes is not kept.
type resultCache struct {
	mu       sync.Mutex
	max      int
	maxBytes int
	bytes    int
	gen      uint64
	data     map[string]*list.Element
	recent   *list.List // of *cacheEntry, most recently asked for first
}

type cacheEntry struct {
	key string
	v   cached
}

type cached struct {
	body        []byte
	contentType string
	partial     string
}

func newResultCache(max, maxBytes int) *resultCache {
	return &resultCache{max: max, maxBytes: maxBytes, data: map[string]*list.Element{}, recent: list.New()}
}

func (c *resultCache) reset(gen uint64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.gen, c.data, c.recent, c.bytes = gen, map[string]*list.Element{}, list.New(), 0
}

func (c *resultCache) get(gen uint64, key string) (cached, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if gen != c.gen {
		return cached{}, false
	}
	e, ok := c.data[key]
	if !ok {
		return cached{}, false
	}
	c.recent.MoveToFront(e)
	return e.Value.(*cacheEntry).v, true
}

func (c *resultCache) put(gen uint64, key string, v cached) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, ok := c.data[key]; ok || gen != c.gen || len(v.body) > c.maxBytes || c.max < 1 {
		return
	}
	for len(c.data) >= c.max || c.bytes+len(v.body) > c.maxBytes {
		old := c.recent.Remove(c.recent.Back()).(*cacheEntry)
		delete(c.data, old.key)
		c.bytes -= len(old.v.body)
	}
	c.data[key] = c.recent.PushFront(&cacheEntry{key: key, v: v})
	c.bytes += len(v.body)
}
