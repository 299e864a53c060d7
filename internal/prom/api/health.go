package api

import (
	"fmt"
	"sync"
)

// health is what all of a client's requests share about the server: the
// retries left in the budget, and a circuit breaker that opens after
// BreakerFailures failures to connect in a row (with no answer between)
// and stays open, so that a server that died mid-read ends the read in
// seconds instead of every remaining request running its own retries.
type health struct {
	mu        sync.Mutex
	retries   int // left in the budget
	threshold int
	inARow    int
	last      error // the last failure to connect
	isOpen    bool
}

func newHealth(cfg Config) *health {
	return &health{retries: cfg.RetryBudget, threshold: cfg.BreakerFailures}
}

// takeRetry spends one retry of the budget, false when none is left.
func (h *health) takeRetry() bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.retries <= 0 {
		return false
	}
	h.retries--
	return true
}

// failed counts a failure to get an answer.
func (h *health) failed(err error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.inARow++
	h.last = withoutURL(err)
	if h.inARow >= h.threshold {
		h.isOpen = true
	}
}

// answered counts an answer, of any status.
func (h *health) answered() {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.inARow = 0
}

func (h *health) open() bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.isOpen
}

// openError is why a request is not sent, or nil while the circuit is
// closed.
func (h *health) openError() error {
	h.mu.Lock()
	defer h.mu.Unlock()
	if !h.isOpen {
		return nil
	}
	return &CircuitOpenError{Failures: h.inARow, Last: h.last}
}

// CircuitOpenError is the failure of a request not sent because the
// server stopped answering.
type CircuitOpenError struct {
	Failures int
	Last     error
}

func (e *CircuitOpenError) Error() string {
	return fmt.Sprintf("not sent: Prometheus stopped answering (%d attempts in a row could not connect; last: %v)", e.Failures, e.Last)
}
