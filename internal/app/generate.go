package app

import (
	"context"
	"fmt"
	"maps"
	"os"
	"slices"
	"strings"

	"github.com/gpuwise/gpuwise/internal/cluster"
	"github.com/gpuwise/gpuwise/internal/generate"
	"github.com/gpuwise/gpuwise/internal/ledger"
	"github.com/gpuwise/gpuwise/internal/packing"
	"github.com/gpuwise/gpuwise/internal/rightsize"
)

// GenerateResult is the generated files, notes on what was left out and
// why, and Partial as in ReportResult. Nothing is applied or written: a
// front end prints the files (generate.WriteStream) or writes them
// (WriteDir).
type GenerateResult struct {
	Files   []generate.File
	Notes   []string
	Partial error
}

// fromRecs turns recommendations into files.
type fromRecs func(*RecommendResult) ([]generate.File, []string, error)

// fromShapes turns recommendations, shaped as the ledgers count them, into
// files.
type fromShapes func(*RecommendResult, []*ledger.Ledger) ([]generate.File, []string, error)

func (a *App) generateFromRecs(ctx context.Context, req RecommendRequest, build fromRecs) (*GenerateResult, error) {
	rr, _, err := a.recommend(ctx, req)
	if err != nil {
		return nil, err
	}
	files, notes, err := build(rr)
	if err != nil {
		return nil, fmt.Errorf("generating: %w", err)
	}
	return &GenerateResult{Files: files, Notes: notes, Partial: rr.Partial}, nil
}

// generateFromShapes is generateFromRecs on the recommendations with the
// GPU shapes the savings ledger counts (every lever, the policy file's
// settings): a shape the ledger does not count (the consolidation plan
// reverts it, or nothing realises it) is left out with a note saying why,
// and an in-cluster alternative the ledger takes instead goes in. So no
// file changes a GPU shape that `gpuwise advise` keeps.
func (a *App) generateFromShapes(ctx context.Context, req RecommendRequest, build fromShapes) (*GenerateResult, error) {
	rr, an, err := a.recommend(ctx, req)
	if err != nil {
		return nil, err
	}
	adv := DefaultAdviseRequest()
	adv.RecommendRequest = req
	ar, err := a.adviseFrom(adv, rr, an)
	if err != nil {
		return nil, err
	}
	res, notes := ledgerShapes(rr.Result, ar.ledgers())
	shaped := *rr
	shaped.Result = res
	files, more, err := build(&shaped, ar.ledgers())
	if err != nil {
		return nil, fmt.Errorf("generating: %w", err)
	}
	return &GenerateResult{Files: files, Notes: append(notes, more...), Partial: rr.Partial}, nil
}

// ledgers are the result's ledgers: the one, or one per cluster.
func (r *AdviseResult) ledgers() []*ledger.Ledger {
	if r.Ledger != nil {
		return []*ledger.Ledger{r.Ledger}
	}
	var out []*ledger.Ledger
	for _, c := range r.Clusters {
		out = append(out, c.Ledger)
	}
	return out
}

// ledgerShapes is the recommendations with their GPU shapes replaced by
// the ledgers' (Ledger.Shapes), and a note for every MIG or time-slice
// shape left out.
func ledgerShapes(r *rightsize.Result, ls []*ledger.Ledger) (*rightsize.Result, []string) {
	take := map[string]rightsize.GPURec{}
	why := map[string]string{}
	for _, l := range ls {
		maps.Copy(take, l.Shapes())
		for _, nc := range l.NotCounted {
			if nc.Lever == ledger.LeverShape && why[nc.Target] == "" {
				why[nc.Target] = nc.Reason
			}
		}
	}
	out := *r
	out.GPU = nil
	var notes []string
	for _, g := range r.GPU {
		if t, ok := take[g.Workload]; ok {
			out.GPU = append(out.GPU, t)
			continue
		}
		if g.Action == rightsize.KeepWhole {
			out.GPU = append(out.GPU, g)
			continue
		}
		if g.Action == rightsize.UseMIG || g.Action == rightsize.UseTimeSlice {
			reason := why[g.Workload]
			if reason == "" {
				reason = "the savings ledger does not count it"
			}
			notes = append(notes, fmt.Sprintf("%s keeps its GPUs (%s recommended %s): %s (gpuwise advise)", g.Workload, g.Action, g.Resource, reason))
		}
	}
	return &out, notes
}

