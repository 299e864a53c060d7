// Package idlecause explains why GPUs idle. For each GPU workload it
// classifies every hour with idle GPU time, from the snapshot's hourly
// series, as cpu-starved (CFS throttling, CPU at its limit), input-bound
// (PCIe or NVLink receive busy while the GPU idles), memory-pressured
// (working set at its limit, OOM kills), no-work (every deciding series
// quiet) or unknown (a deciding series is absent: never guessed), and
// splits the workload's idle GPU-hours and idle dollars — the cost
// engine's figures, passed in — by the share of idle GPU-hours each cause
// explains. Thresholds live in a Policy with documented defaults
// (docs/report-format.md, "Why GPUs idle").
//
// Pure core: it imports cluster and the standard library only — no other
// engine (the use case hands it the cost engine's idle figures), no I/O,
// no clock.
package idlecause
