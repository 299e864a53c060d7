package tracker

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/gpuwise/gpuwise/internal/cluster"
	"github.com/gpuwise/gpuwise/internal/ledger"
)

// Status is where an action stands on the checklist.
type Status string

// Statuses. Applied and Partly come from what the cluster shows (or an
// Applied mark); Rejected only from a user's mark.
const (
	Pending  Status = "pending"
	Partly   Status = "partly"
	Applied  Status = "applied"
	Rejected Status = "rejected"
)

// Why an action left the plan (Action.Retired).
const (
	Done       = "done"       // applied, so the ledger proposes it no more
	Obsolete   = "obsolete"   // no longer proposed and not applied: its targets or the data changed
	Superseded = "superseded" // another action now covers its targets
)

// Plan is one cluster's tracked plan: the baseline and every action the
// ledger ever proposed, in the order first proposed.
type Plan struct {
	Cluster  string    `json:"cluster"`
	Baseline *Baseline `json:"baseline"`
	// Updated is the end of the last window observed; Observations counts
	// them.
	Updated      time.Time `json:"updated"`
	Observations int       `json:"observations"`
	Actions      []*Action `json:"actions"`
	// Nodes are the GPU nodes the observations showed, with the facts
	// realisation scopes actions by (its GPU model, instance and capacity
	// type, region, when it started); a node unseen for NodeMemory is
	// forgotten.
	Nodes map[string]NodeFacts `json:"nodes"`
	// Flags are the red flags watched after each applied action, on the
	// last window observed (Realise adds the measured cost rise).
	Flags []Flag `json:"flags,omitempty"`
}

// The groundwork the plan tracks besides the ledger's actions: the GPU
// taint (the ledger's days 0–30 foundation F1), and the admission
// policies, VPAs and DCGM exporter (F2–F4, controls.go). It saves nothing
// itself.
const (
	Groundwork = "groundwork"
	KindTaint  = "taint"
)

// NodeMemory is how long the plan remembers a node no window showed.
const NodeMemory = 35 * 24 * time.Hour

// Figures are the cost report's figures of one window, which the use case
// hands in (the tracker prices nothing itself).
type Figures struct {
	// SpendUSD is the report's priced total over the window and
	// SpendUSDMonth its run-rate (× 730 / window hours).
	SpendUSD      float64 `json:"spend_usd"`
	SpendUSDMonth float64 `json:"spend_usd_month"`
	// Utilization is active ÷ (provisioned − unmeasured) GPU-hours; nil
	// when nothing held was measured.
	Utilization *float64 `json:"utilization"`
	// UnusedGPUUSD is the unused GPU cost (allocated-idle + unallocated
	// GPU dollars) over the window.
	UnusedGPUUSD float64 `json:"unused_gpu_usd"`
}

// Baseline is day 0: the first window observed, pinned.
type Baseline struct {
	At     time.Time      `json:"at"`
	Window cluster.Window `json:"window"`
	Figures
	// The ledger's modelled cluster then: before, after and the saving it
	// predicted ($/month).
	LedgerBeforeUSDMonth float64 `json:"ledger_before_usd_month"`
	LedgerAfterUSDMonth  float64 `json:"ledger_after_usd_month"`
	LedgerSavingUSDMonth float64 `json:"ledger_saving_usd_month"`
	// Actions are the tracked ids of the baseline ledger's actions, in
	// its plan order, then its tracked groundwork (F1–F4).
	Actions []string `json:"actions"`
}

// Action is one ledger action as tracked over time.
type Action struct {
	// ID is stable: the lever and a digest of the ledger's key (lever,
	// kind, target), so an action proposed again keeps it.
	ID     string `json:"id"`
	Key    string `json:"key"`
	Lever  string `json:"lever"`
	Kind   string `json:"kind"`
	Title  string `json:"title"`
	Target string `json:"target"`
	Phase  int    `json:"phase"`
	// PlanID is the ledger's positional id ("A3") in the latest plan that
	// proposed it.
	PlanID string `json:"plan_id"`
	// PredictedUSDMonth is the saving when first proposed;
	// LatestPredictedUSDMonth the latest ledger's.
	PredictedUSDMonth       float64 `json:"predicted_usd_month"`
	LatestPredictedUSDMonth float64 `json:"latest_predicted_usd_month"`
	// Prerequisite actions save nothing on their own; RealisedBy names the
	// tracked ids that carry their money.
	Prerequisite  bool      `json:"prerequisite"`
	RealisedBy    []string  `json:"realised_by,omitempty"`
	FirstProposed time.Time `json:"first_proposed"`
	LastProposed  time.Time `json:"last_proposed"`
	// Proposed is whether the latest ledger still proposes it; Retired
	// (done, obsolete, superseded) and RetiredWhy say why not.
	Proposed   bool      `json:"proposed"`
	Retired    string    `json:"retired,omitempty"`
	RetiredWhy string    `json:"retired_why,omitempty"`
	RetiredAt  time.Time `json:"retired_at,omitzero"`
	// Status is the checklist's: what the cluster shows, or the user's
	// mark. Detected/Of count the targets the cluster shows applied (3 of
	// 10 workloads); Of is 0 where the cluster cannot show it
	// (Detection says why).
	Status    Status `json:"status"`
	Detected  int    `json:"detected"`
	Of        int    `json:"of"`
	Detection string `json:"detection"`
	// AppliedAt is the first window end at which the cluster showed it
	// applied (wholly, or partly), or the mark's time.
	AppliedAt time.Time `json:"applied_at,omitzero"`
	// Targets are what detection checks, with the facts captured when the
	// action was first proposed.
	Targets []Target `json:"targets"`
	Mark    *Mark    `json:"mark,omitempty"`
}

