package billing

import (
	"fmt"
	"strings"
	"time"

	"github.com/gpuwise/gpuwise/internal/pricing"
)

// Pricer prices a bound node at the bill's effective rate for its billed
// hours and at the fallback (the catalog or an override) for the rest;
// a node the bill does not cover is the fallback's alone.
type Pricer struct {
	Fallback pricing.Pricer
	Match    *Match
}

// Price implements pricing.Pricer.
func (p *Pricer) Price(n pricing.NodeSpec) (pricing.NodePrice, error) {
	fb, fbErr := p.Fallback.Price(n)
	nb := p.Match.Node(n.Name)
	if nb != nil && !runsAs(nb, n) {
		nb = nil // a what-if: the node on other capacity or another type
	}
	if nb == nil || nb.BilledHours <= 0 || nb.Hours <= 0 {
		if n.Capacity == pricing.Spot {
			if rate, hours, ok := p.Match.SpotRate(n.InstanceType); ok {
				var sp pricing.NodePrice
				if fbErr == nil {
					sp = pricing.Rescale(fb, rate)
				} else {
					sp = pricing.SplitPrice(rate, n)
				}
				sp.Source = fmt.Sprintf("%s spot effective rate of %s ($%.4f/h over %.1f billed h)", p.Match.Bill.Describe(), n.InstanceType, rate, hours)
				sp.Origin, sp.AsOf = pricing.OriginBill, p.asOf()
				return sp, nil
			}
		}
		return fb, fbErr
	}
	uncovered := max(nb.Hours-nb.BilledHours, 0)
	var price float64
	var np pricing.NodePrice
	desc := fmt.Sprintf("%s %s effective $%.4f/h", p.Match.Bill.Describe(), nb.ResourceID, nb.Rate())
	switch {
	case uncovered < 1e-9:
		price = nb.Rate()
	case fbErr == nil:
		price = (nb.USD + fb.NodeUSDPerHour*uncovered) / nb.Hours
		p.Match.mu.Lock()
		p.Match.fallback[n.Name] = fb.NodeUSDPerHour
		p.Match.mu.Unlock()
		desc += fmt.Sprintf(" for %.2f of %.2f h, %s for the rest", nb.BilledHours, nb.Hours, fb.Source)
	default:
		price = nb.Rate()
		desc += fmt.Sprintf(" for %.2f of %.2f h, extended to the rest (nothing else prices it)", nb.BilledHours, nb.Hours)
	}
	if fbErr == nil {
		np = pricing.Rescale(fb, price)
	} else {
		np = pricing.SplitPrice(price, n)
	}
	np.Source, np.Origin, np.AsOf = desc, pricing.OriginBill, p.asOf()
	return np, nil
}

// asOf is the date of the latest charge the window uses.
func (p *Pricer) asOf() string {
	end := p.Match.End
	if _, last := p.Match.Bill.Span(); !last.IsZero() && last.Before(end) {
		end = last
	}
	return end.Add(-time.Second).UTC().Format(time.DateOnly)
}

// runsAs says whether a spec is the bound node as it runs (its own
// instance type and capacity), not a what-if on it.
func runsAs(nb *NodeBill, n pricing.NodeSpec) bool {
	if nb.InstanceType != "" && n.InstanceType != "" && !strings.EqualFold(nb.InstanceType, n.InstanceType) {
		return false
	}
	return nb.Capacity == "" || n.Capacity == "" || string(n.Capacity) == nb.Capacity
}

// CommitmentDiscount is the discount the bill's commitments realised on
// the cluster's GPU nodes in the window: 1 − their covered charges'
// amortized cost ÷ those charges' list cost, with where it comes from
// ("bill x.csv, savings plan arn:…: $a amortized for $b list, charges up
// to 2026-11-07"); ok is false when the bill shows no commitment with a
// list cost on them.
func (p *Pricer) CommitmentDiscount() (discount float64, source string, ok bool) {
	amortized, list, ids, ok := p.Match.Commitments()
	if !ok {
		return 0, "", false
	}
	names := "commitments"
	if len(ids) > 0 {
		names = strings.Join(ids, ", ")
	}
	return 1 - amortized/list, fmt.Sprintf("%s, %s: $%.2f amortized for $%.2f list, charges up to %s",
		p.Match.Bill.Describe(), names, amortized, list, p.asOf()), true
}

// CommittedShare is the part of a node's billed cost in the window that
// the bill's commitments covered.
func (p *Pricer) CommittedShare(node string) float64 { return p.Match.CommittedShare(node) }
