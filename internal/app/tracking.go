package app

import (
	"context"
	"errors"
	"fmt"
	"math"
	"sort"
	"time"

	"github.com/gpuwise/gpuwise/internal/cluster"
	"github.com/gpuwise/gpuwise/internal/cost"
	"github.com/gpuwise/gpuwise/internal/history"
	"github.com/gpuwise/gpuwise/internal/tally"
	"github.com/gpuwise/gpuwise/internal/tracker"
)

// The proof of savings (docs/progress.md): the tracker's plan kept in the
// history store by the service's cycles, or built from two snapshots, and
// what its applied actions realised. One implementation behind `gpuwise
// progress`, /api/v1/progress and /metrics.

// Tracker names, for the front ends.
type (
	TrackedPlan   = tracker.Plan
	TrackedAction = tracker.Action
	TrackStatus   = tracker.Status
	Proof         = tracker.Proof
	Realised      = tracker.Realised
)

// RedFlagNames are the red flags watched after applied actions (the
// values of /metrics' flag label).
var RedFlagNames = tracker.FlagNames

// Checklist statuses and retirement reasons.
const (
	TrackPending  = tracker.Pending
	TrackPartly   = tracker.Partly
	TrackApplied  = tracker.Applied
	TrackRejected = tracker.Rejected
)

// ProgressResult is a tracked plan, what the cluster shows of it and what
// its applied actions realised.
type ProgressResult struct {
	Cluster string
	// Source says where the plan comes from: "history FILE" or
	// "snapshots BEFORE → AFTER".
	Source string
	Plan   *tracker.Plan
	Proof  *tracker.Proof
	Counts tracker.Counts
	// Notes are what the result cannot say (marks on ids the plan does
	// not hold, a history pruned past the baseline).
	Notes []string
}

// FiguresOf are a report's figures the baseline pins.
func FiguresOf(r *cost.Report) tracker.Figures {
	t := r.Totals
	return tracker.Figures{SpendUSD: roundCents(t.TotalCost), SpendUSDMonth: roundCents(t.MonthlyCost),
		Utilization: t.GPUUtilizationOfProvisioned, UnusedGPUUSD: roundCents(t.GPUCost.AllocatedIdle + t.GPUCost.Unallocated)}
}

func roundCents(x float64) float64 { return math.Round(x*100) / 100 }

// ObservePlan adds one window's results to the cluster's tracked plan in
// the history (the service calls it every cycle): the first pins the
// baseline. The users' marks are applied first, so that a rejected action
// is retired as such.
func (h *History) ObservePlan(ctx context.Context, clusterName string, snap *cluster.Prepared, rr *ReportResult) error {
	if rr == nil || rr.Ledger == nil {
		return fmt.Errorf("tracking the plan: no ledger on this window (%v)", rr.LedgerErr)
	}
	p, err := h.st.Plan(ctx, clusterName)
	if err != nil {
		return err
	}
	if p == nil {
		p = tracker.New(clusterName)
	}
	if !p.Updated.IsZero() && snap.Window().End.Before(p.Updated) {
		return nil // a window already observed (a restart re-reads it)
	}
	if _, err := h.applyMarks(ctx, p); err != nil {
		return err
	}
	if err := p.Observe(tracker.Observation{Window: snap.Window(), Snapshot: snap.View(), Ledger: rr.Ledger, Figures: FiguresOf(rr.Report)}); err != nil {
		return err
	}
	return h.st.SavePlan(ctx, p)
}

