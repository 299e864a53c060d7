package render

import "testing"

func TestDisplayNumbers(t *testing.T) {
	tests := []struct {
		name string
		got  string
		want string
	}{
		{name: "money rounds to dollars", got: money(12345.49), want: "$12,345"},
		{name: "money rounds half up", got: money(999.5), want: "$1,000"},
		{name: "money over a million", got: money(1234567), want: "$1,234,567"},
		{name: "money zero", got: money(0), want: "$0"},
		{name: "money below a dollar is not zero", got: money(0.3), want: "<$1"},
		{name: "money negative", got: money(-1500), want: "-$1,500"},
		{name: "percent one decimal", got: percent(ptr(0.2345)), want: "23.4%"},
		{name: "percent of nothing is n/a, not 0%", got: percent(nil), want: "n/a"},
		{name: "percent zero is real zero", got: percent(ptr(0)), want: "0.0%"},
		{name: "hours one decimal with separators", got: hours(12345.67), want: "12,345.7"},
		{name: "hours negative zero", got: hours(-0.01), want: "0.0"},
		{name: "gpus two decimals", got: gpus(0.125), want: "0.12"},
		{name: "window hours whole", got: windowHours(168), want: "168 h"},
		{name: "window hours fraction", got: windowHours(1.25), want: "1.3 h"},
		{name: "truncate keeps short keys", got: truncate("ml", 5), want: "ml"},
		{name: "truncate marks the cut", got: truncate("inference", 5), want: "infe…"},
		{name: "truncate counts runes", got: truncate("äöüäöü", 4), want: "äöü…"},
		{name: "truncate 0 means no limit", got: truncate("inference", 0), want: "inference"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.got != tt.want {
				t.Errorf("got %q, want %q", tt.got, tt.want)
			}
		})
	}
}