// GenerateResources is GenerateResourcesPaced at the default pace
// (generate.DefaultWavePercent).
func (a *App) GenerateResources(ctx context.Context, req RecommendRequest) (*GenerateResult, error) {
	return a.GenerateResourcesPaced(ctx, ResourcesRequest{RecommendRequest: req, WavePercent: generate.DefaultWavePercent})
}

// ResourcesRequest is `gpuwise generate resources`: the recommendations
// and the pace of their rollout.
type ResourcesRequest struct {
	RecommendRequest
	// WavePercent is the share of the patched workloads each wave of the
	// rollout changes, 1–100.
	WavePercent int
	// WaveHistory is the history apply.sh and rollback.sh append to
	// (rollout/history.tsv); empty means none. Workloads it says are
	// applied go in no new wave.
	WaveHistory string
}

// DefaultResourcesRequest is the seeds' pace: 10 % of the workloads a day.
func DefaultResourcesRequest() ResourcesRequest {
	return ResourcesRequest{WavePercent: generate.DefaultWavePercent}
}

// Validate lists every problem of the request, each naming its flag.
func (r ResourcesRequest) Validate() error {
	var p problems
	r.Data.validate(&p)
	p.add(generate.CheckWavePercent(r.WavePercent))
	return p.err()
}

// GenerateResourcesPaced writes one strategic-merge resource patch per
// right-sized workload, with the GPU shapes the savings ledger counts and
// the ledger's account of each workload's change (ledgerCounted) as the
// patch's money line, and the rollout of those patches in waves
// (rollout/: waves.md and per wave apply.sh, check.sh, rollback.sh), the
// waves carrying the right-size and shape levers' ledger dollars.
func (a *App) GenerateResourcesPaced(ctx context.Context, req ResourcesRequest) (*GenerateResult, error) {
	if err := generate.CheckWavePercent(req.WavePercent); err != nil {
		return nil, usageErrorf("%v", err)
	}
	applied, err := readWaveHistory(req.WaveHistory)
	if err != nil {
		return nil, err
	}
	return a.generateFromShapes(ctx, req.RecommendRequest, func(rr *RecommendResult, ls []*ledger.Ledger) ([]generate.File, []string, error) {
		return generate.RecommendedRollout(rr.Result, ledgerCounted(ls), rolloutLedger(ls), req.WavePercent, applied)
	})
}

// readWaveHistory is the workloads the wave history at path says are
// applied; none when path is empty.
func readWaveHistory(path string) (map[string]string, error) {
	if path == "" {
		return nil, nil
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, withKind(Input, fmt.Errorf("--wave-history: %w", err))
	}
	applied, err := generate.ParseWaveHistory(path, data)
	if err != nil {
		return nil, withKind(Input, fmt.Errorf("--wave-history: %w", err))
	}
	return applied, nil
}

// rolloutLedger is the ledgers' right-size and shape actions, each
// workload's highest risk among them, and the two levers' total.
func rolloutLedger(ls []*ledger.Ledger) generate.RolloutLedger {
	out := generate.RolloutLedger{Risk: map[string]string{}}
	rank := map[string]int{}
	for _, l := range ls {
		for _, lr := range l.Levers {
			if lr.Name == ledger.LeverRightsize || lr.Name == ledger.LeverShape {
				out.TotalCents += int64(lr.Saving())
			}
		}
		for i := range l.Actions {
			act := &l.Actions[i]
			if act.Lever != ledger.LeverRightsize && act.Lever != ledger.LeverShape {
				continue
			}
			la := generate.LedgerAction{ID: act.ID, Title: act.Title, Cents: int64(act.Saving()), Shape: act.Lever == ledger.LeverShape}
			if act.Saving() == 0 {
				la.Note = "saves nothing on its own"
				if by := realisedBy(l, act); by != "" {
					la.Note += ", realised by " + by
				}
			}
			for _, it := range act.Items {
				la.Workloads = append(la.Workloads, it.Target)
				if r, seen := rank[it.Target]; !seen || it.Risk.Rank() > r {
					rank[it.Target], out.Risk[it.Target] = it.Risk.Rank(), string(it.Risk)
				}
			}
			out.Actions = append(out.Actions, la)
		}
	}
	return out
}

