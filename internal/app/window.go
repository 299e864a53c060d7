package app

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// ParseWindow reads a window the way people write it: "7d", "36h", "90m"
// or any Go duration. Front ends call it on flag and query values.
func ParseWindow(s string) (time.Duration, error) {
	if days, ok := strings.CutSuffix(s, "d"); ok {
		n, err := strconv.ParseFloat(days, 64)
		if err != nil || n <= 0 {
			return 0, usageErrorf("window: %q is not a positive number of days (e.g. 7d)", s)
		}
		return time.Duration(n * 24 * float64(time.Hour)), nil
	}
	d, err := time.ParseDuration(s)
	if err != nil || d <= 0 {
		return 0, usageErrorf("window: %q is not a positive duration (e.g. 7d, 36h)", s)
	}
	return d, nil
}

// validateWindow checks a requested window; zero (the source's default)
// is allowed where zeroOK.
func validateWindow(d time.Duration, zeroOK bool) error {
	if d < 0 || (d == 0 && !zeroOK) {
		return fmt.Errorf("window: %s is not a positive duration", d)
	}
	return nil
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
