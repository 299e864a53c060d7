package lever

import "fmt"

// Level grades confidence and risk.
type Level string

// Levels, best first for confidence and lowest first for risk.
const (
	High   Level = "high"
	Medium Level = "medium"
	Low    Level = "low"
)

// Rank orders levels: low 0, medium 1, high 2.
func (l Level) Rank() int {
	switch l {
	case High:
		return 2
	case Medium:
		return 1
	}
	return 0
}

// lower is the lower of two levels.
func lower(a, b Level) Level {
	if b.Rank() < a.Rank() {
		return b
	}
	return a
}

// higher is the higher of two levels.
func higher(a, b Level) Level {
	if b.Rank() > a.Rank() {
		return b
	}
	return a
}

// Action is one thing to do, what it saves on top of the actions before it,
// and what it takes. Its JSON form is documented in docs/savings.md and is
// stable.
type Action struct {
	// ID is "A1", "A2"… in plan order (phase, then rank); Rank is the
	// position in that order. Key is stable across runs on the same data:
	// lever, kind and target ("consolidate:remove-nodes:<pool>").
	ID    string `json:"id"`
	Rank  int    `json:"rank"`
	Key   string `json:"key"`
	Lever string `json:"lever"`
	// Kind refines the lever: remove-nodes, prepare-nodes, repack,
	// resize, mig, time-slice, cheaper-model.
	Kind  string `json:"kind"`
	Title string `json:"title"`
	// Target names the main object (a node pool, a workload
	// "namespace/Kind/name", a node); Targets lists every object.
	Target  string   `json:"target"`
	Targets []Target `json:"targets"`
	// Phase is 1 (days 0–30, quick wins), 2 (31–60, configuration
	// changes) or 3 (61–90, capacity changes); PhaseDays spells it.
	Phase     int    `json:"phase"`
	PhaseDays string `json:"phase_days"`
	// SavingUSDMonth is the drop in the modelled cluster's monthly cost
	// that this action causes on top of every action before it in the
	// lever sequence. Prerequisites save $0 on their own: the action that
	// realises them (RealisedBy) carries the money.
	SavingUSDMonth      float64 `json:"saving_usd_month"`
	ModelBeforeUSDMonth float64 `json:"model_before_usd_month"`
	ModelAfterUSDMonth  float64 `json:"model_after_usd_month"`
	// EffortHours is engineer-hours for this action alone (docs/savings.md
	// effort table); BundleEffortHours adds the prerequisites first
	// scheduled with it, and OneTimeUSD prices the bundle at the
	// engineering rate. PaybackDays = OneTimeUSD ÷ daily saving; null for
	// an action that saves nothing on its own.
	EffortHours       float64  `json:"effort_hours"`
	BundleEffortHours float64  `json:"bundle_effort_hours"`
	OneTimeUSD        float64  `json:"one_time_usd"`
	PaybackDays       *float64 `json:"payback_days"`
	Confidence        Level    `json:"confidence"`
	ConfidenceReason  string   `json:"confidence_reason"`
	Risk              Level    `json:"risk"`
	RiskReason        string   `json:"risk_reason"`
	// Prerequisites are the IDs of actions that must be done first;
	// RealisedBy the IDs of the actions that turn this one into money.
	Prerequisites []string   `json:"prerequisites"`
	RealisedBy    []string   `json:"realised_by,omitempty"`
	Why           string     `json:"why"`
	Evidence      []Evidence `json:"evidence"`
	Artefacts     []Artefact `json:"artefacts"`
	// Items are the workloads of a grouped action (right-sized requests,
	// GPU shapes): one per workload the ledger counts, with its own
	// evidence, confidence, risk and effort. The action's effort is their
	// sum plus the fixed part; its confidence their lowest, its risk their
	// highest. Workloads nothing realises are in NotCounted instead.
	Items []Item `json:"items,omitempty"`

	saving   Cents
	requires []string // keys of prerequisite actions
	// weight orders changes that are not counted: right-sizing's own
	// estimate of the cost they free (never shown as a saving).
	weight float64
	// title names a grouped action for its number of items.
	title func(n int) string
}

