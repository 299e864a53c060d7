package export

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/gpuwise/gpuwise/internal/billing"
)

// RowError is a bad value in a billing file: the file, the 1-based data
// row (the header is row 0) and the column.
type RowError struct {
	File   string
	Row    int64
	Column string
	Err    error
}

func (e *RowError) Error() string {
	if e.Column == "" {
		return fmt.Sprintf("%s: row %d: %v", e.File, e.Row, e.Err)
	}
	return fmt.Sprintf("%s: row %d, column %s: %v", e.File, e.Row, e.Column, e.Err)
}

func (e *RowError) Unwrap() error { return e.Err }

// FileError is a problem with a billing file as a whole: an unknown
// format, missing required columns, a size limit.
type FileError struct {
	File string
	Err  error
}

func (e *FileError) Error() string { return e.File + ": " + e.Err.Error() }
func (e *FileError) Unwrap() error { return e.Err }

// isNull says whether a cell holds no value: empty, or the literal NULL
// the FOCUS sample data uses (both occur in real exports).
func isNull(s string) bool {
	return s == "" || s == "NULL" || s == "null"
}

// parseMoney reads a decimal cost; null is 0. NaN and infinities are
// refused; negative values are allowed (credits, corrections) unless
// nonNegative.
func parseMoney(s string, nonNegative bool) (float64, error) {
	s = strings.TrimSpace(s)
	if isNull(s) {
		return 0, nil
	}
	v, err := strconv.ParseFloat(s, 64)
	if err != nil {
		return 0, fmt.Errorf("%q is not a decimal number", truncate(s))
	}
	return checkMoney(v, nonNegative)
}

// checkMoney refuses NaN, infinities and (when nonNegative) negatives.
func checkMoney(v float64, nonNegative bool) (float64, error) {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return 0, fmt.Errorf("%v is not a finite number", v)
	}
	if nonNegative && v < 0 {
		return 0, fmt.Errorf("%v is negative, which this column cannot be", v)
	}
	return v, nil
}

// timeLayouts are the timestamp spellings seen in exports: the spec's
// ISO 8601 UTC, with fractions, and the sample data's space-separated
// form without a zone (read as UTC).
var timeLayouts = []string{
	time.RFC3339Nano,
	"2006-01-02T15:04:05",
	"2006-01-02 15:04:05",
	"2006-01-02 15:04:05.999999999",
	"2006-01-02T15:04:05.999999999",
	"2006-01-02 15:04:05Z07:00",
	"2006-01-02",
}

func parseTime(s string) (time.Time, error) {
	s = strings.TrimSpace(s)
	for _, l := range timeLayouts {
		if t, err := time.Parse(l, s); err == nil {
			return t.UTC(), nil
		}
	}
	return time.Time{}, fmt.Errorf("%q is not a timestamp (want ISO 8601, e.g. 2024-09-01T00:00:00Z)", truncate(s))
}

func truncate(s string) string {
	if len(s) > 40 {
		return s[:40] + "…"
	}
	return s
}

// canonical returns the allowed value that s spells, compared
// case-insensitively (the sample has "Usage-based" for "Usage-Based"),
// or s itself.
func canonical(s string, allowed ...string) string {
	for _, a := range allowed {
		if strings.EqualFold(s, a) {
			return a
		}
	}
	return s
}

var chargeCategories = []string{"Usage", "Purchase", "Tax", "Credit", "Adjustment"}

// instanceTypeOfUsage reads the instance type from an AWS usage type:
// "USE1-BoxUsage:p5.48xlarge", "SpotUsage:g6.xlarge".
func instanceTypeOfUsage(usageType string) string {
	_, t, ok := strings.Cut(usageType, ":")
	if !ok || !strings.Contains(usageType, "Usage") {
		return ""
	}
	return t
}

// checkRow refuses rows whose values contradict each other.
func checkRow(r *billing.Row) (column string, err error) {
	if !r.Start.IsZero() && !r.End.IsZero() && !r.End.After(r.Start) {
		return "ChargePeriodEnd", fmt.Errorf("charge period ends (%s) at or before it starts (%s)",
			r.End.Format(time.RFC3339), r.Start.Format(time.RFC3339))
	}
	if r.ChargeCategory == "Usage" && (r.Start.IsZero() || r.End.IsZero()) {
		return "ChargePeriodStart", fmt.Errorf("a usage row needs a charge period")
	}
	return "", nil
}
