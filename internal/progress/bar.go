package progress

import (
	"fmt"
	"io"
	"strings"
	"sync"
	"time"
	"unicode/utf8"
)

// Options tune a Bar.
type Options struct {
	// Now is the clock; nil means time.Now.
	Now func() time.Time
	// Delay is how long a run goes before anything is drawn.
	Delay time.Duration
	// Interval is the least time between two redraws.
	Interval time.Duration
	// Width is the terminal's columns: lines are cut to one less, so
	// they never wrap; 0 means 80.
	Width int
	// Prefix starts every line ("gpuwise").
	Prefix string
}

// DefaultOptions draw after a second, five times a second at most.
func DefaultOptions() Options {
	return Options{Delay: time.Second, Interval: 200 * time.Millisecond, Width: 80, Prefix: "gpuwise"}
}

// Bar is one run's progress on a terminal. Safe for concurrent use.
type Bar struct {
	w  io.Writer
	o  Options
	mu sync.Mutex
	// began is the run's start; drawing is false until Delay has passed.
	began   time.Time
	drawing bool
	// The current phase, when it began, what is done of total, and
	// whether its status line is on screen.
	phase       string
	phaseBegan  time.Time
	done, total int64
	onScreen    bool
	lastDraw    time.Time
	finished    bool
}

// New returns a Bar drawing on w (the terminal's stderr).
func New(w io.Writer, o Options) *Bar {
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.Width <= 0 {
		o.Width = 80
	}
	now := o.Now()
	return &Bar{w: w, o: o, began: now, phaseBegan: now}
}

// Update reports that done of total units of phase are finished (total
// 0: unknown). A new phase ends the current one with its final line.
func (b *Bar) Update(phase string, done, total int64) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.finished {
		return
	}
	now := b.o.Now()
	if phase != b.phase {
		b.endPhase(now)
		b.phase, b.phaseBegan = phase, now
		b.lastDraw = time.Time{}
	}
	b.done, b.total = done, total
	b.redraw(now, false)
}

// Tick redraws the status line (the elapsed time moves even when no
// update comes); Start calls it every Interval.
func (b *Bar) Tick() {
	b.mu.Lock()
	defer b.mu.Unlock()
	if !b.finished {
		b.redraw(b.o.Now(), true)
	}
}

// Start ticks every Interval until the returned stop is called; stop ends
// the run with Finish.
func (b *Bar) Start() (stop func()) {
	quit := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		t := time.NewTicker(b.o.Interval)
		defer t.Stop()
		for {
			select {
			case <-quit:
				return
			case <-t.C:
				b.Tick()
			}
		}
	}()
	var once sync.Once
	return func() {
		once.Do(func() {
			close(quit)
			wg.Wait()
			b.Finish()
		})
	}
}

// Finish ends the run: the current phase's final line if anything was
// drawn, nothing otherwise. Later updates are ignored.
func (b *Bar) Finish() {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.finished {
		return
	}
	b.endPhase(b.o.Now())
	b.finished = true
}

// redraw draws the status line when the run has lasted Delay and the
// last draw is Interval old (always on a tick).
func (b *Bar) redraw(now time.Time, tick bool) {
	if b.phase == "" || now.Sub(b.began) < b.o.Delay {
		return
	}
	if !tick && b.onScreen && now.Sub(b.lastDraw) < b.o.Interval {
		return
	}
	b.drawing, b.onScreen, b.lastDraw = true, true, now
	b.write("\r" + b.fit(b.status(now)) + "\x1b[K")
}

// endPhase replaces the status line with the phase's final line, once
// anything has been drawn.
func (b *Bar) endPhase(now time.Time) {
	if b.phase == "" || !b.drawing {
		return
	}
	b.write("\r" + b.fit(b.final(now)) + "\x1b[K\n")
	b.onScreen = false
}

func (b *Bar) write(s string) {
	// A failed write to the terminal must not fail the command.
	_, _ = io.WriteString(b.w, s)
}

// fit cuts a line to the terminal's width less one.
func (b *Bar) fit(s string) string {
	max := b.o.Width - 1
	if utf8.RuneCountInString(s) <= max {
		return s
	}
	r := []rune(s)
	return string(r[:max-1]) + "…"
}

// status is the line while a phase runs: "gpuwise: listing pods 12,500/
// 58,000 (22%) · 4,100/s · ETA 11s".
func (b *Bar) status(now time.Time) string {
	parts := []string{b.head()}
	el := now.Sub(b.phaseBegan)
	rate := b.rate(el)
	switch {
	case b.total > 0:
		parts = append(parts, fmt.Sprintf("%s/%s (%d%%)", count(b.done), count(b.total), percent(b.done, b.total)))
	case b.done > 0:
		parts = append(parts, count(b.done))
	}
	if rate > 0 {
		parts = append(parts, count(int64(rate+0.5))+"/s")
	}
	if b.total > 0 && rate > 0 && b.done < b.total {
		parts = append(parts, "ETA "+duration(time.Duration(float64(b.total-b.done)/rate*float64(time.Second))))
	} else {
		parts = append(parts, duration(el))
	}
	return strings.Join(parts, " · ")
}

// final is the line a finished phase leaves: "gpuwise: listing pods
// 58,000 in 14.1s (4,113/s)".
func (b *Bar) final(now time.Time) string {
	el := now.Sub(b.phaseBegan)
	s := b.head()
	if b.done > 0 {
		s += " " + count(b.done)
		if b.total > b.done {
			s += "/" + count(b.total)
		}
	}
	s += " in " + duration(el)
	if rate := b.rate(el); rate > 0 && b.done > 0 {
		s += fmt.Sprintf(" (%s/s)", count(int64(rate+0.5)))
	}
	return s
}

func (b *Bar) head() string {
	if b.o.Prefix == "" {
		return b.phase
	}
	return b.o.Prefix + ": " + b.phase
}

func (b *Bar) rate(el time.Duration) float64 {
	if el <= 0 || b.done <= 0 {
		return 0
	}
	return float64(b.done) / el.Seconds()
}
