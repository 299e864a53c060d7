package serve

import "testing"

func TestResultCacheIsBoundedByCountAndBytes(t *testing.T) {
	c := newResultCache(3, 100)
	c.reset(1)
	body := func(n int) cached { return cached{body: make([]byte, n)} }
	c.put(1, "a", body(60))
	c.put(1, "a", body(1))     // already there: kept as is
	c.put(1, "d", body(1))     // 61 bytes in two answers
	c.put(2, "x", body(1))     // another generation: not kept
	c.put(1, "big", body(101)) // larger than the whole budget: not kept, nothing forgotten
	if v, ok := c.get(1, "a"); !ok || len(v.body) != 60 {
		t.Errorf("a: %d bytes (cached %v), want the first answer's 60", len(v.body), ok)
	}
	if _, ok := c.get(1, "big"); ok {
		t.Error("an answer over the byte budget was cached")
	}
	c.put(1, "b", body(50)) // 111 bytes with a and d: the least recently asked for (d, a asked for since) goes, then a
	for key, want := range map[string]bool{"a": false, "b": true, "d": false, "x": false} {
		if _, ok := c.get(1, key); ok != want {
			t.Errorf("%s cached: %v, want %v", key, ok, want)
		}
	}
	if c.bytes > 100 || len(c.data) > 3 {
		t.Errorf("%d bytes in %d answers, over 100 bytes or 3 answers", c.bytes, len(c.data))
	}
	c.reset(2)
	c.put(2, "g", body(100))
	if _, ok := c.get(2, "g"); !ok {
		t.Error("reset did not give the byte budget back")
	}
}

// A full cache keeps the answers asked for again and forgets the one
// least recently asked for (first come would keep the first three and
// refuse every later answer): by count and by bytes.
func TestResultCacheForgetsTheLeastRecentlyAskedFor(t *testing.T) {
	body := func(n int) cached { return cached{body: make([]byte, n)} }
	c := newResultCache(3, 1000)
	c.reset(1)
	for _, k := range []string{"a", "b", "c"} {
		c.put(1, k, body(10))
	}
	c.get(1, "a") // b is now the least recently asked for
	c.put(1, "d", body(10))
	for key, want := range map[string]bool{"a": true, "b": false, "c": true, "d": true} {
		if _, ok := c.get(1, key); ok != want {
			t.Errorf("by count: %s cached %v, want %v", key, ok, want)
		}
	}
	c = newResultCache(100, 100)
	c.reset(1)
	c.put(1, "a", body(40))
	c.put(1, "b", body(40))
	c.get(1, "a")
	c.put(1, "c", body(50)) // 130 bytes: b goes, a (asked for since) stays
	for key, want := range map[string]bool{"a": true, "b": false, "c": true} {
		if _, ok := c.get(1, key); ok != want {
			t.Errorf("by bytes: %s cached %v, want %v", key, ok, want)
		}
	}
	if c.bytes != 90 {
		t.Errorf("%d bytes held, want a's 40 and c's 50", c.bytes)
	}
}
