package serve_test

import (
	"context"
	"math"
	"runtime/debug"
	"testing"
	"time"

	"github.com/gpuwise/gpuwise/internal/serve"
)

// Not parallel: the Go memory limit is the process's, and parallel tests
// start only after this one ends.
func TestTheServicePacesTheGoMemoryLimitOnEachState(t *testing.T) {
	prev := debug.SetMemoryLimit(math.MaxInt64)
	t.Cleanup(func() { debug.SetMemoryLimit(prev) })
	wd := simWorld(t)
	for _, tt := range []struct {
		name     string
		headroom float64
		paced    bool
	}{
		{"--memory-headroom 0.25 paces it", serve.PacedMemoryHeadroom, true},
		{"the default, 0: Go's own pacing", liveOptions("").MemoryHeadroom, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			clk := &clock{}
			clk.set(week.Add(30 * time.Hour))
			opts := liveOptions("")
			opts.MemoryHeadroom = tt.headroom
			in := startLive(t, opts, clk, staticInv{wd.snap}, &fakeProm{wd: wd})
			if got := debug.SetMemoryLimit(-1); got != math.MaxInt64 {
				t.Fatalf("limit before the first state: %d, want none", got)
			}
			if err := in.svc.Cycle(context.Background()); err != nil {
				t.Fatal(err)
			}
			got := debug.SetMemoryLimit(-1)
			if !tt.paced {
				if got != math.MaxInt64 || serve.PacerOf(in.svc) != nil {
					t.Fatalf("not paced, yet the limit is %d", got)
				}
				return
			}
			if got == math.MaxInt64 || got < serve.DefaultMemoryMinHeadroom {
				t.Fatalf("limit after the first state: %d, want the live heap plus its headroom", got)
			}
			// The second state paces it again, from what is live then.
			clk.set(week.Add(30*time.Hour + 10*time.Minute))
			if err := in.svc.Cycle(context.Background()); err != nil {
				t.Fatal(err)
			}
			if again := debug.SetMemoryLimit(-1); again == math.MaxInt64 || again < serve.DefaultMemoryMinHeadroom {
				t.Fatalf("limit after the second state: %d", again)
			}
			in.svc.Close()
			if after := debug.SetMemoryLimit(-1); after != math.MaxInt64 {
				t.Errorf("limit after Close: %d, want the one found at New (none)", after)
			}
		})
	}
}
