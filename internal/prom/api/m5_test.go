package api

import (
	"strings"
	"testing"
	"time"
)

// TestM5BackoffIsCapped (issue 31 M5): the wait before a retry doubles
// from Backoff and never passes MaxBackoff, whatever the attempt (the
// shift no longer grows without bound: 134 s waits were seen).
func TestM5BackoffIsCapped(t *testing.T) {
	t.Parallel()
	cfg := DefaultConfig()
	cfg.URL = "http://prometheus:9090"
	c := newClient(t, cfg)
	for attempt := 1; attempt <= 64; attempt++ {
		for range 20 {
			d := c.backoff(attempt)
			if d > cfg.MaxBackoff || d < min(cfg.Backoff<<min(attempt-1, 10), cfg.MaxBackoff) {
				t.Fatalf("attempt %d waits %s; want between the doubled backoff and %s", attempt, d, cfg.MaxBackoff)
			}
		}
	}
	if cfg.MaxBackoff > 10*time.Second {
		t.Errorf("MaxBackoff %s: the default should stay at 10 s or less", cfg.MaxBackoff)
	}
}

// TestM5RetriesHaveAMaximum: more than MaxRetries retries is a problem
// named by its flag; MaxRetries itself is accepted.
func TestM5RetriesHaveAMaximum(t *testing.T) {
	t.Parallel()
	cfg := DefaultConfig()
	cfg.URL = "http://prometheus:9090"
	cfg.Retries = MaxRetries
	if err := cfg.Validate(); err != nil {
		t.Errorf("%d retries: %v", MaxRetries, err)
	}
	cfg.Retries = MaxRetries + 1
	if err := cfg.Validate(); err == nil || !strings.Contains(err.Error(), "prometheus-retries: 11 is more than 10") {
		t.Errorf("11 retries: %v; want the maximum named", err)
	}
}