// Target is one object an action changes and what applied means for it.
type Target struct {
	Kind string `json:"kind"` // node, pool, workload
	Name string `json:"name"`
	// Expect says what the cluster must show; Seen what it showed last.
	Expect string `json:"expect"`
	Seen   string `json:"seen"`
	// Applied is whether it showed the change at the last observation;
	// AppliedAt when it first did.
	Applied   bool      `json:"applied"`
	AppliedAt time.Time `json:"applied_at,omitzero"`
	// Facts captured at first proposal: a workload's pod CPU (cores) and
	// memory (GiB) requests then and the values recommended, its GPU
	// model; a node's GPU model, instance type and MIG layout; the region
	// a move goes to.
	CPUNow   float64 `json:"cpu_now,omitempty"`
	CPUNew   float64 `json:"cpu_new,omitempty"`
	MemNow   float64 `json:"memory_gib_now,omitempty"`
	MemNew   float64 `json:"memory_gib_new,omitempty"`
	Model    string  `json:"gpu_model,omitempty"`
	Instance string  `json:"instance_type,omitempty"`
	Layout   string  `json:"layout,omitempty"`
	Region   string  `json:"region,omitempty"`
}

// Mark is a user's word on an action: applied or rejected.
type Mark struct {
	Status Status    `json:"status"`
	At     time.Time `json:"at"`
	Note   string    `json:"note,omitempty"`
}

// Observation is one window's results: the cluster as the window's end
// shows it, the ledger on the window and the report's figures.
type Observation struct {
	Window   cluster.Window
	Snapshot *cluster.Snapshot
	Ledger   *ledger.Ledger
	Figures  Figures
}

// New is an empty plan for a cluster: the first Observe pins its
// baseline.
func New(clusterName string) *Plan { return &Plan{Cluster: clusterName} }

// ActionID is an action's stable id for a ledger key: the lever, then the
// first 6 hex digits of the key's SHA-256 ("consolidate-3fa2c1").
func ActionID(lever, key string) string { return idOf(lever, key, 6) }

func idOf(lever, key string, digits int) string {
	sum := sha256.Sum256([]byte(key))
	return lever + "-" + hex.EncodeToString(sum[:])[:digits]
}

