package progress

import (
	"bytes"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// clock is a fake clock tests move by hand.
type clock struct{ t time.Time }

func (c *clock) now() time.Time              { return c.t }
func (c *clock) advance(d time.Duration)     { c.t = c.t.Add(d) }
func newClock() *clock                       { return &clock{t: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)} }
func testBar(c *clock, w *bytes.Buffer) *Bar { return New(w, options(c)) }

func options(c *clock) Options {
	o := DefaultOptions()
	o.Now = c.now
	return o
}

// lines splits the output the way a terminal shows it: each "\r" starts
// the line again, each "\n" ends it.
func screen(out string) []string {
	var lines []string
	for _, l := range strings.Split(out, "\n") {
		parts := strings.Split(l, "\r")
		last := strings.TrimSuffix(parts[len(parts)-1], "\x1b[K")
		if last != "" {
			lines = append(lines, last)
		}
	}
	return lines
}

func TestQuickRunsDrawNothing(t *testing.T) {
	c, out := newClock(), &bytes.Buffer{}
	b := testBar(c, out)
	b.Update("reading snapshot", 0, 0)
	c.advance(900 * time.Millisecond)
	b.Update("reading snapshot", 5, 10)
	b.Tick()
	b.Finish()
	if out.Len() != 0 {
		t.Errorf("a run shorter than the delay drew %q", out.String())
	}
}

func TestStatusFinalLinesAndETA(t *testing.T) {
	c, out := newClock(), &bytes.Buffer{}
	b := testBar(c, out)
	b.Update("listing pods", 0, 0)
	c.advance(2 * time.Second)
	b.Update("listing pods", 1000, 5000) // 500/s: 8s left
	c.advance(2 * time.Second)
	b.Update("listing pods", 5000, 5000)
	b.Update("simulating cluster", 0, 0) // ends the first phase
	c.advance(1500 * time.Millisecond)
	b.Tick()
	b.Finish()
	want := []string{
		"gpuwise: listing pods · 1,000/5,000 (20%) · 500/s · ETA 8.0s",
		"gpuwise: listing pods · 5,000/5,000 (100%) · 1,250/s · 4.0s",
		"gpuwise: listing pods 5,000 in 4.0s (1,250/s)",
		"gpuwise: simulating cluster · 0.0s",
		"gpuwise: simulating cluster · 1.5s",
		"gpuwise: simulating cluster in 1.5s",
	}
	if diff := cmp.Diff(want, screenHistory(out.String())); diff != "" {
		t.Errorf("lines drawn (-want +got):\n%s\nraw %q", diff, out.String())
	}
	if got := screen(out.String()); len(got) != 2 || !strings.HasSuffix(out.String(), "\n") {
		t.Errorf("final screen %q: want one line per finished phase, ending in a newline", got)
	}
}

// screenHistory is every line drawn, in order, without repeats.
func screenHistory(out string) []string {
	var lines []string
	for _, seg := range strings.FieldsFunc(out, func(r rune) bool { return r == '\r' || r == '\n' }) {
		seg = strings.TrimSuffix(seg, "\x1b[K")
		if seg != "" && (len(lines) == 0 || lines[len(lines)-1] != seg) {
			lines = append(lines, seg)
		}
	}
	return lines
}

func TestRedrawsAreThrottled(t *testing.T) {
	c, out := newClock(), &bytes.Buffer{}
	b := testBar(c, out)
	c.advance(2 * time.Second)
	for i := range 1000 {
		b.Update("querying", int64(i), 1000)
		c.advance(time.Millisecond) // a second of updates, every millisecond
	}
	if n := strings.Count(out.String(), "\r"); n < 4 || n > 6 {
		t.Errorf("%d redraws in a second of 1,000 updates; want about 5 (every %s)", n, DefaultOptions().Interval)
	}
}

func TestTickShowsElapsedWithoutUpdates(t *testing.T) {
	c, out := newClock(), &bytes.Buffer{}
	b := testBar(c, out)
	b.Update("allocating cost", 0, 0)
	c.advance(3 * time.Second)
	b.Tick()
	c.advance(time.Minute)
	b.Tick()
	want := []string{"gpuwise: allocating cost · 3.0s", "gpuwise: allocating cost · 1m03s"}
	if diff := cmp.Diff(want, screenHistory(out.String())); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

func TestUnknownTotalShowsCountAndRate(t *testing.T) {
	c, out := newClock(), &bytes.Buffer{}
	b := testBar(c, out)
	b.Update("listing nodes", 0, 0)
	c.advance(2 * time.Second)
	b.Update("listing nodes", 1500, 0)
	if got := screenHistory(out.String()); len(got) != 1 || got[0] != "gpuwise: listing nodes · 1,500 · 750/s · 2.0s" {
		t.Errorf("got %q", got)
	}
}

func TestLinesFitTheTerminal(t *testing.T) {
	c, out := newClock(), &bytes.Buffer{}
	o := options(c)
	o.Width = 30
	b := New(out, o)
	c.advance(2 * time.Second)
	b.Update("reading a snapshot with a very long file name", 0, 0)
	for _, l := range screenHistory(out.String()) {
		if n := len([]rune(l)); n > 29 || !strings.HasSuffix(l, "…") {
			t.Errorf("line %q: %d columns on a 30-column terminal", l, n)
		}
	}
}

func TestFinishEndsTheRun(t *testing.T) {
	c, out := newClock(), &bytes.Buffer{}
	b := testBar(c, out)
	c.advance(2 * time.Second)
	b.Update("planning", 1, 3)
	b.Finish()
	before := out.String()
	b.Update("planning", 2, 3)
	b.Tick()
	b.Finish()
	if out.String() != before || !strings.HasSuffix(before, "\n") {
		t.Errorf("after Finish: %q, before %q", out.String(), before)
	}
}

// Start's ticker keeps a silent phase on screen, and stop leaves the
// final line; updates may come from many goroutines.
func TestStartTicksAndStops(t *testing.T) {
	var mu sync.Mutex
	out := &lockedBuffer{mu: &mu}
	o := DefaultOptions()
	o.Delay, o.Interval = 0, time.Millisecond
	b := New(out, o)
	stop := b.Start()
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 100 {
				b.Update("simulating cluster", int64(g*100+i), 800)
			}
		}()
	}
	wg.Wait()
	time.Sleep(20 * time.Millisecond)
	stop()
	stop() // a second stop is harmless
	mu.Lock()
	defer mu.Unlock()
	if s := out.b.String(); !strings.Contains(s, "simulating cluster") || !strings.HasSuffix(s, "\n") {
		t.Errorf("output %q", s)
	}
}

type lockedBuffer struct {
	mu *sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func TestFormat(t *testing.T) {
	tests := []struct{ got, want string }{
		{count(0), "0"}, {count(999), "999"}, {count(1000), "1,000"}, {count(58000123), "58,000,123"}, {count(-1234), "-1,234"},
		{duration(400 * time.Millisecond), "0.4s"}, {duration(185 * time.Second), "3m05s"}, {duration(62 * time.Minute), "1h02m"},
		{duration(-time.Second), "0.0s"},
	}
	for _, tt := range tests {
		if tt.got != tt.want {
			t.Errorf("got %q, want %q", tt.got, tt.want)
		}
	}
	if percent(5, 0) != 0 || percent(7, 5) != 100 {
		t.Error("percent out of range")
	}
}
