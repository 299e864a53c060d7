package cluster

import (
	"fmt"
	"time"
)

// Window is the half-open time range [Start, End) a snapshot covers.
type Window struct {
	Start time.Time `json:"start"`
	End   time.Time `json:"end"`
}

// Hours is the window's length in hours.
func (w Window) Hours() float64 { return w.End.Sub(w.Start).Hours() }

// Seconds is the window's length in seconds.
func (w Window) Seconds() float64 { return w.End.Sub(w.Start).Seconds() }

// Validate reports a window that is empty or inverted.
func (w Window) Validate() error {
	if !w.End.After(w.Start) {
		return fmt.Errorf("window end %s is not after start %s", w.End.Format(time.RFC3339), w.Start.Format(time.RFC3339))
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
