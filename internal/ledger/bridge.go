package ledger

import (
	"fmt"

	"github.com/gpuwise/gpuwise/internal/cost"
	"github.com/gpuwise/gpuwise/internal/ledger/lever"
)

// Bridge relates the ledger's "before" to the cost report's monthly spend,
// so that the two figures never silently disagree:
//
//	report $/month = ledger before − part-window nodes + departed nodes + rounding
//
// The report extrapolates the window's node cost to a month (window cost
// × 730 ÷ window hours); the ledger prices the GPU nodes alive at the
// window's end for a whole month. Nodes alive at the end that ran only
// part of the window (created during it) are in the ledger at 730 h and
// in the report at their share; nodes that left before the end are in
// the report and not in the ledger. Rounding is at most a cent (each term
// is rounded to the cent on its own).
type Bridge struct {
	ReportUSDMonth       float64 `json:"report_usd_month"`
	WindowHours          float64 `json:"window_hours"`
	LedgerBeforeUSDMonth float64 `json:"ledger_before_usd_month"`
	PartWindowUSDMonth   float64 `json:"part_window_usd_month"`
	PartWindowNodes      int     `json:"part_window_nodes"`
	DepartedUSDMonth     float64 `json:"departed_usd_month"`
	DepartedNodes        int     `json:"departed_nodes"`
	RoundingUSD          float64 `json:"rounding_usd"`

	report, part, departed, rounding Cents
}

// relate builds the bridge from the cost engine's allocation of the same
// snapshot and prices.
func (l *Ledger) relate(in Input, m *lever.Model, a *cost.Allocation) {
	w := in.Snapshot.Window()
	factor := HoursPerMonth / w.Hours()
	var part, departed float64
	b := Bridge{WindowHours: w.Hours()}
	for i := range in.Snapshot.Nodes() {
		n := &in.Snapshot.Nodes()[i]
		price, ok := a.Prices[n.Name]
		if !ok || !n.HasGPUs() {
			continue
		}
		monthly := price.NodeUSDPerHour * w.Clip(n.Created, n.Deleted) / 3600 * factor
		if mn := m.Node(n.Name); mn != nil && mn.Priced {
			if short := price.NodeUSDPerHour*HoursPerMonth - monthly; short > 0.005 {
				part += short
				b.PartWindowNodes++
			}
			continue
		}
		departed += monthly
		b.DepartedNodes++
	}
	b.report, b.part, b.departed = CentsOf(a.NodeCost*factor), CentsOf(part), CentsOf(departed)
	b.rounding = b.report - (l.before - b.part + b.departed)
	b.ReportUSDMonth, b.LedgerBeforeUSDMonth = b.report.USD(), l.before.USD()
	b.PartWindowUSDMonth, b.DepartedUSDMonth, b.RoundingUSD = b.part.USD(), b.departed.USD(), b.rounding.USD()
	l.Bridge = b
}

// reconcile checks the bridge adds up, rounding at most a cent.
func (b *Bridge) reconcile(before Cents) error {
	if CentsOf(b.LedgerBeforeUSDMonth) != before {
		return fmt.Errorf("ledger does not reconcile: the bridge starts from %s, the ledger from %s", CentsOf(b.LedgerBeforeUSDMonth), before)
	}
	if b.rounding > 1 || b.rounding < -1 {
		return fmt.Errorf("ledger does not reconcile with the cost report: %s report ≠ %s before − %s part-window + %s departed (off by %s)",
			b.report, before, b.part, b.departed, b.rounding)
	}
	return nil
}

// Text is the bridge as one line a person reads.
func (b *Bridge) Text() string {
	return fmt.Sprintf("report %s/month = ledger before %s − %s for %d node(s) that ran part of the window + %s for %d node(s) gone before its end%s",
		b.report, CentsOf(b.LedgerBeforeUSDMonth), b.part, b.PartWindowNodes, b.departed, b.DepartedNodes, roundingText(b.rounding))
}

func roundingText(c Cents) string {
	if c == 0 {
		return ""
	}
	return fmt.Sprintf(" %+d¢ rounding", int64(c))
}
