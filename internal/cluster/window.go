package cluster

import (
	"fmt"
	"math"
	"time"
)

// MaxWindow is the longest window gpuwise can measure: time.Duration
// (int64 nanoseconds) saturates at about 292 years, after which every
// length, rate and monthly figure would be silently wrong.
const MaxWindow = time.Duration(math.MaxInt64)

// Window is the half-open time range [Start, End) a snapshot covers.
type Window struct {
	Start time.Time `json:"start"`
	End   time.Time `json:"end"`
}

// Hours is the window's length in hours.
func (w Window) Hours() float64 { return w.End.Sub(w.Start).Hours() }

// Seconds is the window's length in seconds.
func (w Window) Seconds() float64 { return w.End.Sub(w.Start).Seconds() }

// Validate reports a window that is empty, inverted, or too long to
// measure (MaxWindow).
func (w Window) Validate() error {
	if !w.End.After(w.Start) {
		return fmt.Errorf("window end %s is not after start %s", w.End.Format(time.RFC3339), w.Start.Format(time.RFC3339))
	}
	if w.End.Sub(w.Start) >= MaxWindow {
		return fmt.Errorf("window %s – %s is longer than the %.0f years gpuwise can measure; use a shorter window",
			w.Start.Format(time.RFC3339), w.End.Format(time.RFC3339), MaxWindow.Hours()/(24*365.25))
	}
	return nil
}

// Clip returns the part of [from, to) that lies inside the window, in
// seconds. A zero from means "since before the window"; a zero to means
// "still running at the end of the window".
func (w Window) Clip(from, to time.Time) float64 {
	start, end := w.Start, w.End
	if !from.IsZero() && from.After(start) {
		start = from
	}
	if !to.IsZero() && to.Before(end) {
		end = to
	}
	if !end.After(start) {
		return 0
	}
	return end.Sub(start).Seconds()
}

// Interval returns the clipped [from, to) as times inside the window, and
// false when it does not intersect the window.
func (w Window) Interval(from, to time.Time) (time.Time, time.Time, bool) {
	start, end := w.Start, w.End
	if !from.IsZero() && from.After(start) {
		start = from
	}
	if !to.IsZero() && to.Before(end) {
		end = to
	}
	return start, end, end.After(start)
}
