package render

import (
	"math"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/gpuwise/gpuwise/internal/cluster"
)

// Display rounding lives here and only here; reports keep full precision.

// percent formats a ratio as "23.4%"; nil is "n/a" because no data is not 0%.
func percent(p *float64) string {
	if p == nil {
		return "n/a"
	}
	return strconv.FormatFloat(*p*100, 'f', 1, 64) + "%"
}

// hours formats GPU-hours with one decimal: "1,234.5".
func hours(v float64) string { return decimal(v, 1) }

// gpus formats an average GPU count: "2.50".
func gpus(v float64) string { return decimal(v, 2) }

// fixed is v to prec decimals with no separators: "4.00" cores. Dollars
// never go through it (money.go).
func fixed(v float64, prec int) string { return strconv.FormatFloat(v, 'f', prec, 64) }

func decimal(v float64, prec int) string {
	s := strconv.FormatFloat(math.Abs(v), 'f', prec, 64)
	whole, frac, _ := strings.Cut(s, ".")
	s = thousands(whole)
	if frac != "" {
		s += "." + frac
	}
	if v < 0 && strings.Trim(s, "0.,") != "" {
		s = "-" + s
	}
	return s
}

// thousands puts commas into a string of digits: "12345" → "12,345".
func thousands(digits string) string {
	if len(digits) <= 3 {
		return digits
	}
	var b strings.Builder
	lead := len(digits) % 3
	if lead > 0 {
		b.WriteString(digits[:lead])
	}
	for i := lead; i < len(digits); i += 3 {
		if b.Len() > 0 {
			b.WriteByte(',')
		}
		b.WriteString(digits[i : i+3])
	}
	return b.String()
}

// windowSpan formats a window as "2025-01-01 00:00 – 2025-01-08 00:00 UTC".
func windowSpan(w cluster.Window) string {
	const layout = "2006-01-02 15:04"
	return w.Start.UTC().Format(layout) + " – " + w.End.UTC().Format(layout) + " UTC"
}

// windowHours formats a window length: "168 h", "1.5 h".
func windowHours(h float64) string {
	return strconv.FormatFloat(math.Round(h*10)/10, 'f', -1, 64) + " h"
}

// truncate cuts s to at most n runes, marking the cut with "…".
func truncate(s string, n int) string {
	if n <= 0 || utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	if n == 1 {
		return "…"
	}
	return string(r[:n-1]) + "…"
}