// Observe adds one window: new actions get their ids and targets, actions
// still proposed are refreshed, those no longer proposed are retired with
// the reason, and every action's detection runs on the snapshot. The
// first observation pins the baseline. A window that ends before the last
// one observed is refused (the plan only moves forward).
func (p *Plan) Observe(o Observation) error {
	if o.Ledger == nil || o.Snapshot == nil {
		return errors.New("tracker: an observation needs the window's ledger and snapshot")
	}
	at := o.Window.End
	if !p.Updated.IsZero() && at.Before(p.Updated) {
		return fmt.Errorf("tracker: window ending %s is before the last observed (%s): the plan only moves forward",
			at.UTC().Format(time.RFC3339), p.Updated.UTC().Format(time.RFC3339))
	}
	byKey := make(map[string]*Action, len(p.Actions))
	for _, a := range p.Actions {
		byKey[a.Key] = a
	}
	ids := make(map[string]bool, len(p.Actions))
	for _, a := range p.Actions {
		ids[a.ID] = true
	}
	v := newView(o.Snapshot, o.Window)
	planToID := map[string]string{}
	current := map[string]bool{}
	for i := range o.Ledger.Actions {
		la := &o.Ledger.Actions[i]
		a := byKey[la.Key]
		if a == nil {
			a = newAction(la, p.uniqueID(la.Lever, la.Key, ids), v, at)
			ids[a.ID] = true
			byKey[a.Key] = a
			p.Actions = append(p.Actions, a)
		}
		a.Title, a.Target, a.Phase, a.PlanID = la.Title, la.Target, la.Phase, la.ID
		a.LatestPredictedUSDMonth = la.SavingUSDMonth
		a.Prerequisite = la.SavingUSDMonth == 0 && len(la.RealisedBy) > 0
		a.LastProposed, a.Proposed = at, true
		a.Retired, a.RetiredWhy, a.RetiredAt = "", "", time.Time{}
		current[a.Key] = true
		planToID[la.ID] = a.ID
	}
	var groundwork []string // tracked keys, in the ledger's foundation order
	for i := range o.Ledger.Foundations {
		f := &o.Ledger.Foundations[i]
		if f.Done {
			continue
		}
		key := groundworkKey(f.Kind)
		a := byKey[key]
		if a == nil {
			ts, tracked := groundworkTargets(f, o.Ledger, v)
			if !tracked {
				continue
			}
			a = &Action{ID: p.uniqueID(Groundwork, key, ids), Key: key, Lever: Groundwork, Kind: f.Kind, FirstProposed: at,
				Status: Pending, Targets: ts}
			ids[a.ID] = true
			byKey[a.Key] = a
			p.Actions = append(p.Actions, a)
		}
		a.Title, a.Target, a.Phase, a.PlanID = f.Title, groundworkTarget(f.Kind, a.Targets), 1, f.ID
		a.LastProposed, a.Proposed = at, true
		a.Retired, a.RetiredWhy, a.RetiredAt = "", "", time.Time{}
		current[a.Key] = true
		groundwork = append(groundwork, key)
	}
	for i := range o.Ledger.Actions {
		la := &o.Ledger.Actions[i]
		a := byKey[la.Key]
		a.RealisedBy = a.RealisedBy[:0]
		for _, r := range la.RealisedBy {
			if id, ok := planToID[r]; ok {
				a.RealisedBy = append(a.RealisedBy, id)
			}
		}
	}
	v.named = map[string]bool{}
	for _, a := range p.Actions {
		if moves(a.Kind) {
			for _, t := range a.Targets {
				if t.Kind == "node" {
					v.named[t.Name] = true
				}
			}
		}
	}
	for _, a := range p.Actions {
		detect(a, v, at)
		a.status(at)
	}
	for _, a := range p.Actions {
		if !current[a.Key] && a.Proposed {
			p.retire(a, current, at)
		}
	}
	if p.Baseline == nil {
		b := &Baseline{At: at, Window: o.Window, Figures: o.Figures, LedgerBeforeUSDMonth: o.Ledger.BeforeUSDMonth,
			LedgerAfterUSDMonth: o.Ledger.AfterUSDMonth, LedgerSavingUSDMonth: o.Ledger.SavingUSDMonth}
		for i := range o.Ledger.Actions {
			b.Actions = append(b.Actions, planToID[o.Ledger.Actions[i].ID])
		}
		for _, key := range groundwork {
			b.Actions = append(b.Actions, byKey[key].ID) // the groundwork, after the ledger's actions
		}
		p.Baseline = b
	}
	p.Flags = p.watch(v)
	p.remember(o.Snapshot, at)
	p.Updated = at
	p.Observations++
	return nil
}

// remember keeps the facts of the snapshot's GPU nodes.
func (p *Plan) remember(s *cluster.Snapshot, at time.Time) {
	if p.Nodes == nil {
		p.Nodes = map[string]NodeFacts{}
	}
	for i := range s.Nodes {
		n := &s.Nodes[i]
		if !n.HasGPUs() {
			continue
		}
		created := n.Created
		if old, ok := p.Nodes[n.Name]; ok && !old.Created.IsZero() && (created.IsZero() || old.Created.Before(created)) {
			created = old.Created
		}
		p.Nodes[n.Name] = NodeFacts{Model: nodeModel(n), Instance: n.InstanceType, Capacity: n.Capacity, Region: n.Region, Created: created, Seen: at}
	}
	for name, f := range p.Nodes {
		if at.Sub(f.Seen) > NodeMemory {
			delete(p.Nodes, name)
		}
	}
}

// uniqueID is the action's id, with more digits in the rare case that
// another key's digest starts the same.
func (p *Plan) uniqueID(lever, key string, taken map[string]bool) string {
	for d := 6; d <= 64; d += 2 {
		if id := idOf(lever, key, d); !taken[id] {
			return id
		}
	}
	return idOf(lever, key, 64) // a SHA-256 collision: not reached
}

