package app

import "github.com/gpuwise/gpuwise/internal/cost"

// ParseLowUtil reads a report's low-utilization setting ("30%:6h", "30%"
// or "" for off: cost.ParseLowUtil), for the front ends that take it as a
// flag or a parameter.
func ParseLowUtil(s string) (cost.LowUtilOptions, error) { return cost.ParseLowUtil(s) }
