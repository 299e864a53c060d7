package ledger

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/gpuwise/gpuwise/internal/ledger/lever"
)

// daysPerMonth turns a monthly saving into a daily one for payback.
const daysPerMonth = HoursPerMonth / 24.0

// quickWinHours is the most effort (with prerequisites) a phase-1 action
// may take.
const quickWinHours = 8

// phase names and day ranges.
var phases = []struct{ days, name string }{
	{"0-30", "quick wins"},
	{"31-60", "configuration changes"},
	{"61-90", "capacity changes"},
}

// kindPhase is the earliest phase an action's kind allows: request
// changes are quick wins; MIG and time-slicing change node configuration;
// a cheaper GPU model changes what capacity is bought. Removing nodes is a
// quick win when it and its prerequisites take at most quickWinHours and
// its risk is not high, else a configuration change. effort includes the
// prerequisites'.
func kindPhase(a *Action, effort float64) int {
	switch a.Kind {
	case lever.KindResize:
		return 1
	case lever.KindCheaperModel, lever.KindCommit, lever.KindRegion:
		return 3
	case lever.KindRemoveNodes, lever.KindRepack:
		if effort <= quickWinHours && a.Risk != High {
			return 1
		}
	}
	return 2
}

// plan turns the levers' actions into the ledger's plan: actions that
// save money, with the prerequisites they realise; changes that save
// nothing and realise nothing go to NotCounted with the reason. Then
// confidence is carried from prerequisites, actions are ranked by saving
// per effort hour (a bundle at a time: an action with the prerequisites
// not yet scheduled), phased, numbered and priced for payback.
func (l *Ledger) plan(r *lever.Result, rate float64) {
	byKey := make(map[string]*Action, len(r.Actions))
	for i := range r.Actions {
		byKey[r.Actions[i].Key] = &r.Actions[i]
	}
	need := map[string][]string{} // prerequisite key → money actions that need it
	for i := range r.Actions {
		if a := &r.Actions[i]; a.Saving() > 0 {
			for _, k := range closure(a, byKey) {
				need[k] = append(need[k], a.Key)
			}
		}
	}
	var kept []*Action
	for i := range r.Actions {
		a := &r.Actions[i]
		needed := a.Saving() > 0 || len(need[a.Key]) > 0
		if len(a.Items) > 0 {
			l.NotCounted = append(l.NotCounted, a.Trim(needed, r.Unrealised)...)
		} else if !needed {
			l.NotCounted = append(l.NotCounted, a.NotCounted(unrealisedWhy(a, r.Unrealised)))
		}
		if needed {
			kept = append(kept, a)
		}
	}
	// Changes found and not realised first, the larger first, then what
	// had too little data.
	slices.SortStableFunc(l.NotCounted, func(a, b NotCounted) int { return cmp.Compare(b.Weight(), a.Weight()) })
	l.NotCounted = append(l.NotCounted, r.NotCounted...)
	if len(l.Partial) > 0 {
		for _, a := range kept {
			capPartial(a, l.Partial[0])
		}
	}
	for _, a := range kept {
		if a.Saving() > 0 {
			inherit(a, closure(a, byKey), byKey)
		}
	}
	order, bundles := rank(kept, byKey, need)
	l.number(order, byKey, need)
	l.price(order, bundles, rate)
	l.count()
}

// unrealisedWhy is why an action that saves nothing is not counted.
func unrealisedWhy(a *Action, unrealised map[string]string) string {
	if why := unrealised[a.Key]; why != "" {
		return why
	}
	if a.Lever == LeverConsolidate {
		return "its nodes have no price: removing them saves nothing the ledger can count"
	}
	return "saves nothing on its own and no later lever realises it"
}

// closure lists an action's prerequisites, transitively, each once,
// prerequisites before the actions that need them.
func closure(a *Action, byKey map[string]*Action) []string {
	var out []string
	seen := map[string]bool{a.Key: true}
	var walk func(x *Action)
	walk = func(x *Action) {
		for _, k := range x.Requires() {
			if p := byKey[k]; p != nil && !seen[k] {
				seen[k] = true
				walk(p)
				out = append(out, k)
			}
		}
	}
	walk(a)
	return out
}

