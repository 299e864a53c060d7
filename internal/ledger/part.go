package ledger

import (
	"slices"

	"github.com/gpuwise/gpuwise/internal/ledger/lever"
)

// Part is a slice of the ledger that another command's figures belong
// to: the money actions of some kinds, with their prerequisites, and what
// they save out of the whole ledger.
type Part struct {
	Name                 string   `json:"name"`
	SavingUSDMonth       float64  `json:"saving_usd_month"`
	LedgerSavingUSDMonth float64  `json:"ledger_saving_usd_month"`
	Actions              []string `json:"actions"`
	Command              string   `json:"command"`
}

// Part names of the ledger.
const (
	// PartConsolidation is consolidation alone: nodes removed with every
	// pod as it is (gpuwise plan --shapes current).
	PartConsolidation = "consolidation alone"
	// PartRightSizing is what right-sized requests and GPU shapes realise
	// once packed (the re-pack actions, with the changes they need).
	PartRightSizing = "right-sizing realised by packing"
)

// Part returns the actions of the given kinds that save money, with their
// prerequisites, in plan order, and their saving.
func (l *Ledger) Part(name string, kinds ...string) Part {
	p := Part{Name: name, LedgerSavingUSDMonth: l.Saving().USD(), Actions: []string{}, Command: "gpuwise advise"}
	in := map[string]bool{}
	var saving Cents
	for _, a := range l.Actions {
		if a.Saving() <= 0 || !slices.Contains(kinds, a.Kind) {
			continue
		}
		saving += a.Saving()
		in[a.ID] = true
		for _, id := range a.Prerequisites {
			in[id] = true
		}
	}
	for _, a := range l.Actions {
		if in[a.ID] {
			p.Actions = append(p.Actions, a.ID)
		}
	}
	p.SavingUSDMonth = saving.USD()
	return p
}

// RightSizing is the right-sizing part: the re-pack actions.
func (l *Ledger) RightSizing() Part { return l.Part(PartRightSizing, lever.KindRepack) }

// Consolidation is the consolidation-alone part: the pool removals.
func (l *Ledger) Consolidation() Part { return l.Part(PartConsolidation, lever.KindRemoveNodes) }
