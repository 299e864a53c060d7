package cli

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/gpuwise/gpuwise/internal/app"
)

// daysValue is a time.Duration flag that also takes days ("7d", "1.5d"),
// as --window does on the other commands: serve's --window refused the
// "d" its own help text uses (issue 31). Ranges are the caller's to check.
type daysValue struct{ d *time.Duration }

func (v daysValue) String() string {
	if v.d == nil {
		return ""
	}
	return app.FormatWindow(*v.d)
}

func (v daysValue) Set(s string) error {
	if days, ok := strings.CutSuffix(s, "d"); ok {
		n, err := strconv.ParseFloat(days, 64)
		if err != nil || n <= 0 || n*24 > float64(1<<62)/float64(time.Hour) {
			return fmt.Errorf("%q is not a positive number of days (e.g. 7d)", s)
		}
		*v.d = time.Duration(n * 24 * float64(time.Hour))
		return nil
	}
	d, err := time.ParseDuration(s)
	if err != nil {
		return fmt.Errorf("%q is not a duration (e.g. 7d, 36h)", s)
	}
	*v.d = d
	return nil
}

func (daysValue) Type() string { return "duration" }