// capPartial lowers a high-confidence action (and its items) to medium
// when the read was partial (issue 31 H1, DESIGN.md "Missing data is
// never zero"): a series family or query the source could not give may
// be what the action rests on (with no DCGM series every GPU is
// unmeasured and a MIG node's layout is laid out from the inventory), so
// no action is asserted with high confidence until the read is complete.
// first is the partial list's first entry, named in the reason up to its
// first parenthesis or colon.
func capPartial(a *Action, first string) {
	const why = "; but the read is partial (%s): at most medium until it is complete"
	if i := strings.IndexAny(first, "(:"); i > 0 {
		first = strings.TrimSpace(first[:i])
	}
	if a.Confidence == High {
		a.Confidence, a.ConfidenceReason = Medium, a.ConfidenceReason+fmt.Sprintf(why, first)
	}
	for i := range a.Items {
		if it := &a.Items[i]; it.Confidence == High {
			it.Confidence, it.ConfidenceReason = Medium, it.ConfidenceReason+fmt.Sprintf(why, first)
		}
	}
}

// inherit lowers an action's confidence to its weakest prerequisite's:
// the money depends on them.
func inherit(a *Action, prereqs []string, byKey map[string]*Action) {
	for _, k := range prereqs {
		p := byKey[k]
		if p.Confidence.Rank() < a.Confidence.Rank() {
			a.Confidence = p.Confidence
			a.ConfidenceReason = fmt.Sprintf("%s; a prerequisite (%s) is %s: %s", a.ConfidenceReason, p.Target, p.Confidence, p.ConfidenceReason)
		}
	}
}

// rank orders the actions in plan order: repeatedly the money action of
// the earliest phase whose bundle (it and its prerequisites not yet
// scheduled) saves the most per effort hour, prerequisites first; then
// stably by phase, so that a prerequisite (never in a later phase than
// what needs it) sits in its own phase, still before what needs it. Each
// money action's bundle effort is then read off that order: its own and
// that of its prerequisites no earlier money action took.
func rank(actions []*Action, byKey map[string]*Action, need map[string][]string) ([]*Action, map[string]float64) {
	for _, a := range actions {
		effort := a.EffortHours
		for _, k := range closure(a, byKey) {
			effort += byKey[k].EffortHours
		}
		a.Phase = kindPhase(a, effort)
	}
	phase(actions, byKey, need)
	done := map[string]bool{}
	var order []*Action
	for {
		best, keys := next(actions, byKey, done)
		if best == nil {
			break
		}
		for _, k := range keys {
			done[k] = true
			order = append(order, byKey[k])
		}
	}
	slices.SortStableFunc(order, func(a, b *Action) int { return cmp.Compare(a.Phase, b.Phase) })
	bundles := map[string]float64{}
	taken := map[string]bool{}
	for _, a := range order {
		if a.Saving() > 0 {
			_, bundles[a.Key] = bundle(a, byKey, taken)
			for _, k := range append(closure(a, byKey), a.Key) {
				taken[k] = true
			}
		}
	}
	return order, bundles
}

// next is the money action to schedule next (see before) and its bundle's
// keys, prerequisites first; nil when every one is done.
func next(actions []*Action, byKey map[string]*Action, done map[string]bool) (*Action, []string) {
	var best *Action
	var bestKeys []string
	bestRatio := 0.0
	for _, a := range actions {
		if a.Saving() <= 0 || done[a.Key] {
			continue
		}
		keys, effort := bundle(a, byKey, done)
		ratio := math.Inf(1)
		if effort > 0 {
			ratio = float64(a.Saving()) / effort
		}
		if best == nil || before(a, ratio, best, bestRatio) {
			best, bestKeys, bestRatio = a, keys, ratio
		}
	}
	return best, bestKeys
}

// before orders candidate bundles: earlier phase, then more saving per
// effort hour, then more saving, then key.
func before(a *Action, ra float64, b *Action, rb float64) bool {
	if a.Phase != b.Phase {
		return a.Phase < b.Phase
	}
	if ra != rb {
		return ra > rb
	}
	return cmp.Or(cmp.Compare(b.Saving(), a.Saving()), cmp.Compare(a.Key, b.Key)) < 0
}

