package serve

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// Issue 32: answers computed on demand take a slot each; with every slot
// taken the next one waits, then is told the service is busy.
func TestComputeSlotsBoundTheAnswersComputedAtOnce(t *testing.T) {
	t.Parallel()
	q := newComputeQueue(2, time.Minute)
	var running, most atomic.Int32
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			release, err := q.acquire(context.Background())
			if err != nil {
				t.Error(err)
				return
			}
			n := running.Add(1)
			for m := most.Load(); n > m && !most.CompareAndSwap(m, n); m = most.Load() {
			}
			time.Sleep(5 * time.Millisecond)
			running.Add(-1)
			release()
		})
	}
	wg.Wait()
	if most.Load() != 2 {
		t.Errorf("%d computed at once, want 2", most.Load())
	}

	busy := newComputeQueue(1, 20*time.Millisecond)
	release, err := busy.acquire(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := busy.acquire(context.Background()); !errors.Is(err, errBusy) {
		t.Errorf("a full queue answered %v, want busy", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := busy.acquire(ctx); !errors.Is(err, context.Canceled) {
		t.Errorf("a request gone answered %v", err)
	}
	release()
	if r, err := busy.acquire(context.Background()); err != nil {
		t.Errorf("a freed slot: %v", err)
	} else {
		r()
	}
}

// The same question asked while it is being computed waits for that
// computation instead of starting its own.
func TestTheSameQuestionIsComputedOnce(t *testing.T) {
	t.Parallel()
	q := newComputeQueue(1, time.Minute)
	if q.join("1 /api/v1/audit?") != nil {
		t.Fatal("the first asker must compute")
	}
	wait := q.join("1 /api/v1/audit?")
	if wait == nil {
		t.Fatal("the second asker computes too")
	}
	if q.join("1 /api/v1/plan?") != nil {
		t.Error("another question waits for the first")
	}
	select {
	case <-wait:
		t.Fatal("done before the first asker left")
	default:
	}
	q.leave("1 /api/v1/audit?")
	<-wait
	if q.join("1 /api/v1/audit?") != nil {
		t.Error("after leave, the next asker computes")
	}
}
