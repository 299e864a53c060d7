package render

import (
	"math"
	"strconv"
	"strings"

	"github.com/gpuwise/gpuwise/internal/inventory"
	"github.com/gpuwise/gpuwise/internal/pricing"
)

// The money family: every dollar figure render writes is formatted here
// and only here. Three forms of an amount —
//
//	money(v)     "$12,345"     whole dollars, for headlines and reports; a
//	                           positive amount that rounds to zero is "<$1",
//	                           never shown as none
//	usdCents(v)  "$12,345.67"  to the cent, for plans, the ledger, prices
//	plainUSD(v)  "12345.67"    to the cent without sign or separators, for
//	                           the columns a script reads (CSV, the audit's
//	                           tables)
//
// and, for the showback file, whose cents must add up: roundedUSD (plainUSD
// of the amount rounded half away from zero to the cent), roundedUSDOr
// ("" when unknown) and centsUSD (a whole number of cents, exactly)
//
// (machine formats that keep full precision use exact, machine.go) —
// and the wrappers every command shares for what an amount can be: a
// monthly figure (monthly, plainMonthly), a change (signedMoney), an amount that may be
// unknown (moneyOr, pricedOr: unknown is never $0) and a sum over the
// priced part of a set (withUnpriced).

// money formats dollars as "$12,345". Amounts that round to zero but are not
// zero read "<$1", so that a small cost is never shown as none.
func money(v float64) string {
	if v < 0 {
		return "-" + money(-v)
	}
	r := math.Round(v)
	if r == 0 && v > 0 {
		return "<$1"
	}
	return "$" + thousands(strconv.FormatFloat(r, 'f', 0, 64))
}

// usdCents writes dollars with thousands separators: "$12,345.67", "-$5.00".
func usdCents(v float64) string {
	sign := ""
	if v < 0 {
		sign, v = "-", -v
	}
	s := strconv.FormatFloat(v, 'f', 2, 64)
	whole, frac, _ := strings.Cut(s, ".")
	return sign + "$" + thousands(whole) + "." + frac
}

// plainUSD writes dollars to the cent with no sign or separators:
// "12345.67".
func plainUSD(v float64) string { return strconv.FormatFloat(v, 'f', 2, 64) }

// roundedUSD is v rounded half away from zero to the cent, then written as
// plainUSD: the showback file's dollar columns.
func roundedUSD(v float64) string { return plainUSD(math.Round(v*100) / 100) }

// roundedUSDOr is roundedUSD, or "" when v is unknown.
func roundedUSDOr(v *float64) string {
	if v == nil {
		return ""
	}
	return roundedUSD(*v)
}

// centsUSD writes a whole number of cents as dollars: 123456 → "1234.56",
// -5 → "-0.05"; no float rounding, so rounded totals add up exactly.
func centsUSD(c int64) string {
	neg := c < 0
	if neg {
		c = -c
	}
	s := strconv.FormatInt(c/100, 10) + "." + strconv.FormatInt(100+c%100, 10)[1:]
	if neg {
		return "-" + s
	}
	return s
}

// unitPrice is a price per unit to four decimals ("$0.0022"): per 1,000
// inferences or 100,000 tokens, where cents would round to nothing.
func unitPrice(v float64) string { return "$" + strconv.FormatFloat(v, 'f', 4, 64) }

// plainMonthly is a monthly amount to the cent without separators, as the
// audit's summary line writes it: "$12345.67/month".
func plainMonthly(v float64) string { return "$" + plainUSD(v) + "/month" }

// monthly formats a monthly dollar amount as "$12,345/month".
func monthly(v float64) string { return money(v) + "/month" }

// perMonthOfHourly is an hourly rate run for a month, in whole dollars.
func perMonthOfHourly(usdPerHour float64) string { return money(usdPerHour * pricing.HoursPerMonth) }

// signedMoney writes a change: "+$12", "-$12", "$0" within half a cent,
// "n/a" when unknown.
func signedMoney(v *float64) string {
	switch {
	case v == nil:
		return "n/a"
	case math.Abs(*v) < 0.005:
		return "$0"
	case *v < 0:
		return "-" + money(-*v)
	}
	return "+" + money(*v)
}

// moneyOr is format(*v), or none when v is nil (unpriced, no data).
func moneyOr(v *float64, none string, format func(float64) string) string {
	if v == nil {
		return none
	}
	return format(*v)
}

// freesCents is a recommendation's FREES figure to the cent; a change that
// costs more (a CPU-starved container raised, a share too small for its
// use) reads "costs $42.57 more", never as a negative saving.
func freesCents(v float64) string {
	if v < 0 {
		return "costs " + usdCents(-v) + " more"
	}
	return usdCents(v)
}

// pricedOr is format(v) when priced, or none.
func pricedOr(v float64, priced bool, none string, format func(float64) string) string {
	if !priced {
		return none
	}
	return format(v)
}

// withUnpriced formats a sum over priced nodes and says how many are left
// out; with none priced it is none, never $0.
func withUnpriced(v *float64, unpriced int, none string, format func(float64) string) string {
	switch {
	case v == nil:
		return none
	case unpriced > 0:
		return format(*v) + " + " + strconv.Itoa(unpriced) + " unpriced"
	}
	return format(*v)
}

// nodeUSDPerHour is an inventory node's $/hour, or nil when unpriced.
func nodeUSDPerHour(n inventory.Node) *float64 {
	if n.Price == nil {
		return nil
	}
	return &n.Price.NodeUSDPerHour
}