// bundle is an action with its prerequisites not yet done, prerequisites
// first, and their effort.
func bundle(a *Action, byKey map[string]*Action, done map[string]bool) ([]string, float64) {
	var keys []string
	var effort float64
	for _, k := range append(closure(a, byKey), a.Key) {
		if !done[k] {
			keys, effort = append(keys, k), effort+byKey[k].EffortHours
		}
	}
	return keys, effort
}

// phase raises every action to at least the phase of its prerequisites,
// so that no action is planned before what it needs; then puts each
// prerequisite in the earliest phase of the actions that need it (not
// earlier: a request change that only a later re-pack turns into money is
// done in that re-pack's phase).
func phase(actions []*Action, byKey map[string]*Action, need map[string][]string) {
	for _, a := range actions {
		for _, k := range closure(a, byKey) {
			a.Phase = max(a.Phase, byKey[k].Phase)
		}
	}
	for _, a := range actions {
		if a.Saving() > 0 {
			continue
		}
		first := 0
		for _, k := range need[a.Key] {
			if p := byKey[k].Phase; first == 0 || p < first {
				first = p
			}
		}
		a.Phase = max(a.Phase, first)
	}
}

// number gives actions their IDs and rank in plan order and turns keys
// into IDs.
func (l *Ledger) number(order []*Action, byKey map[string]*Action, need map[string][]string) {
	id := make(map[string]string, len(order))
	for i, a := range order {
		a.Rank, a.ID = i+1, fmt.Sprintf("A%d", i+1)
		id[a.Key] = a.ID
		a.PhaseDays = phases[a.Phase-1].days
	}
	l.Actions = make([]Action, len(order))
	for i, a := range order {
		a.Prerequisites = []string{}
		for _, k := range a.Requires() {
			if byKey[k] != nil {
				a.Prerequisites = append(a.Prerequisites, id[k])
			}
		}
		for _, k := range need[a.Key] {
			a.RealisedBy = append(a.RealisedBy, id[k])
		}
		l.Actions[i] = *a
	}
}

// price sets bundle effort, one-time cost and payback per money action,
// and the phases and plan totals.
func (l *Ledger) price(order []*Action, bundles map[string]float64, rate float64) {
	l.Payback = Payback{EngineerUSDPerHour: rate}
	for i := range phases {
		l.Phases = append(l.Phases, Phase{Phase: i + 1, Days: phases[i].days, Name: phases[i].name, Actions: []string{}})
	}
	for i := range l.Actions {
		a := &l.Actions[i]
		ph := &l.Phases[a.Phase-1]
		ph.Actions = append(ph.Actions, a.ID)
		ph.EffortHours += a.EffortHours
		ph.SavingUSDMonth = (CentsOf(ph.SavingUSDMonth) + a.Saving()).USD()
		l.Payback.EffortHours += a.EffortHours
		if a.Saving() > 0 {
			a.BundleEffortHours = bundles[a.Key]
			a.OneTimeUSD = round2(a.BundleEffortHours * rate)
			a.PaybackDays = payback(a.OneTimeUSD, a.Saving())
		} else {
			a.BundleEffortHours = a.EffortHours
		}
	}
	l.Payback.OneTimeUSD = round2(l.Payback.EffortHours * rate)
	var total Cents
	for i := range l.Actions {
		total += l.Actions[i].Saving()
	}
	l.Payback.Days = payback(l.Payback.OneTimeUSD, total)
}

// payback is days until a one-time cost is paid back by a monthly saving;
// nil when nothing is saved.
func payback(oneTime float64, saving Cents) *float64 {
	if saving <= 0 {
		return nil
	}
	d := math.Round(oneTime/(saving.USD()/daysPerMonth)*10) / 10
	return &d
}

// count fills the per-lever action counts.
func (l *Ledger) count() {
	for i := range l.Levers {
		lr := &l.Levers[i]
		lr.NotCounted = 0
		for _, a := range l.Actions {
			if a.Lever == lr.Name {
				lr.Actions++
			}
		}
		for _, n := range l.NotCounted {
			if n.Lever == lr.Name {
				lr.NotCounted++
			}
		}
	}
}

// round2 rounds dollars or days to two decimals for display.
func round2(v float64) float64 { return math.Round(v*100) / 100 }
