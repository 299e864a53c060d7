package serve

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/gpuwise/gpuwise/internal/app"
)

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

// An answer prepared for the state about to be published is not served
// for the current one, stays through the reset to its state and is then
// served; a reset to the same state (a policy reload) forgets it, and an
// answer cannot be prepared for a state already published.
func TestResultCacheKeepsWhatWasPreparedForTheNextState(t *testing.T) {
	body := func(n int) cached { return cached{body: make([]byte, n)} }
	c := newResultCache(10, 1000)
	c.reset(1)
	c.put(1, "a", body(1))
	c.prepare(2, "a", body(2))
	c.prepare(1, "b", body(3)) // already published: not kept
	if v, ok := c.get(1, "a"); !ok || len(v.body) != 1 {
		t.Errorf("state 1's a: %d bytes (%v), want its own 1", len(v.body), ok)
	}
	if _, ok := c.get(1, "b"); ok {
		t.Error("an answer prepared for the published state was kept")
	}
	c.reset(2)
	if v, ok := c.get(2, "a"); !ok || len(v.body) != 2 {
		t.Errorf("state 2's a after the reset: %d bytes (%v), want the prepared 2", len(v.body), ok)
	}
	if c.bytes != 2 || len(c.data) != 1 {
		t.Errorf("%d bytes in %d answers after the reset, want state 1's gone", c.bytes, len(c.data))
	}
	c.reset(2)
	if _, ok := c.get(2, "a"); ok || c.bytes != 0 {
		t.Errorf("a reset to the same state kept the prepared answer (%d bytes held)", c.bytes)
	}
}

// The memo reads a list once for the callers that ask for it at the same
// time and for the pages after; a failed read is not kept, and a list of
// a generation before the previous one is forgotten.
func TestLowUtilMemoReadsOnce(t *testing.T) {
	var m lowUtilMemo
	reads := 0
	release := make(chan struct{})
	read := func() (*app.HistoryLowUtil, error) {
		reads++
		<-release
		return &app.HistoryLowUtil{Cluster: "x"}, nil
	}
	ctx := context.Background()
	got := make(chan *app.HistoryLowUtil, 3)
	for range 3 {
		go func() { r, _ := m.get(ctx, 1, "k", read); got <- r }()
	}
	time.Sleep(50 * time.Millisecond) // let them all ask while the first reads
	close(release)
	first := <-got
	for range 2 {
		if r := <-got; r != first {
			t.Error("callers at the same time got different lists")
		}
	}
	if r, _ := m.get(ctx, 1, "k", read); r != first || reads != 1 {
		t.Errorf("%d reads, later caller got the same list: %v; want one read", reads, r == first)
	}
	if _, err := m.get(ctx, 1, "bad", func() (*app.HistoryLowUtil, error) { return nil, errors.New("boom") }); err == nil {
		t.Fatal("a failed read gave no error")
	}
	if r, err := m.get(ctx, 1, "bad", read); err != nil || r == nil || reads != 2 {
		t.Errorf("after a failed read: %v, %v, %d reads; want it read again", r, err, reads)
	}
	m.get(ctx, 3, "k", read)
	m.mu.Lock()
	defer m.mu.Unlock()
	for k, c := range m.m {
		if c.gen == 1 {
			t.Errorf("generation 1's %q kept at generation 3", k)
		}
	}
}