// ledgerCounted says, per workload, what the savings ledgers count for its
// right-sizing and shape changes, in the ledger's own numbers: the action
// that lists it (its saving, for all its items together: the ledger does
// not split an action's saving by workload), or, for an action that saves
// nothing on its own, the actions that realise it; or why its request
// change is not counted.
func ledgerCounted(ls []*ledger.Ledger) map[string]string {
	out := map[string]string{}
	add := func(w, text string) {
		if out[w] == "" {
			out[w] = text
		} else if !strings.Contains(out[w], text) {
			out[w] += "; " + text
		}
	}
	for _, l := range ls {
		for i := range l.Actions {
			act := &l.Actions[i]
			if act.Lever != ledger.LeverRightsize && act.Lever != ledger.LeverShape {
				continue
			}
			var text string
			if act.Saving() > 0 {
				text = fmt.Sprintf("savings ledger: %s (%s) saves %s/month for its %d workload(s) together (gpuwise advise)", act.ID, act.Title, act.Saving(), len(act.Items))
			} else {
				text = fmt.Sprintf("savings ledger: %s (%s) saves nothing on its own", act.ID, act.Title)
				if by := realisedBy(l, act); by != "" {
					text += ", realised by " + by
				}
				text += " (gpuwise advise)"
			}
			for _, it := range act.Items {
				add(it.Target, text)
			}
		}
		for _, nc := range l.NotCounted { // a shape not counted is not in the patch (ledgerShapes)
			if nc.Lever == ledger.LeverRightsize {
				add(nc.Target, fmt.Sprintf("the savings ledger counts nothing for its CPU/memory requests: %s (gpuwise advise)", nc.Reason))
			}
		}
	}
	return out
}

// realisedBy names the actions that need act done first, each with its
// saving: the ones that turn it into money.
func realisedBy(l *ledger.Ledger, act *ledger.Action) string {
	var by []string
	for j := range l.Actions {
		if b := &l.Actions[j]; slices.Contains(b.Requires(), act.Key) {
			by = append(by, fmt.Sprintf("%s (%s, %s/month)", b.ID, b.Title, b.Saving()))
		}
	}
	return strings.Join(by, ", ")
}

// GenerateVPA writes one recommendation-only VPA per right-sized workload
// that still runs (none for a finished Job).
func (a *App) GenerateVPA(ctx context.Context, req RecommendRequest) (*GenerateResult, error) {
	return a.generateFromRecs(ctx, req, func(rr *RecommendResult) ([]generate.File, []string, error) {
		return generate.RecommendedVPAs(rr.Result, rr.Policy, rr.Snapshot.View())
	})
}

// GenerateTimeSlicing writes the device-plugin time-slicing config of the
// dev nodes whose time-slice shapes the savings ledger counts.
func (a *App) GenerateTimeSlicing(ctx context.Context, req RecommendRequest) (*GenerateResult, error) {
	return a.generateFromShapes(ctx, req, func(rr *RecommendResult, _ []*ledger.Ledger) ([]generate.File, []string, error) {
		return generate.RecommendedTimeSlicing(rr.Result, rr.Snapshot.View())
	})
}

// GenerateMIG writes the plan's MIG layouts (mig-parted config and label
// commands), the same as GeneratePlan writes for them.
func (a *App) GenerateMIG(ctx context.Context, req PlanRequest) (*GenerateResult, error) {
	var notes []string
	res, err := a.generateFromPlan(ctx, req, ledgerShaped(a, req, nil, &notes), generate.PlanMIG)
	if res != nil {
		res.Notes = append(notes, res.Notes...)
	}
	return res, err
}