// retire says why an action is no longer proposed.
func (p *Plan) retire(a *Action, current map[string]bool, at time.Time) {
	a.Proposed, a.RetiredAt = false, at
	switch {
	case a.Status == Applied || a.Status == Partly:
		a.Retired, a.RetiredWhy = Done, fmt.Sprintf("the cluster shows it %s (%s)", a.Status, a.Detection)
	case a.Status == Rejected:
		a.Retired, a.RetiredWhy = Obsolete, "rejected, and no longer proposed"
	default:
		if by := p.coveredBy(a, current); by != "" {
			a.Retired, a.RetiredWhy = Superseded, "superseded by "+by+", which now covers its targets"
			return
		}
		a.Retired, a.RetiredWhy = Obsolete, "no longer proposed and not applied: its targets or the usage it stood on changed"
	}
}

// coveredBy is the id of a current action of the same lever that names
// one of a's targets, "" when none does.
func (p *Plan) coveredBy(a *Action, current map[string]bool) string {
	names := map[string]bool{}
	for _, t := range a.Targets {
		names[t.Kind+"\x00"+t.Name] = true
	}
	for _, b := range p.Actions {
		if b == a || !current[b.Key] || b.Lever != a.Lever {
			continue
		}
		for _, t := range b.Targets {
			if names[t.Kind+"\x00"+t.Name] {
				return b.ID
			}
		}
	}
	return ""
}

// status sets the checklist status from the mark and the detection.
func (a *Action) status(at time.Time) {
	switch {
	case a.Mark != nil && a.Mark.Status == Rejected:
		a.Status = Rejected
	case a.Of > 0 && a.Detected == a.Of:
		a.Status = Applied
	case a.Detected > 0:
		a.Status = Partly
	case a.Mark != nil && a.Mark.Status == Applied:
		a.Status = Applied
	default:
		a.Status = Pending
	}
	switch {
	case a.Status != Applied && a.Status != Partly:
	case a.Mark != nil && a.Mark.Status == Applied && a.Detected == 0:
		a.AppliedAt = a.Mark.At
	case a.AppliedAt.IsZero():
		a.AppliedAt = firstApplied(a.Targets, at)
	}
}

// firstApplied is the earliest time a target showed applied.
func firstApplied(ts []Target, at time.Time) time.Time {
	first := at
	for _, t := range ts {
		if t.Applied && !t.AppliedAt.IsZero() && t.AppliedAt.Before(first) {
			first = t.AppliedAt
		}
	}
	return first
}

// SetMark records a user's mark (applied or rejected; "" clears it) on
// the action with the id and recomputes its status. An unknown id or
// status is an error naming it.
func (p *Plan) SetMark(id string, m *Mark) error {
	a := p.Action(id)
	if a == nil {
		return fmt.Errorf("no tracked action %q (gpuwise progress lists the ids)", id)
	}
	if m != nil && m.Status != Applied && m.Status != Rejected {
		return fmt.Errorf("mark %q for action %s: want applied or rejected", m.Status, id)
	}
	a.Mark = m
	if m == nil || m.Status != Applied {
		if a.Detected == 0 {
			a.AppliedAt = time.Time{}
		}
	}
	a.status(p.Updated)
	return nil
}

// Action is the tracked action with the id, nil when there is none.
func (p *Plan) Action(id string) *Action {
	for _, a := range p.Actions {
		if a.ID == id {
			return a
		}
	}
	return nil
}

// Counts are the actions per checklist status, the retired ones apart.
type Counts struct {
	Applied, Partly, Pending, Rejected int
	Retired                            map[string]int
}

// Count tallies the plan's actions.
func (p *Plan) Count() Counts {
	c := Counts{Retired: map[string]int{}}
	for _, a := range p.Actions {
		switch a.Status {
		case Applied:
			c.Applied++
		case Partly:
			c.Partly++
		case Rejected:
			c.Rejected++
		default:
			c.Pending++
		}
		if a.Retired != "" {
			c.Retired[a.Retired]++
		}
	}
	return c
}

// newAction starts tracking a ledger action: its id and the targets with
// the facts detection compares against later.
func newAction(la *ledger.Action, id string, v *view, at time.Time) *Action {
	a := &Action{ID: id, Key: la.Key, Lever: la.Lever, Kind: la.Kind, PredictedUSDMonth: la.SavingUSDMonth,
		FirstProposed: at, Status: Pending}
	a.Targets = targetsOf(la, v)
	return a
}

// sortedKeys is m's keys in order.
func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// joinUnique joins distinct values in order.
func joinUnique(vs []string) string {
	slices.Sort(vs)
	return strings.Join(slices.Compact(vs), ", ")
}