// Item is one workload of a grouped action.
type Item struct {
	Target           string     `json:"target"`
	Why              string     `json:"why"`
	EffortHours      float64    `json:"effort_hours"`
	Confidence       Level      `json:"confidence"`
	ConfidenceReason string     `json:"confidence_reason"`
	Risk             Level      `json:"risk"`
	RiskReason       string     `json:"risk_reason"`
	Evidence         []Evidence `json:"evidence"`
	Files            []string   `json:"files,omitempty"`

	key    string // the workload change's key, for Unrealised
	weight float64
}

// group sets a grouped action's targets, effort, confidence, risk,
// evidence, files and title from its items.
func (a *Action) group() {
	a.Targets, a.EffortHours = nil, effortAction
	a.Confidence, a.Risk = High, Low
	var files []string
	for i := range a.Items {
		it := &a.Items[i]
		a.Targets = append(a.Targets, Target{Kind: "workload", Name: it.Target})
		a.EffortHours += it.EffortHours
		if i == 0 || it.Confidence.Rank() < a.Confidence.Rank() {
			a.Confidence, a.ConfidenceReason = it.Confidence, it.Target+": "+it.ConfidenceReason
		}
		if i == 0 || it.Risk.Rank() > a.Risk.Rank() {
			a.Risk, a.RiskReason = it.Risk, it.Target+": "+it.RiskReason
		}
		files = append(files, it.Files...)
	}
	a.Target = fmt.Sprintf("%d workload(s)", len(a.Items))
	if len(a.Items) == 1 {
		a.Target = a.Items[0].Target
	}
	if len(a.Items) > 1 {
		a.ConfidenceReason = "lowest of " + fmt.Sprint(len(a.Items)) + " workloads: " + a.ConfidenceReason
		a.RiskReason = "highest of " + fmt.Sprint(len(a.Items)) + " workloads: " + a.RiskReason
	}
	a.Evidence = []Evidence{{Name: "workloads", Value: float64(len(a.Items)), Unit: "workloads"}}
	for i := range a.Artefacts {
		a.Artefacts[i].Files = files
	}
	a.Title = a.title(len(a.Items))
}

// Saving is the action's saving in cents.
func (a *Action) Saving() Cents { return a.saving }

// Requires are the keys of the actions this one needs done first.
func (a *Action) Requires() []string { return a.requires }

// NotCounted is the action as a change not counted, for the reason given.
func (a *Action) NotCounted(reason string) NotCounted {
	return NotCounted{Lever: a.Lever, Target: a.Target, Reason: reason, weight: a.weight}
}

// Trim moves a grouped action's items that nothing realises to the
// not-counted list (all of them when the action itself is not needed) and
// regroups the rest.
func (a *Action) Trim(needed bool, unrealised map[string]string) []NotCounted {
	var out []NotCounted
	var kept []Item
	for _, it := range a.Items {
		why, ok := unrealised[it.key]
		if needed && !ok {
			kept = append(kept, it)
			continue
		}
		if !ok {
			why = "saves nothing on its own and no later lever realises it"
		}
		out = append(out, NotCounted{Lever: a.Lever, Target: it.Target, Reason: why, weight: it.weight})
	}
	if needed {
		a.Items = kept
		a.group()
	}
	return out
}

// Target is one object an action changes.
type Target struct {
	// Kind is node, pool or workload.
	Kind string `json:"kind"`
	Name string `json:"name"`
}

// Evidence is one number an action stands on.
type Evidence struct {
	Name  string  `json:"name"`
	Value float64 `json:"value"`
	Unit  string  `json:"unit"`
}

// Artefact is the gpuwise command that writes the files that carry an
// action out, and the files (relative to its -d directory) that matter.
type Artefact struct {
	Command string   `json:"command"`
	Files   []string `json:"files,omitempty"`
}

// NotCounted is a change gpuwise found but does not count: it saves
// nothing the model can realise, or needs data that is missing.
type NotCounted struct {
	Lever  string `json:"lever"`
	Target string `json:"target"`
	Reason string `json:"reason"`

	weight float64
}

// Weight orders changes not counted (the larger first): right-sizing's
// own estimate of the cost they free, never shown as a saving.
func (n NotCounted) Weight() float64 { return n.weight }
