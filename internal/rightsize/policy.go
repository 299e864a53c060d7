package rightsize

import (
	"errors"
	"fmt"
	"math"
	"path"
	"time"

	"github.com/gpuwise/gpuwise/internal/cluster"
)

// Policy steers every recommendation. Headrooms are fractions added on top
// of the measured figure (0.2 recommends 1.2 × the percentile). Field
// names in Validate's messages are the policy file's (docs/recommendations.md).
type Policy struct {
	CPU     CPUPolicy
	Memory  MemoryPolicy
	History HistoryPolicy
	GPU     GPUPolicy
}

// CPUPolicy sizes CPU requests.
type CPUPolicy struct {
	Percentile float64 // of usage over the window, (0, 1]
	Headroom   float64 // ≥ 0
	MinMilli   int64   // floor of a recommendation
	// StarvedThrottled and StarvedAtLimit say when a GPU container is
	// CPU-starved: throttled in that share of its CFS periods, or using
	// that share of its CPU limit, on average over the hours it ran. A
	// starved container's CPU is never cut, and is raised (cpuStarved).
	StarvedThrottled float64
	StarvedAtLimit   float64
}

// MemoryPolicy sizes memory requests (and limits: request = limit).
type MemoryPolicy struct {
	Percentile float64 // of working set; 1 means the maximum
	Headroom   float64
	MinBytes   int64
	// OOMBump: after an OOM kill the recommendation is at least the
	// current limit × (1 + OOMBump).
	OOMBump float64
}

// HistoryPolicy says how much data a recommendation needs.
type HistoryPolicy struct {
	// MinObserved is the least usage time (summed over the workload's
	// pods) behind a recommendation.
	MinObserved time.Duration
	// MinCoverage is the least share (0–1) of the workload's running time
	// that had usage data.
	MinCoverage float64
}

// GPUPolicy steers the GPU shape decision.
type GPUPolicy struct {
	// MemoryHeadroom is added to peak framebuffer use.
	MemoryHeadroom float64
	// ActivityPercentile is the activity percentile a shape must hold.
	ActivityPercentile float64
	// ComputeHeadroom is added to that activity when the target is
	// another GPU model or a time-slice share.
	ComputeHeadroom float64
	// DevNamespaces are globs over namespaces whose workloads may share
	// GPUs by time-slicing (path.Match syntax).
	DevNamespaces []string
	// MinReplicas and MaxReplicas clamp time-slicing replicas.
	MinReplicas int
	MaxReplicas int
}

// maxMIGNeedMiB is the memory above which a workload never gets MIG
// (DESIGN.md: never MIG for > 40 GB).
const maxMIGNeedMiB = 40 * 1024

// Bounds on the policy's request floors: far above any real node (the
// largest have under 1,000 cores and 32 TiB), and far below where int64
// millicores or bytes overflow.
const (
	MaxMinCPUMilli    = 1024 * 1000 // 1024 cores
	MaxMinMemoryBytes = 64 << 40    // 64Ti
)

// DefaultPolicy returns DESIGN.md's recommendation defaults.
func DefaultPolicy() Policy {
	return Policy{
		CPU:     CPUPolicy{Percentile: 0.95, Headroom: 0, MinMilli: 10, StarvedThrottled: 0.25, StarvedAtLimit: 0.90},
		Memory:  MemoryPolicy{Percentile: 0.99, Headroom: 0.2, MinBytes: 64 << 20, OOMBump: 0.10},
		History: HistoryPolicy{MinObserved: 24 * time.Hour, MinCoverage: 0.5},
		GPU: GPUPolicy{
			MemoryHeadroom: 0.2, ActivityPercentile: 0.95, ComputeHeadroom: 0.2,
			DevNamespaces: append([]string(nil), cluster.DefaultDevNamespaces...),
			MinReplicas:   2, MaxReplicas: 8,
		},
	}
}

