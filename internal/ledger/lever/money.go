package lever

import (
	"math"
	"strconv"
	"strings"
)

// Cents is money in whole US cents. Every state of the modelled cluster is
// priced in Cents and every saving is a difference of two such prices, so
// savings add up to before − after exactly (no float rounding can creep
// into the sum).
type Cents int64

// CentsOf rounds dollars to the nearest cent.
func CentsOf(usd float64) Cents { return Cents(math.Round(usd * 100)) }

// USD is the amount in dollars, for JSON and arithmetic with rates.
func (c Cents) USD() float64 { return float64(c) / 100 }

// String writes dollars with thousands separators: "$12,345.67",
// "-$5.00".
func (c Cents) String() string {
	sign := ""
	if c < 0 {
		sign, c = "-", -c
	}
	whole := strconv.FormatInt(int64(c/100), 10)
	for i := len(whole) - 3; i > 0; i -= 3 {
		whole = whole[:i] + "," + whole[i:]
	}
	frac := strconv.FormatInt(int64(c%100), 10)
	return sign + "$" + whole + "." + strings.Repeat("0", 2-len(frac)) + frac
}
