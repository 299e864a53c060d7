// Package compare owns before/after comparisons: two sides (two periods of
// the history, two reports, two snapshots' reports), each a table of
// figures per key, compared key by key — utilization, GPU-hours, idle
// dollars, total dollars, OOM kills — with the change of each and the keys
// that appeared or went away. It is what tells whether last month's change
// helped.
//
// Figures that a side does not know stay unknown (nil), never zero: a
// report carries no OOM kills, an unmeasured key has no utilization, an
// unpriced key has no dollars.
//
// Pure core: it imports cluster, tally and the standard library; sides are built
// by the use cases (app.ReportFigures) and the history's readers. No I/O,
// no clock, no store.
package compare