// Validate returns every problem with the policy, each naming its field,
// joined into one error; nil when the policy is usable.
func (p Policy) Validate() error {
	var errs []error
	bad := func(field, format string, args ...any) {
		errs = append(errs, fmt.Errorf("%s: %s", field, fmt.Sprintf(format, args...)))
	}
	percentile := func(field string, v float64) {
		if !(v > 0 && v <= 1) {
			bad(field, "%v is outside (0, 1]; a percentile is a share, e.g. 0.95", v)
		}
	}
	headroom := func(field string, v float64) {
		if !(v >= 0 && v <= 10) {
			bad(field, "%v is outside [0, 10]; headroom is a fraction added on top, e.g. 0.2 for +20%%", v)
		}
	}
	percentile("cpu.percentile", p.CPU.Percentile)
	headroom("cpu.headroom", p.CPU.Headroom)
	if p.CPU.MinMilli < 0 {
		bad("cpu.min", "%dm is negative", p.CPU.MinMilli)
	} else if p.CPU.MinMilli > MaxMinCPUMilli {
		bad("cpu.min", "%dm is above the limit of %dm", p.CPU.MinMilli, int64(MaxMinCPUMilli))
	}
	for _, f := range []struct {
		field string
		v     float64
	}{{"cpu.starvedThrottled", p.CPU.StarvedThrottled}, {"cpu.starvedAtLimit", p.CPU.StarvedAtLimit}} {
		if !(f.v > 0 && f.v <= 1) {
			bad(f.field, "%v is outside (0, 1]; a share of CFS periods or of the CPU limit, e.g. 0.25", f.v)
		}
	}
	percentile("memory.percentile", p.Memory.Percentile)
	headroom("memory.headroom", p.Memory.Headroom)
	if p.Memory.MinBytes < 0 {
		bad("memory.min", "%d bytes is negative", p.Memory.MinBytes)
	} else if p.Memory.MinBytes > MaxMinMemoryBytes {
		bad("memory.min", "%d bytes is above the limit of %d (64Ti)", p.Memory.MinBytes, int64(MaxMinMemoryBytes))
	}
	if !(p.Memory.OOMBump >= 0.10 && p.Memory.OOMBump <= 10) {
		bad("memory.oomBump", "%v is outside [0.1, 10]; after an OOM kill memory grows by at least 10%%", p.Memory.OOMBump)
	}
	if p.History.MinObserved < 0 {
		bad("history.minObserved", "%s is negative", p.History.MinObserved)
	}
	if !(p.History.MinCoverage >= 0 && p.History.MinCoverage <= 1) {
		bad("history.minCoverage", "%v is outside [0, 1]", p.History.MinCoverage)
	}
	headroom("gpu.memoryHeadroom", p.GPU.MemoryHeadroom)
	percentile("gpu.activityPercentile", p.GPU.ActivityPercentile)
	headroom("gpu.computeHeadroom", p.GPU.ComputeHeadroom)
	for i, g := range p.GPU.DevNamespaces {
		if _, err := path.Match(g, ""); err != nil || g == "" {
			bad(fmt.Sprintf("gpu.devNamespaces[%d]", i), "%q is not a valid glob", g)
		}
	}
	if p.GPU.MinReplicas < 2 {
		bad("gpu.timeSlice.minReplicas", "%d is below 2; the device plugin rejects fewer replicas", p.GPU.MinReplicas)
	}
	if p.GPU.MaxReplicas < max(p.GPU.MinReplicas, 2) || p.GPU.MaxReplicas > 64 {
		bad("gpu.timeSlice.maxReplicas", "%d is outside [minReplicas, 64]", p.GPU.MaxReplicas)
	}
	return errors.Join(errs...)
}

// withHeadroom is v × (1 + h).
func withHeadroom(v, h float64) float64 { return v * (1 + h) }

// finite reports a usable number: not NaN (no data) and not infinite.
func finite(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }
