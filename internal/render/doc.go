// Package render owns how a cost report looks to people and machines: the
// formats table (the terminal view), json and csv (stable, machine-read),
// markdown (for pull requests and wikis) and html (one self-contained page).
//
// It only formats: numbers are rounded for display here and nowhere else,
// and it never computes or changes a report. It reads a *cost.Report and
// writes to an io.Writer; it must not import adapters (kube, prom, sim),
// read flags or the environment, or detect a terminal itself: callers pass
// Options (colour, width) decided at the composition root.
package render
