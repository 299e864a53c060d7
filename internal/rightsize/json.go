package rightsize

import (
	"encoding/json"
	"math"
)

// The JSON form (docs/recommendations.md) writes durations as hours.

// MarshalJSON adds window_hours.
func (r Result) MarshalJSON() ([]byte, error) {
	type plain Result
	return json.Marshal(struct {
		WindowHours float64 `json:"window_hours"`
		plain
	}{jsonHours(r.Window.Hours()), plain(r)})
}

// MarshalJSON adds window_hours, observed_hours and span_hours.
func (e Evidence) MarshalJSON() ([]byte, error) {
	type plain Evidence
	return json.Marshal(struct {
		WindowHours   float64 `json:"window_hours"`
		ObservedHours float64 `json:"observed_hours"`
		SpanHours     float64 `json:"span_hours"`
		plain
	}{jsonHours(e.Window.Hours()), jsonHours(e.Observed.Hours()), jsonHours(e.Span.Hours()), plain(e)})
}

func jsonHours(h float64) float64 { return math.Round(h*100) / 100 }
