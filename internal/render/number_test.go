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
		{name: "cents with separators", got: usdCents(1234567.891), want: "$1,234,567.89"},
		{name: "cents negative", got: usdCents(-5), want: "-$5.00"},
		{name: "cents below a thousand", got: usdCents(999.999), want: "$1,000.00"},
		{name: "plain cents for scripts", got: plainUSD(12345.678), want: "12345.68"},
		{name: "monthly", got: monthly(1460), want: "$1,460/month"},
		{name: "an hourly rate for a month", got: perMonthOfHourly(2), want: "$1,460"},
		{name: "a change up", got: signedMoney(ptr(12.4)), want: "+$12"},
		{name: "a change down", got: signedMoney(ptr(-12.6)), want: "-$13"},
		{name: "no change within half a cent", got: signedMoney(ptr(-0.004)), want: "$0"},
		{name: "an unknown change", got: signedMoney(nil), want: "n/a"},
		{name: "unknown money is not $0", got: moneyOr(nil, "unpriced", usdCents), want: "unpriced"},
		{name: "known money", got: moneyOr(ptr(0), "unpriced", usdCents), want: "$0.00"},
		{name: "unpriced money is not $0", got: pricedOr(0, false, "n/a", usdCents), want: "n/a"},
		{name: "a sum with unpriced nodes says so", got: withUnpriced(ptr(10), 2, "unpriced", usdCents), want: "$10.00 + 2 unpriced"},
		{name: "a sum of priced nodes", got: withUnpriced(ptr(10), 0, "unpriced", usdCents), want: "$10.00"},
		{name: "a sum with none priced", got: withUnpriced(nil, 3, "n/a (unpriced)", usdCents), want: "n/a (unpriced)"},
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