// ledgerShaped is the plan's shapeRecs of `generate mig` and `generate
// plan`: with recommended shapes they pack the GPU shapes the savings
// ledger counts (ledgerShapes), not every shape recommend lists, so the
// MIG layouts and time-slicing they write are the ones the ledger's
// actions count (one source: the ledger). The ledgers are kept in ls (when
// not nil) and the notes on the shapes left out in notes.
func ledgerShaped(a *App, req PlanRequest, ls *[]*ledger.Ledger, notes *[]string) shapeRecs {
	return func(rr *RecommendResult, an *Analysis) (*rightsize.Result, error) {
		adv := DefaultAdviseRequest()
		adv.RecommendRequest = req.RecommendRequest
		ar, err := a.adviseFrom(adv, rr, an)
		if err != nil {
			return nil, err
		}
		if ls != nil {
			*ls = ar.ledgers()
		}
		res, n := ledgerShapes(rr.Result, ar.ledgers())
		*notes = append(*notes, n...)
		return res, nil
	}
}

// GeneratePlan writes everything the plan needs applied, with the GPU
// shapes the savings ledger counts (ledgerShaped); its drain commands are
// only for the nodes the savings ledger removes too (a node the plan
// removes and the ledger keeps, for the peak or the autoscaler, gets a
// comment saying which action keeps it).
func (a *App) GeneratePlan(ctx context.Context, req PlanRequest) (*GenerateResult, error) {
	var ls []*ledger.Ledger
	var notes []string
	shaped := ledgerShaped(a, req, &ls, &notes)
	if req.Shapes != packing.RecommendedShapes { // the plan packs no recommendations: the ledger apart
		rr, an, err := a.recommend(ctx, req.RecommendRequest)
		if err != nil {
			return nil, err
		}
		if _, err := shaped(rr, an); err != nil {
			return nil, err
		}
		notes, shaped = nil, nil
	}
	res, err := a.generateFromPlan(ctx, req, shaped, func(pl *packing.Plan, snap *cluster.Snapshot) ([]generate.File, []string, error) {
		removed, why := ledgerNodes(ls)
		keep := map[string]string{}
		for _, np := range pl.Nodes {
			if !np.Keep && !removed[np.Name] {
				keep[np.Name] = why[np.Name]
				if keep[np.Name] == "" {
					keep[np.Name] = "no action of the savings ledger removes it (gpuwise advise)"
				}
			}
		}
		return generate.PlanArtefactsKeeping(keep)(pl, snap)
	})
	if res != nil {
		res.Notes = append(notes, res.Notes...)
	}
	return res, err
}

// ledgerNodes are the nodes the ledgers' remove-nodes actions remove, and
// for the other nodes an action names, the first such action (it keeps,
// scales or prepares the node).
func ledgerNodes(ls []*ledger.Ledger) (map[string]bool, map[string]string) {
	removed, why := map[string]bool{}, map[string]string{}
	for _, l := range ls {
		for _, a := range l.Actions {
			for _, t := range a.Targets {
				switch {
				case t.Kind != "node":
				case a.Kind == "remove-nodes":
					removed[t.Name] = true
				case why[t.Name] == "":
					why[t.Name] = fmt.Sprintf("the savings ledger does not remove it, %s acts on it: %s (gpuwise advise)", a.ID, a.Title)
				}
			}
		}
	}
	return removed, why
}

func (a *App) generateFromPlan(ctx context.Context, req PlanRequest, shape shapeRecs, build func(*packing.Plan, *cluster.Snapshot) ([]generate.File, []string, error)) (*GenerateResult, error) {
	pr, err := a.plan(ctx, req, shape)
	if err != nil {
		return nil, err
	}
	files, notes, err := build(pr.Plan, pr.Snapshot.View())
	if err != nil {
		return nil, fmt.Errorf("generating: %w", err)
	}
	return &GenerateResult{Files: files, Notes: notes, Partial: pr.Partial}, nil
}
