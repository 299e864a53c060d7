package serve

import (
	"container/list"
	"strconv"
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
// Answers prepared for the state about to be published (prepare: the
// service's warm) are kept through the reset to that state.
type resultCache struct {
	mu       sync.Mutex
	max      int
	maxBytes int
	bytes    int
	gen      uint64
	data     map[string]*list.Element // by genKey
	recent   *list.List               // of *cacheEntry, most recently asked for first
}

type cacheEntry struct {
	gen uint64
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

func genKey(gen uint64, key string) string { return strconv.FormatUint(gen, 10) + " " + key }

// reset makes gen the current state: the answers prepared for it stay
// when it is a later state, every other answer goes (a reset to the same
// state, after a policy reload, forgets them all).
func (c *resultCache) reset(gen uint64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	later := gen > c.gen
	c.gen = gen
	for e := c.recent.Front(); e != nil; {
		next := e.Next()
		if x := e.Value.(*cacheEntry); !later || x.gen != gen {
			c.remove(e)
		}
		e = next
	}
}

func (c *resultCache) get(gen uint64, key string) (cached, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if gen != c.gen {
		return cached{}, false
	}
	e, ok := c.data[genKey(gen, key)]
	if !ok {
		return cached{}, false
	}
	c.recent.MoveToFront(e)
	return e.Value.(*cacheEntry).v, true
}

// put keeps an answer of the current state.
func (c *resultCache) put(gen uint64, key string, v cached) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if gen == c.gen {
		c.add(gen, key, v)
	}
}

// prepare keeps an answer of a later state, not yet published.
func (c *resultCache) prepare(gen uint64, key string, v cached) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if gen > c.gen {
		c.add(gen, key, v)
	}
}

// add keeps v for gen and key, making room; c.mu is held.
func (c *resultCache) add(gen uint64, key string, v cached) {
	k := genKey(gen, key)
	if _, ok := c.data[k]; ok || len(v.body) > c.maxBytes || c.max < 1 {
		return
	}
	for len(c.data) >= c.max || c.bytes+len(v.body) > c.maxBytes {
		c.remove(c.recent.Back())
	}
	c.data[k] = c.recent.PushFront(&cacheEntry{gen: gen, key: key, v: v})
	c.bytes += len(v.body)
}

// remove forgets the entry e; c.mu is held.
func (c *resultCache) remove(e *list.Element) {
	x := c.recent.Remove(e).(*cacheEntry)
	delete(c.data, genKey(x.gen, x.key))
	c.bytes -= len(x.v.body)
}
