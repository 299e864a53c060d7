package ledger

import (
	"github.com/gpuwise/gpuwise/internal/cluster"
	"github.com/gpuwise/gpuwise/internal/ledger/lever"
)

// Ledger is the savings ledger of one snapshot: the modelled cluster's
// monthly cost before and after every lever, the actions that get there
// (ranked, phased, with effort, payback, confidence, risk and evidence),
// what was found and not counted, how "before" relates to the cost
// report, and the FinOps metrics and red flags. Its JSON form is
// documented in docs/savings.md and is stable.
type Ledger struct {
	Window cluster.Window `json:"window"`
	Source string         `json:"source"`
	// Partial is what the source could not read (the snapshot's
	// Partial), said before any figure; absent when nothing is missing.
	Partial []string `json:"partial,omitempty"`
	// BeforeUSDMonth is the run-rate of the priced GPU nodes alive at the
	// window's end (node $/h × 730); AfterUSDMonth the same after every
	// action; SavingUSDMonth = before − after = Σ actions' savings, to
	// the cent.
	BeforeUSDMonth float64 `json:"before_usd_month"`
	AfterUSDMonth  float64 `json:"after_usd_month"`
	SavingUSDMonth float64 `json:"saving_usd_month"`
	// SavingShare is saving ÷ before; null when nothing is priced.
	SavingShare *float64 `json:"saving_share"`
	NodesBefore int      `json:"nodes_before"`
	NodesAfter  int      `json:"nodes_after"`
	GPUsBefore  int      `json:"gpus_before"`
	GPUsAfter   int      `json:"gpus_after"`
	// UnpricedNodes are GPU nodes without a price: in the node counts,
	// never in the dollars.
	UnpricedNodes int           `json:"unpriced_nodes"`
	Levers        []LeverResult `json:"levers"`
	Actions       []Action      `json:"actions"`
	Phases        []Phase       `json:"phases"`
	NotCounted    []NotCounted  `json:"not_counted"`
	Payback       Payback       `json:"payback"`
	Bridge        Bridge        `json:"bridge"`
	Metrics       []Metric      `json:"metrics"`
	RedFlags      []RedFlag     `json:"red_flags"`
	Summary       Summary       `json:"summary"`
	Notes         []string      `json:"notes"`

	before, after Cents
}

// Before and After are the modelled cluster's monthly cost in cents.
func (l *Ledger) Before() Cents { return l.before }

// After is the modelled cost after every action.
func (l *Ledger) After() Cents { return l.after }

// Saving is before − after.
func (l *Ledger) Saving() Cents { return l.before - l.after }

// Phase is one part of the 30/60/90-day plan.
type Phase struct {
	Phase int    `json:"phase"`
	Days  string `json:"days"`
	Name  string `json:"name"`
	// Actions are IDs in plan order.
	Actions        []string `json:"actions"`
	SavingUSDMonth float64  `json:"saving_usd_month"`
	EffortHours    float64  `json:"effort_hours"`
}

// Payback prices the whole plan's effort.
type Payback struct {
	EngineerUSDPerHour float64 `json:"engineer_usd_per_hour"`
	EffortHours        float64 `json:"effort_hours"`
	OneTimeUSD         float64 `json:"one_time_usd"`
	// Days is one-time cost ÷ daily saving; null when nothing is saved.
	Days *float64 `json:"payback_days"`
}

// Reconcile checks the ledger's invariants, to the cent: every action's
// saving is the difference of the model's cost around it and not
// negative, the actions add up to before − after, the levers add up to
// the same, and the bridge to the cost report adds up.
func (l *Ledger) Reconcile() error {
	if err := lever.Reconcile(l.Actions, l.Levers, l.before, l.after); err != nil {
		return err
	}
	return l.Bridge.reconcile(l.before)
}
