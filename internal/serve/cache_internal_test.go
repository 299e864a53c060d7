package serve

import "testing"

func TestResultCacheIsBoundedByCountAndBytes(t *testing.T) {
	c := newResultCache(3, 100)
	c.reset(1)
	body := func(n int) cached { return cached{body: make([]byte, n)} }
	c.put(1, "a", body(60))
	c.put(1, "b", body(50)) // 110 bytes: over the byte bound
	c.put(1, "c", body(40))
	c.put(1, "a", body(1)) // already there: kept as is
	c.put(2, "d", body(1)) // another generation
	for key, want := range map[string]bool{"a": true, "b": false, "c": true, "d": false} {
		if _, ok := c.get(1, key); ok != want {
			t.Errorf("%s cached: %v, want %v", key, ok, want)
		}
	}
	if v, _ := c.get(1, "a"); len(v.body) != 60 {
		t.Errorf("a: %d bytes, want the first answer's 60", len(v.body))
	}
	c.put(1, "e", body(0))
	c.put(1, "f", body(0)) // a fourth answer: over the count
	if _, ok := c.get(1, "f"); ok {
		t.Error("a fourth answer was cached beyond max 3")
	}
	c.reset(2)
	c.put(2, "g", body(100))
	if _, ok := c.get(2, "g"); !ok {
		t.Error("reset did not give the byte budget back")
	}
}
