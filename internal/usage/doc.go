// Package usage owns the streaming accumulators that turn usage samples into
// bounded state: time-weighted histograms for percentiles, integrals (active
// GPU-seconds), idle time below a threshold, and maxima.
//
// A sample is a value and the number of seconds it stands for; the caller
// (an adapter or the simulator) decides that duration, so this package never
// reads the clock. State is bounded by the number of series, not samples.
// Pure core: standard library only.
package usage
