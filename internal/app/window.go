package app

import (
	"fmt"
	"time"

	"github.com/gpuwise/gpuwise/internal/param"
)

// Window limits (param's: the light package serve's query reader and
// its fuzz target use).
const (
	MinWindow = param.MinWindow
	MaxWindow = param.MaxWindow
)

// ParseWindow reads a window the way people write it: "7d", "1.5d",
// "36h", "90m" or any Go duration, between MinWindow and MaxWindow (as
// param.ParseWindow), its error a usage error. Front ends call it on flag
// and query values.
func ParseWindow(s string) (time.Duration, error) {
	d, err := param.ParseWindow(s)
	if err != nil {
		return 0, &Error{Kind: Usage, Err: err}
	}
	return d, nil
}

// validateWindow checks a requested window; zero (the source's default)
// is allowed where zeroOK.
func validateWindow(d time.Duration, zeroOK bool) error {
	if d == 0 && zeroOK {
		return nil
	}
	if d < MinWindow || d > MaxWindow {
		return fmt.Errorf("window: %s is outside %s..%s", FormatWindow(d), FormatWindow(MinWindow), FormatWindow(MaxWindow))
	}
	return nil
}

// FormatWindow writes a window the way ParseWindow reads it: "7d", "36h",
// or a Go duration.
func FormatWindow(d time.Duration) string { return param.FormatWindow(d) }
