// Package progress draws the progress of a long run on a terminal: one
// status line (phase, done/total, rate, ETA or elapsed time) redrawn in
// place at most every Options.Interval, and a final line per phase. A run
// shorter than Options.Delay draws nothing, so quick commands stay quiet;
// a longer one is never silent: a ticker redraws the elapsed time even
// while the work reports nothing.
//
// Engines, adapters and use cases never draw. Each takes a callback of
// the shape func(phase string, done, total int64) in its options (total 0:
// unknown), declared where it is used, and calls it; the composition root
// (the CLI) passes Bar.Update when stderr is a terminal and --quiet is
// off, and nothing otherwise. A new long-running reader (a bill import)
// does the same: take such a callback, call it per unit of work, and the
// CLI hands it Bar.Update. Callbacks must be cheap and may be called from
// any goroutine; Bar throttles the drawing.
//
// It is a front-end package: it writes to the io.Writer it is given and
// knows nothing of flags, terminals (the caller decides) or gpuwise's
// engines. There is no global state.
package progress
