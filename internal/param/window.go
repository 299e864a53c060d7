package param

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
)

// Window limits: shorter than an hour holds too few samples to size or
// price anything (and the simulator's step is 5 minutes); longer than a
// year is beyond any Prometheus retention worth asking and near where
// time.Duration saturates.
const (
	MinWindow = time.Hour
	MaxWindow = 366 * 24 * time.Hour
)

// ParseWindow reads a window the way people write it: "7d", "1.5d",
// "36h", "90m" or any Go duration, between MinWindow and MaxWindow. Front
// ends call it (through app.ParseWindow, which makes the error a usage
// error) on flag and query values.
func ParseWindow(s string) (time.Duration, error) {
	if days, ok := strings.CutSuffix(s, "d"); ok {
		n, err := strconv.ParseFloat(days, 64)
		switch {
		case err != nil || math.IsNaN(n) || math.IsInf(n, 0) || n <= 0:
			return 0, fmt.Errorf("window: %q is not a positive number of days (e.g. 7d)", s)
		case n*24 > MaxWindow.Hours():
			return 0, fmt.Errorf("window: %q is longer than the maximum, %s", s, FormatWindow(MaxWindow))
		}
		return inRange(s, time.Duration(n*24*float64(time.Hour)))
	}
	d, err := time.ParseDuration(s)
	if err != nil || d <= 0 {
		return 0, fmt.Errorf("window: %q is not a positive duration (e.g. 7d, 36h)", s)
	}
	return inRange(s, d)
}

func inRange(s string, d time.Duration) (time.Duration, error) {
	switch {
	case d < MinWindow:
		return 0, fmt.Errorf("window: %q is shorter than the minimum, %s", s, FormatWindow(MinWindow))
	case d > MaxWindow:
		return 0, fmt.Errorf("window: %q is longer than the maximum, %s", s, FormatWindow(MaxWindow))
	}
	return d, nil
}

// FormatWindow writes a window the way ParseWindow reads it: "7d", "36h",
// or a Go duration.
func FormatWindow(d time.Duration) string {
	switch {
	case d > 0 && d%(24*time.Hour) == 0:
		return strconv.FormatInt(int64(d/(24*time.Hour)), 10) + "d"
	case d > 0 && d%time.Hour == 0:
		return strconv.FormatInt(int64(d/time.Hour), 10) + "h"
	}
	return d.String()
}
