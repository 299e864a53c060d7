package lever

import (
	"fmt"
	"math"
	"time"

	"github.com/gpuwise/gpuwise/internal/rightsize"
)

// Variability rules (docs/savings.md): usage that swings this much makes
// a right-sized figure less certain, one level down.
const (
	// burstyCPU: CPU p99 over its median.
	burstyCPU = 4
	// burstyGPU: GPU activity p99 over its p95.
	burstyGPU = 2
)

// usageConfidence is right-sizing's level (history span and coverage of
// the weakest evidence) with the reason spelled out.
func usageConfidence(level rightsize.Confidence, evs ...rightsize.Evidence) (Level, string) {
	span, cov := time.Duration(math.MaxInt64), 1.0
	for _, ev := range evs {
		span, cov = min(span, ev.Span), min(cov, ev.Coverage)
	}
	if len(evs) == 0 {
		span = 0
	}
	why := fmt.Sprintf("%s of usage history covering %.0f%% of running time", spanText(span), cov*100)
	switch Level(level) {
	case High:
		return High, why + " (high: ≥ 7 days, ≥ 90%)"
	case Medium:
		return Medium, why + " (medium: ≥ 3 days, ≥ 75%)"
	}
	return Low, why + " (low: less than 3 days or 75%)"
}

// down lowers a level one step for a reason.
func down(l Level, reason, why string) (Level, string) {
	switch l {
	case High:
		return Medium, reason + "; " + why
	case Medium:
		return Low, reason + "; " + why
	}
	return Low, reason + "; " + why
}

// cpuVariability lowers confidence when CPU use is bursty.
func cpuVariability(l Level, reason string, ev rightsize.Evidence) (Level, string) {
	p50, p99 := ev.Percentiles["p50"], ev.Percentiles["p99"]
	if p50 > 0 && p99 > burstyCPU*p50 {
		return down(l, reason, fmt.Sprintf("bursty CPU: p99 is %.1f× the median", p99/p50))
	}
	return l, reason
}

// gpuVariability lowers confidence when GPU activity spikes well above
// the p95 the shape was sized on.
func gpuVariability(l Level, reason string, ev rightsize.Evidence) (Level, string) {
	p95, p99 := ev.Percentiles["p95"], ev.Percentiles["p99"]
	if p95 > 0 && p99 > burstyGPU*p95 {
		return down(l, reason, fmt.Sprintf("bursty GPU activity: p99 is %.1f× the p95 it was sized on", p99/p95))
	}
	return l, reason
}

// spanText writes a duration in days or hours.
func spanText(d time.Duration) string {
	if d >= 48*time.Hour {
		return fmt.Sprintf("%.1f days", d.Hours()/24)
	}
	return fmt.Sprintf("%.0f h", d.Hours())
}
