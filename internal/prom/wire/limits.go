package wire

import "fmt"

// Limits bound what one answer may hold, so that a runaway or hostile
// answer (millions of series, a label of hundreds of megabytes) fails
// with an error naming the limit instead of exhausting memory. Zero means
// no limit.
type Limits struct {
	// MaxSeries is the most series one answer may hold.
	MaxSeries int
	// MaxLabelBytes is the longest label name or value, and JSON string,
	// an answer may hold.
	MaxLabelBytes int
}

// LimitError says an answer went past one of the Limits.
type LimitError struct {
	What  string // "series in one answer", "bytes in one label"
	Limit int64
	// Option names the setting that raises the limit.
	Option string
}

func (e *LimitError) Error() string {
	return fmt.Sprintf("more than %d %s (raise the limit with %s)", e.Limit, e.What, e.Option)
}

func (l Limits) seriesError() error {
	return &LimitError{What: "series in one answer", Limit: int64(l.MaxSeries), Option: "--prometheus-max-series"}
}

func (l Limits) labelError() error {
	return &LimitError{What: "bytes in one label or string", Limit: int64(l.MaxLabelBytes), Option: "--prometheus-max-label-bytes"}
}

// tooMany reports whether n series are past the limit.
func (l Limits) tooMany(n int) bool { return l.MaxSeries > 0 && n > l.MaxSeries }

// tooLong reports whether a label or string of n bytes is past the limit.
func (l Limits) tooLong(n int) bool { return l.MaxLabelBytes > 0 && n > l.MaxLabelBytes }
