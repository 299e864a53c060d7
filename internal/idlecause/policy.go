package idlecause

import (
	"errors"
	"fmt"
	"math"
)

// Policy holds the thresholds that decide a cause. An idle hour is
// memory-pressured, else cpu-starved, else input-bound when its series
// reach them; no-work when every deciding series is below them.
type Policy struct {
	// CPUThrottled is the share of CFS periods throttled (0–1) at which a
	// GPU container counts as CPU-starved.
	CPUThrottled float64 `json:"cpu_throttled_share"`
	// CPUAtLimit is CPU used / limit (0–1) at which it does too.
	CPUAtLimit float64 `json:"cpu_at_limit"`
	// MemoryAtLimit is the hour's peak working set / limit (0–1) at which
	// a GPU container counts as memory-pressured (as does any OOM kill).
	MemoryAtLimit float64 `json:"memory_at_limit"`
	// PCIeBusy and NVLinkBusy are receive rates per GPU, bytes/s, at which
	// an idle GPU counts as input-bound, in an hour whose mean activity is
	// below InputActivity: data arriving while the SMs wait. (An hour of
	// compute bursts with idle gaps moves as much over NVLink while it
	// computes; its gaps are not input-bound.)
	PCIeBusy      float64 `json:"pcie_busy_bytes_per_second"`
	NVLinkBusy    float64 `json:"nvlink_busy_bytes_per_second"`
	InputActivity float64 `json:"input_bound_below_activity"`
}

// DefaultPolicy returns the documented defaults: throttled in a quarter of
// CFS periods or CPU at 90% of its limit; working set at 90% of its
// limit; 8 GB/s PCIe receive per GPU (a third of a PCIe 4.0 x16 link's
// ~25 GB/s in practice, a sixth of 5.0's) or 50 GB/s NVLink receive in an
// hour below 30% mean activity.
func DefaultPolicy() Policy {
	return Policy{CPUThrottled: 0.25, CPUAtLimit: 0.90, MemoryAtLimit: 0.90, PCIeBusy: 8e9, NVLinkBusy: 50e9, InputActivity: 0.30}
}

// Validate lists every problem with the policy, each naming its field.
func (p Policy) Validate() error {
	var errs []error
	for _, f := range []struct {
		name string
		v    float64
	}{{"cpu_throttled_share", p.CPUThrottled}, {"cpu_at_limit", p.CPUAtLimit}, {"memory_at_limit", p.MemoryAtLimit},
		{"input_bound_below_activity", p.InputActivity}} {
		if !(f.v > 0 && f.v <= 1) {
			errs = append(errs, fmt.Errorf("idle causes: %s %g is outside (0, 1]", f.name, f.v))
		}
	}
	for _, f := range []struct {
		name string
		v    float64
	}{{"pcie_busy_bytes_per_second", p.PCIeBusy}, {"nvlink_busy_bytes_per_second", p.NVLinkBusy}} {
		if !(f.v > 0) || math.IsInf(f.v, 0) {
			errs = append(errs, fmt.Errorf("idle causes: %s %g must be a positive rate", f.name, f.v))
		}
	}
	return errors.Join(errs...)
}
