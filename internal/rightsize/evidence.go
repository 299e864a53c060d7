package rightsize

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/gpuwise/gpuwise/internal/usage"
)

// Confidence thresholds (docs/recommendations.md "Confidence"): the
// wall-clock time the data spans and the share of running time it covers.
// A week sees the weekly cycle; three days see a few daily ones. Five runs
// of one template see the same work five times. A tenth of the pods
// interrupted, or an OOM kill, truncates the usage that was measured.
const (
	highSpan       = 7 * 24 * time.Hour
	highCoverage   = 0.9
	medSpan        = 3 * 24 * time.Hour
	medCoverage    = 0.75
	medRuns        = 5
	maxInterrupted = 0.1
)

// quantiler is a usage accumulator that answers percentiles.
type quantiler interface{ Quantile(q float64) float64 }

// evidence describes a merged gauge over a workload's evidence pods.
func (e *engine) evidence(w *workload, g *usage.Gauge, pods int, allocatedSec float64) Evidence {
	return e.newEvidence(w, g, g.Seconds, g.Max, pods, allocatedSec)
}

func (e *engine) newEvidence(w *workload, q quantiler, observedSec, maxV float64, pods int, allocatedSec float64) Evidence {
	ev := Evidence{
		Window:   e.s.Window().End.Sub(e.s.Window().Start),
		Observed: seconds(observedSec),
		Pods:     pods,
		Percentiles: map[string]float64{
			"p50": round4(q.Quantile(0.50)), "p95": round4(q.Quantile(0.95)),
			"p99": round4(q.Quantile(0.99)), "max": round4(maxV),
		},
	}
	if allocatedSec > 0 {
		ev.Coverage = round4(min(observedSec/allocatedSec, 1))
		// The data's wall-clock span: the time the pods behind it ran,
		// overlaps once, times the share of it that had data.
		ev.Span = min(seconds(e.spanOf(w.runs).Seconds()*ev.Coverage), ev.Window)
	}
	return ev
}

// trust is what a confidence level is read from besides the evidence.
type trust struct {
	runs        int  // runs of the template behind the data (1: none)
	pods        int  // pods behind the data
	interrupted int  // of them, failed or ended by a disruption
	oomKilled   bool // a container behind the data was OOM-killed
}

// trustOf reads a workload's runs and interruptions.
func trustOf(w *workload) trust {
	return trust{runs: w.nRuns, pods: len(w.runs), interrupted: interrupted(w.runs)}
}

// confidence is the lowest level every piece of evidence reaches, raised
// to medium by enough runs of one template and capped at medium by
// interruptions and OOM kills; with the reason spelled out.
func confidence(t trust, evs ...Evidence) (Confidence, string) {
	level := High
	span, cov := time.Duration(1<<62), 1.0
	for _, ev := range evs {
		span, cov = min(span, ev.Span), min(cov, ev.Coverage)
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
	if len(evs) == 0 {
		span, cov, level = 0, 0, Low
	}
	why := []string{fmt.Sprintf("%s of usage history covering %.0f%% of running time", spanText(span), cov*100)}
	switch level {
	case High:
		why[0] += " (high: ≥ 7 days, ≥ 90%)"
	case Medium:
		why[0] += " (medium: ≥ 3 days, ≥ 75%)"
	default:
		why[0] += " (low: less than 3 days or 75%)"
	}
	if t.runs > 1 {
		why = append(why, fmt.Sprintf("sized from %d runs of one template", t.runs))
		if level == Low && t.runs >= medRuns && cov >= medCoverage {
			level = Medium
			why[len(why)-1] += fmt.Sprintf(" (medium: ≥ %d runs, ≥ 75%%)", medRuns)
		}
	}
	if t.pods > 0 && float64(t.interrupted) > maxInterrupted*float64(t.pods) {
		why = append(why, fmt.Sprintf("%d of %d pods failed or were interrupted: their usage stops early", t.interrupted, t.pods))
		if level == High {
			level = Medium
			why[len(why)-1] += " (at most medium above 10%)"
		}
	}
	if t.oomKilled {
		why = append(why, "OOM-killed: memory use was cut off at the limit")
		if level == High {
			level = Medium
			why[len(why)-1] += " (at most medium)"
		}
	}
	return level, strings.Join(why, "; ")
}

// spanText writes a span in days (from two) or hours, as the ledger's
// confidence reasons do.
func spanText(d time.Duration) string {
	if d >= 48*time.Hour {
		return fmt.Sprintf("%.1f days", d.Hours()/24)
	}
	return fmt.Sprintf("%.0f h", d.Hours())
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
