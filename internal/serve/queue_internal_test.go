package serve

import (
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// Issue 31 low item: /metrics answered 503 to 83-85 % of 32 concurrent
// clients (promhttp's in-flight limit of 4 refuses at once). queued lets
// n through and makes the rest wait their turn.
func TestMetrics503To32ConcurrentClients(t *testing.T) {
	t.Parallel()
	var running, most atomic.Int32
	slow := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n := running.Add(1)
		for m := most.Load(); n > m && !most.CompareAndSwap(m, n); m = most.Load() {
		}
		time.Sleep(5 * time.Millisecond)
		running.Add(-1)
		w.Write([]byte("ok"))
	})
	h := queued(slow, 4, 10*time.Second)
	var wg sync.WaitGroup
	codes := make([]int, 32)
	for i := range codes {
		wg.Go(func() {
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, httptest.NewRequest("GET", "/metrics", nil))
			codes[i] = rec.Code
		})
	}
	wg.Wait()
	for i, c := range codes {
		if c != http.StatusOK {
			t.Errorf("client %d: %d, want 200 after waiting its turn", i, c)
		}
	}
	if m := most.Load(); m > 4 {
		t.Errorf("%d scrapes ran at once, want at most 4", m)
	}

	// Past the wait: 503 with Retry-After.
	block, started := make(chan struct{}), make(chan struct{})
	stuck := queued(http.HandlerFunc(func(http.ResponseWriter, *http.Request) { close(started); <-block }), 1, 20*time.Millisecond)
	go stuck.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest("GET", "/metrics", nil))
	<-started
	rec := httptest.NewRecorder()
	stuck.ServeHTTP(rec, httptest.NewRequest("GET", "/metrics", nil))
	close(block)
	if rec.Code != http.StatusServiceUnavailable || rec.Header().Get("Retry-After") == "" {
		t.Errorf("a scrape that waited past the limit: %d, Retry-After %q; want 503 with Retry-After", rec.Code, rec.Header().Get("Retry-After"))
	}
}