// applyMarks sets the store's marks on the plan; a mark on an id the plan
// does not hold is named in the notes.
func (h *History) applyMarks(ctx context.Context, p *tracker.Plan) ([]string, error) {
	ms, err := h.st.Marks(ctx, p.Cluster)
	if err != nil {
		return nil, err
	}
	var notes []string
	ids := make([]string, 0, len(ms))
	for id := range ms {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	for _, id := range ids {
		m := ms[id]
		var mk *tracker.Mark
		if m.Status != "" {
			mk = &tracker.Mark{Status: tracker.Status(m.Status), At: m.At, Note: m.Note}
		}
		if err := p.SetMark(id, mk); err != nil {
			notes = append(notes, fmt.Sprintf("mark on %s not applied: %v", id, err))
		}
	}
	return notes, nil
}

// ProgressRequest asks for a cluster's tracked plan from the history
// ("" or AllClusters: the only cluster with a plan).
type ProgressRequest struct {
	Cluster string
	Path    string // the history file, for Source
}

// Progress is the cluster's tracked plan with its marks and the realised
// savings measured on the history's hourly node cost. A history without a
// plan is an Input error saying how to get one.
func (h *History) Progress(ctx context.Context, req ProgressRequest) (*ProgressResult, error) {
	clusterName, err := h.planCluster(ctx, req.Cluster)
	if err != nil {
		return nil, err
	}
	p, err := h.st.Plan(ctx, clusterName)
	if err != nil {
		return nil, err
	}
	if p == nil {
		return nil, &Error{Kind: Input, Err: fmt.Errorf("history %s holds no plan for cluster %q: gpuwise serve --history keeps one (from its first cycle)", req.Path, clusterName)}
	}
	notes, err := h.applyMarks(ctx, p)
	if err != nil {
		return nil, err
	}
	hours, note, err := h.nodeHours(ctx, p)
	if err != nil {
		return nil, err
	}
	if note != "" {
		notes = append(notes, note)
	}
	return result(p, "history "+req.Path, p.Realise(hours), notes), nil
}

// planCluster resolves the request's cluster against the plans held.
func (h *History) planCluster(ctx context.Context, want string) (string, error) {
	cs, err := h.st.PlanClusters(ctx)
	if err != nil {
		return "", err
	}
	if want != "" && want != AllClusters {
		return want, nil
	}
	switch len(cs) {
	case 0:
		return "", &Error{Kind: Input, Err: errors.New("the history holds no plan yet: gpuwise serve --history keeps one from its first cycle")}
	case 1:
		return cs[0], nil
	}
	return "", usageErrorf("cluster: the history holds plans for %d clusters (%v): name one", len(cs), cs)
}

// nodeHours reads the nodes' hourly cost over the plan's span.
func (h *History) nodeHours(ctx context.Context, p *tracker.Plan) ([]tracker.Hour, string, error) {
	if p.Baseline == nil {
		return nil, "", nil
	}
	from, to := p.Baseline.Window.Start, p.Updated
	if to.Sub(from) > maxHourlyRange {
		from = to.Add(-maxHourlyRange)
	}
	pts, err := h.st.Series(ctx, history.Query{Cluster: p.Cluster, Kind: tally.Node, From: from, To: to.Add(time.Hour), Granularity: history.Hourly})
	if err != nil {
		return nil, "", err
	}
	out := make([]tracker.Hour, len(pts))
	for i, pt := range pts {
		out[i] = tracker.Hour{Start: pt.Bucket, Node: pt.Key, USD: pt.TotalUSD, Seconds: pt.Seconds, ActiveGPUHours: pt.GPUActiveHours}
	}
	var note string
	first := to
	if len(pts) > 0 {
		first = pts[0].Bucket
	}
	if first.After(from) {
		// pruned past the hourly retention: the days before the first hour
		// kept, from the daily rollup (each day's cost over its recorded
		// seconds, so run-rates stay exact; the windows' edges are then
		// whole days)
		end := startOfDayUTC(first)
		if end.After(from) {
			days, err := h.st.Series(ctx, history.Query{Cluster: p.Cluster, Kind: tally.Node, From: startOfDayUTC(from), To: end, Granularity: history.Daily})
			if err != nil {
				return nil, "", err
			}
			for _, pt := range days {
				out = append(out, tracker.Hour{Start: pt.Bucket, Node: pt.Key, USD: pt.TotalUSD, Seconds: pt.Seconds, ActiveGPUHours: pt.GPUActiveHours})
			}
			if len(days) > 0 {
				note = fmt.Sprintf("the history keeps hourly rows from %s: before that the savings are measured on its daily rows (whole days)",
					first.UTC().Format(time.RFC3339))
			}
		}
		if note == "" && len(pts) > 0 && first.After(from.Add(time.Hour)) {
			note = fmt.Sprintf("the history's rows start at %s, after the baseline's window (%s): the savings are measured on what is left",
				first.UTC().Format(time.RFC3339), from.UTC().Format(time.RFC3339))
		}
	}
	return out, note, nil
}

// MarkRequest marks a tracked action applied or rejected ("" clears the
// mark), as a user says so.
type MarkRequest struct {
	Cluster string
	ID      string
	Status  string
	Note    string
}

// Validate checks the status.
func (r MarkRequest) Validate() error {
	switch r.Status {
	case string(tracker.Applied), string(tracker.Rejected), "":
	default:
		return usageErrorf("status %q: want applied, rejected or clear", r.Status)
	}
	if r.ID == "" {
		return usageErrorf("action: give the tracked action's id (gpuwise progress lists them)")
	}
	if len(r.Note) > 1000 {
		return usageErrorf("note: %d characters, at most 1000", len(r.Note))
	}
	return nil
}

// Mark records a user's mark on a tracked action at the app's clock; an
// id the plan does not hold is a usage error naming it.
func (a *App) Mark(ctx context.Context, h *History, req MarkRequest) (*tracker.Action, error) {
	if err := req.Validate(); err != nil {
		return nil, err
	}
	clusterName, err := h.planCluster(ctx, req.Cluster)
	if err != nil {
		return nil, err
	}
	p, err := h.st.Plan(ctx, clusterName)
	if err != nil {
		return nil, err
	}
	if p == nil || p.Action(req.ID) == nil {
		return nil, usageErrorf("action %q: no such tracked action in cluster %q's plan (gpuwise progress lists the ids)", req.ID, clusterName)
	}
	if err := h.st.AddMark(ctx, clusterName, history.MarkRow{Action: req.ID, At: a.Now(), Status: req.Status, Note: req.Note}); err != nil {
		return nil, err
	}
	if _, err := h.applyMarks(ctx, p); err != nil {
		return nil, err
	}
	return p.Action(req.ID), nil
}

// ProgressSnapshotsRequest builds the plan from two snapshots: Before
// pins the baseline (its ledger is the plan), After is what the cluster
// shows now.
type ProgressSnapshotsRequest struct {
	Before, After Source
	Prices        *Prices
	Cluster       string
}

// ProgressOfSnapshots tracks the plan of the Before snapshot into the
// After one: detection on After, realised savings from each node's cost
// hour by hour in the two windows (a node's cost is its price × the hours
// it ran, so the hours are exact).
func (a *App) ProgressOfSnapshots(ctx context.Context, req ProgressSnapshotsRequest) (*ProgressResult, error) {
	sides := [2]Source{req.Before, req.After}
	var snaps [2]*cluster.Prepared
	var reps [2]*ReportResult
	var hours []tracker.Hour
	var names [2]string
	for i, src := range sides {
		var p problems
		src.validate(&p)
		if err := p.err(); err != nil {
			return nil, err
		}
		names[i] = src.File
		snap, _, err := a.read(ctx, src, 0, 0)
		if err != nil {
			return nil, err
		}
		prep, err := Prepare(snap)
		if err != nil {
			return nil, err
		}
		mem := &InMemory{Prepared: prep}
		rr := DefaultReportRequest()
		rr.Source, rr.Prices = Source{Snapshot: mem}, req.Prices
		res, err := a.Report(ctx, rr)
		if err != nil {
			return nil, err
		}
		if res.Ledger == nil {
			return nil, fmt.Errorf("snapshot %s: no savings ledger: %w", src.File, res.LedgerErr)
		}
		br := DefaultBreakdownRequest()
		br.Source, br.Prices, br.By = Source{Snapshot: mem}, req.Prices, []string{"node"}
		bd, err := a.Breakdown(ctx, br)
		if err != nil {
			return nil, err
		}
		snaps[i], reps[i] = prep, res
		hours = append(hours, spreadNodeHours(prep.View(), bd.Reports["node"])...)
	}
	if !snaps[1].Window().End.After(snaps[0].Window().End) {
		return nil, usageErrorf("snapshots: AFTER (%s) must end after BEFORE (%s) ends: give the earlier snapshot first", names[1], names[0])
	}
	name := req.Cluster
	if name == "" {
		name = DefaultCluster
	}
	p := tracker.New(name)
	for i := range snaps {
		if err := p.Observe(tracker.Observation{Window: snaps[i].Window(), Snapshot: snaps[i].View(), Ledger: reps[i].Ledger, Figures: FiguresOf(reps[i].Report)}); err != nil {
			return nil, err
		}
	}
	return result(p, "snapshots "+names[0]+" → "+names[1], p.Realise(hours), nil), nil
}

// DefaultCluster names the cluster of a plan built from snapshots.
const DefaultCluster = "default"

// spreadNodeHours is each node's cost hour by hour over the snapshot's
// window: its cost for the window at its rate over the hours it ran.
func spreadNodeHours(s *cluster.Snapshot, r *cost.Report) []tracker.Hour {
	life := map[string][2]time.Time{}
	for i := range s.Nodes {
		n := &s.Nodes[i]
		from, to := s.Window.Start, s.Window.End
		if !n.Created.IsZero() && n.Created.After(from) {
			from = n.Created
		}
		if !n.Deleted.IsZero() && n.Deleted.Before(to) {
			to = n.Deleted
		}
		life[n.Name] = [2]time.Time{from, to}
	}
	var out []tracker.Hour
	for _, row := range r.Rows {
		l, ok := life[row.Key]
		if !ok || !l[1].After(l[0]) {
			continue
		}
		held := l[1].Sub(l[0]).Hours()
		rate, work := row.TotalCost/held, row.GPUHours.Active/held
		for b := s.Window.Start.Truncate(time.Hour); b.Before(s.Window.End); b = b.Add(time.Hour) {
			lo, hi := maxTime(b, l[0]), minTime(b.Add(time.Hour), l[1])
			wlo, whi := maxTime(b, s.Window.Start), minTime(b.Add(time.Hour), s.Window.End)
			if !whi.After(wlo) {
				continue
			}
			h := tracker.Hour{Start: b, Node: row.Key, Seconds: whi.Sub(wlo).Seconds()}
			if hi.After(lo) {
				h.USD, h.ActiveGPUHours = rate*hi.Sub(lo).Hours(), work*hi.Sub(lo).Hours()
			}
			out = append(out, h)
		}
	}
	return out
}

func startOfDayUTC(t time.Time) time.Time {
	y, m, d := t.UTC().Date()
	return time.Date(y, m, d, 0, 0, 0, 0, time.UTC)
}

func maxTime(a, b time.Time) time.Time {
	if a.After(b) {
		return a
	}
	return b
}

func minTime(a, b time.Time) time.Time {
	if a.Before(b) {
		return a
	}
	return b
}

func result(p *tracker.Plan, source string, pf *tracker.Proof, notes []string) *ProgressResult {
	return &ProgressResult{Cluster: p.Cluster, Source: source, Plan: p, Proof: pf, Counts: p.Count(), Notes: notes}
}
