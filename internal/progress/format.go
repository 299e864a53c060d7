package progress

import (
	"fmt"
	"strconv"
	"time"
)

// count writes a count with thousands separators: "58,000".
func count(n int64) string {
	s := strconv.FormatInt(n, 10)
	neg := n < 0
	if neg {
		s = s[1:]
	}
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	if neg {
		return "-" + s
	}
	return s
}

// percent is done of total as a whole percent, at most 100.
func percent(done, total int64) int64 {
	if total <= 0 {
		return 0
	}
	return min(done*100/total, 100)
}

// duration writes a duration the way people read a countdown: "0.4s",
// "14.1s", "3m05s", "1h02m".
func duration(d time.Duration) string {
	switch {
	case d < 0:
		d = 0
		fallthrough
	case d < time.Minute:
		return strconv.FormatFloat(d.Seconds(), 'f', 1, 64) + "s"
	case d < time.Hour:
		return fmt.Sprintf("%dm%02ds", int(d/time.Minute), int(d%time.Minute/time.Second))
	}
	return fmt.Sprintf("%dh%02dm", int(d/time.Hour), int(d%time.Hour/time.Minute))
}
