package rightsize

import (
	"fmt"
	"math"
	"strconv"
	"time"

	"github.com/gpuwise/gpuwise/internal/usage"
)

// Confidence thresholds: the wall-clock time the data spans and the share
// of running time it covers. A week sees the weekly cycle; three days see
// a few daily ones.
const (
	highSpan     = 7 * 24 * time.Hour
	highCoverage = 0.9
	medSpan      = 3 * 24 * time.Hour
	medCoverage  = 0.75
)

// quantiler is a usage accumulator that answers percentiles.
type quantiler interface{ Quantile(q float64) float64 }

// evidence describes a merged gauge over a workload.
func (e *engine) evidence(g *usage.Gauge, pods int, allocatedSec float64) Evidence {
	return e.newEvidence(g, g.Seconds, g.Max, pods, allocatedSec)
}

func (e *engine) newEvidence(q quantiler, observedSec, maxV float64, pods int, allocatedSec float64) Evidence {
	ev := Evidence{
		Window:   e.s.Window.End.Sub(e.s.Window.Start),
		Observed: seconds(observedSec),
		Pods:     pods,
		Percentiles: map[string]float64{
			"p50": round4(q.Quantile(0.50)), "p95": round4(q.Quantile(0.95)),
			"p99": round4(q.Quantile(0.99)), "max": round4(maxV),
		},
	}
	if allocatedSec > 0 {
		ev.Coverage = round4(min(observedSec/allocatedSec, 1))
		// Average concurrent pods over the window: the data's wall-clock
		// span is the observed time divided by it.
		if conc := allocatedSec / e.s.Window.Seconds(); conc > 0 {
			ev.Span = min(seconds(observedSec/conc), ev.Window)
		}
	}
	return ev
}

// confidence is the lowest level every piece of evidence reaches.
func confidence(evs ...Evidence) Confidence {
	level := High
	for _, ev := range evs {
		switch {
		case ev.Span >= highSpan && ev.Coverage >= highCoverage:
		case ev.Span >= medSpan && ev.Coverage >= medCoverage:
			if level == High {
				level = Medium
			}
		default:
			level = Low
		}
	}
	return level
}

func seconds(s float64) time.Duration { return time.Duration(math.Round(s)) * time.Second }

func round4(v float64) float64 {
	if !finite(v) {
		return 0
	}
	return math.Round(v*1e4) / 1e4
}

// pct writes a share as a percent without trailing zeros: 0.95 → "95".
func pct(v float64) string { return strconv.FormatFloat(math.Round(v*1000)/10, 'f', -1, 64) }

func cores(v float64) string {
	return strconv.FormatFloat(math.Round(v*1000)/1000, 'f', -1, 64) + " cores"
}

// bytesText writes bytes in Mi or Gi, as Kubernetes quantities read.
func bytesText(b float64) string {
	if b >= float64(gib) {
		return strconv.FormatFloat(math.Round(b/float64(gib)*100)/100, 'f', -1, 64) + "Gi"
	}
	return strconv.FormatFloat(math.Ceil(b/float64(mib)), 'f', -1, 64) + "Mi"
}

// durationText writes whole days and hours: "7d", "36h", "2d4h".
func durationText(d time.Duration) string {
	h := int64(d / time.Hour) // truncated: 23h50m of data is not a day
	switch {
	case h == 0:
		return d.Truncate(time.Minute).String()
	case h%24 == 0:
		return fmt.Sprintf("%dd", h/24)
	case h < 48:
		return fmt.Sprintf("%dh", h)
	}
	return fmt.Sprintf("%dd%dh", h/24, h%24)
}

func mibText(v float64) string {
	if v >= 1024 {
		return strconv.FormatFloat(math.Round(v/1024*10)/10, 'f', -1, 64) + " GiB"
	}
	return strconv.FormatFloat(math.Round(v), 'f', -1, 64) + " MiB"
}
