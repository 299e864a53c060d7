package serve

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"
)

// ComputeInFlight answers are computed on demand at once (a report by
// workload, an audit, a plan, a ledger at 10,000 GPUs: seconds of CPU and
// hundreds of MB each); the others wait their turn up to ComputeQueueWait,
// then get a 503 with Retry-After. Side by side every one held its working
// set at the same time and they came no sooner (7 clients at 10,000 GPUs:
// 4 answers in 3 minutes without the slot, 13 with it, and about 150 MB
// less RSS; docs/performance.md).
// Answers of the published state (the default report, cached answers)
// never wait.
const (
	ComputeInFlight  = 1
	ComputeQueueWait = 3 * time.Minute
)

// errBusy is a computation that found no slot within ComputeQueueWait.
var errBusy = errors.New("busy")

// computeQueue holds the compute slots and the questions being computed,
// so that the same question asked twice at once is computed once.
type computeQueue struct {
	slots chan struct{}
	wait  time.Duration

	mu      sync.Mutex
	flights map[string]chan struct{}
}

func newComputeQueue(n int, wait time.Duration) *computeQueue {
	return &computeQueue{slots: make(chan struct{}, n), wait: wait, flights: map[string]chan struct{}{}}
}

// join returns nil when the caller computes key (it calls leave when
// done), else a channel closed when the caller computing it is done.
func (c *computeQueue) join(key string) <-chan struct{} {
	c.mu.Lock()
	defer c.mu.Unlock()
	if ch, ok := c.flights[key]; ok {
		return ch
	}
	c.flights[key] = make(chan struct{})
	return nil
}

func (c *computeQueue) leave(key string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	close(c.flights[key])
	delete(c.flights, key)
}

// acquire waits for a compute slot; release gives it back.
func (c *computeQueue) acquire(ctx context.Context) (release func(), err error) {
	t := time.NewTimer(c.wait)
	defer t.Stop()
	select {
	case c.slots <- struct{}{}:
		return func() { <-c.slots }, nil
	case <-t.C:
		return nil, fmt.Errorf("%w: %d answers being computed and none finished within %v: try again", errBusy, cap(c.slots), c.wait)
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}
