package serve

import (
	"context"
	"strconv"
	"sync"

	"github.com/gpuwise/gpuwise/internal/app"
)

// lowUtilMemoSize bounds the whole lists lowUtilMemo holds: a list at
// 10,000 GPUs is a few MB, and a dashboard asks for one range at a time.
const lowUtilMemoSize = 8

// lowUtilMemo holds the whole low-utilization lists of the history that
// pages were cut from, per state generation and request: at 10,000 GPUs
// a week's list reads 1.7 million unit-hour rows (seconds), and every
// page of it, and the same question asked while it is being read, reads
// that one list. Lists of generations before the previous one are
// forgotten, and at most lowUtilMemoSize are held.
type lowUtilMemo struct {
	mu sync.Mutex
	m  map[string]*lowUtilCall
}

type lowUtilCall struct {
	gen  uint64
	done chan struct{}
	res  *app.HistoryLowUtil
	err  error
}

// get is the list of generation gen for key: the one held, the one being
// read (waited for), or read now by read. A read that failed is not kept:
// a waiter whose own context is still live reads it again.
func (m *lowUtilMemo) get(ctx context.Context, gen uint64, key string, read func() (*app.HistoryLowUtil, error)) (*app.HistoryLowUtil, error) {
	for {
		m.mu.Lock()
		if m.m == nil {
			m.m = map[string]*lowUtilCall{}
		}
		k := strconv.FormatUint(gen, 10) + " " + key
		c, ok := m.m[k]
		if !ok {
			c = &lowUtilCall{gen: gen, done: make(chan struct{})}
			m.makeRoom(gen)
			m.m[k] = c
			m.mu.Unlock()
			c.res, c.err = read()
			if c.err != nil {
				m.mu.Lock()
				delete(m.m, k)
				m.mu.Unlock()
			}
			close(c.done)
			return c.res, c.err
		}
		m.mu.Unlock()
		select {
		case <-c.done:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
		if c.err == nil {
			return c.res, nil
		}
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
	}
}

// makeRoom forgets the lists of generations before gen's previous one
// and, while the memo is full, a finished list; m.mu is held.
func (m *lowUtilMemo) makeRoom(gen uint64) {
	for k, c := range m.m {
		if c.gen+1 < gen {
			delete(m.m, k)
		}
	}
	for k, c := range m.m {
		if len(m.m) < lowUtilMemoSize {
			return
		}
		select {
		case <-c.done:
			delete(m.m, k)
		default:
		}
	}
}
