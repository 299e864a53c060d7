package cli

import (
	"io"
	"time"

	"github.com/gpuwise/gpuwise/internal/progress"
)

// progressState is the env's progress bar: drawn on stderr while a
// command computes, when stderr is a terminal and --quiet is off.
type progressState struct {
	quiet bool
	// delay is how long a command runs before the bar appears
	// (--progress-delay, hidden: tests set 0).
	delay time.Duration
	stop  func()
}

// startProgress starts the bar and hands it to the use cases. The
// command's own output (its result on stdout, its notes on stderr) first
// stops the bar, so that a status line is never left under it.
func (e *env) startProgress() {
	if e.quiet || !e.ErrIsTTY || e.Err == nil || e.stop != nil {
		return
	}
	o := progress.DefaultOptions()
	o.Prefix = e.name()
	if e.ErrWidth > 0 {
		o.Width = e.ErrWidth
	}
	o.Delay = e.delay
	bar := progress.New(e.Err, o)
	e.app = e.app.WithProgress(bar.Update)
	e.stop = bar.Start() // idempotent
	e.Out = &stopOnWrite{w: e.Out, stop: e.stop}
	e.Err = &stopOnWrite{w: e.Err, stop: e.stop}
}

// stopProgress ends the bar with its final line, if it was started.
func (e *env) stopProgress() {
	if e.stop != nil {
		e.stop()
	}
}

// stopOnWrite stops the progress bar before the first write through it.
type stopOnWrite struct {
	w    io.Writer
	stop func()
}

func (s *stopOnWrite) Write(p []byte) (int, error) {
	s.stop()
	return s.w.Write(p)
}
