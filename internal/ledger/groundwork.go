package ledger

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/gpuwise/gpuwise/internal/cluster"
	"github.com/gpuwise/gpuwise/internal/cost"
	"github.com/gpuwise/gpuwise/internal/ledger/lever"
	"github.com/gpuwise/gpuwise/internal/rightsize"
)

// Groundwork is what the audit found that the first month's groundwork
// actions are counted and priced from. The ledger does not run the audit
// (engines are siblings): the use case runs it on the same snapshot and
// prices and passes its figures here (docs/savings.md "Days 0–30").
type Groundwork struct {
	// UntaintedNodes are the GPU nodes without the GPU taint (audit GW001).
	UntaintedNodes []string
	// NonGPUWorkloads run pods that need no GPU on GPU nodes (GW002);
	// NonGPUUSDMonth is the audit's cost of those pods there (nil:
	// unpriced).
	NonGPUWorkloads []string
	NonGPUUSDMonth  *float64
	// AdmissionFindings counts the audit findings of the rules the
	// admission policies enforce (AdmissionRules, audit IDs);
	// AdmissionUSDMonth is the cost at stake behind them (nil: none
	// priced). A risk, not a saving.
	AdmissionFindings int
	AdmissionRules    []string
	AdmissionUSDMonth *float64
}

// Foundation is a days 0–30 action that saves nothing itself: it makes the
// later actions safe or measurable. Its dollars are never added to the
// ledger's saving (Reconcile reads actions only).
type Foundation struct {
	// ID is "F1"…; Kind is taint, admission-warn, vpa-off or dcgm.
	ID    string `json:"id"`
	Kind  string `json:"kind"`
	Title string `json:"title"`
	// Targets counts what it acts on (nodes, workloads, VPA objects).
	Targets int `json:"targets"`
	// USDMonth is the figure its kind names in Figure: the non-GPU pods'
	// cost on GPU nodes (taint), the cost at stake behind the findings an
	// admission policy warns on (admission-warn: a risk). Never a saving,
	// null when it has no dollars or nothing behind it is priced.
	USDMonth *float64 `json:"usd_month"`
	// GPUHours is the allocated GPU-hours without DCGM data in the window
	// (dcgm); null for the other kinds.
	GPUHours *float64 `json:"gpu_hours"`
	Figure   string   `json:"figure"`
	// EffortHours as the effort table prices it; Command the gpuwise
	// command (or, where gpuwise writes nothing for it, the upstream one)
	// that carries it out.
	EffortHours float64 `json:"effort_hours"`
	Command     string  `json:"command"`
	// Unlocks is what it makes possible later: the ledger actions (IDs)
	// that depend on it, and why.
	Unlocks    []string `json:"unlocks"`
	UnlocksWhy string   `json:"unlocks_why"`
	// Done is true when there is nothing to do (no target).
	Done bool `json:"done"`
}

// Groundwork effort (effort table, docs/savings.md): taint a node after
// giving GPU workloads the toleration; roll out the admission policies in
// warn mode and read their warnings for a week; install the VPA
// recommender and apply Off-mode objects; install dcgm-exporter and check
// every GPU reports.
const (
	effortGroundwork  = 0.5  // the fixed part, as any action's (lever's effortAction)
	effortMovePod     = 0.25 // per workload moved off, as lever's effortMove
	effortTaintNode   = 0.25 // per node
	effortAdmission   = 4
	effortVPAInstall  = 2
	effortVPAObject   = 0.1 // per object
	effortDCGMInstall = 2
	effortDCGMNode    = 0.25 // per node
)

// foundations builds the days 0–30 groundwork from the audit's figures,
// the right-sizing (VPA objects) and the cost allocation (unmeasured
// GPU-hours), after the plan numbered the actions they unlock.
func (l *Ledger) foundations(g *Groundwork, vpaWorkloads []string, a *cost.Allocation) {
	var fs []Foundation
	ids := func(keep func(*Action) bool) []string {
		out := []string{}
		for i := range l.Actions {
			if keep(&l.Actions[i]) {
				out = append(out, l.Actions[i].ID)
			}
		}
		return out
	}
	// 1. Taint.
	taint := Foundation{Kind: "taint", Title: "Taint GPU nodes nvidia.com/gpu=true:NoSchedule and move the pods that need no GPU off them",
		Figure:     "the non-GPU pods' cost on GPU nodes (audit GW002): it moves off the GPU nodes, not a saving",
		Command:    "gpuwise audit -o wide (GW001: the kubectl taint per node, GW002: the patch per workload); gpuwise generate nodepool -d out/ (the taint on every new node)",
		UnlocksWhy: "drained GPU nodes stay empty: the node removals, repacks and scale-downs that follow need no pod without a GPU to land back on them",
	}
	if g == nil {
		taint.Figure = "not audited here: gpuwise audit on the same source has the figure"
	} else {
		taint.Targets = len(g.UntaintedNodes) + len(g.NonGPUWorkloads)
		taint.USDMonth = g.NonGPUUSDMonth
		taint.EffortHours = effortGroundwork + effortTaintNode*float64(len(g.UntaintedNodes)) + effortMovePod*float64(len(g.NonGPUWorkloads))
		taint.Title = fmt.Sprintf("Taint %d GPU node(s) nvidia.com/gpu=true:NoSchedule and move %d workload(s) that need no GPU off GPU nodes", len(g.UntaintedNodes), len(g.NonGPUWorkloads))
	}
	taint.Unlocks = ids(func(a *Action) bool {
		return a.Kind == lever.KindRemoveNodes || a.Kind == lever.KindRepack || a.Kind == lever.KindPrepareNodes || a.Kind == lever.KindScaleNodes
	})
	fs = append(fs, taint)
	// 2. Admission policies, warn mode.
	adm := Foundation{Kind: "admission-warn", Title: "Admission policies in warn mode",
		Figure:     "at stake (a risk, not a saving): the cost of what the findings the policies would warn on involve",
		Command:    "gpuwise generate policy -d out/ (warn mode; sh out/policy/native/rollout.sh deny once the warnings stop)",
		UnlocksWhy: "new and changed workloads keep the GPU hygiene the right-sized requests and shapes rely on: none comes back with round-number requests, no limits or a whole dev GPU",
	}
	if g == nil {
		adm.Figure = "not audited here: gpuwise audit on the same source has the figure"
	} else {
		adm.Targets, adm.USDMonth = g.AdmissionFindings, g.AdmissionUSDMonth
		adm.EffortHours = effortAdmission
		adm.Title = fmt.Sprintf("Admission policies in warn mode: %d finding(s) of %s today", g.AdmissionFindings, andList(g.AdmissionRules))
	}
	adm.Unlocks = ids(func(a *Action) bool { return a.Lever == LeverRightsize || a.Lever == LeverShape })
	fs = append(fs, adm)
	// 3. VPA Off.
	vpa := Foundation{Kind: "vpa-off", Targets: len(vpaWorkloads),
		Title:       fmt.Sprintf("VerticalPodAutoscaler in updateMode Off for %d GPU workload(s)", len(vpaWorkloads)),
		Figure:      "no dollars: the VPA recommender's own numbers beside gpuwise's, recommendations only",
		EffortHours: effortVPAInstall + effortVPAObject*float64(len(vpaWorkloads)),
		Command:     "gpuwise generate vpa -d out/ (then kubectl apply -f out/vpa/; needs the VPA CRDs and recommender)",
		UnlocksWhy:  "a second opinion on every right-sized request before it is applied",
	}
	vpa.Unlocks = ids(func(a *Action) bool { return a.Lever == LeverRightsize })
	fs = append(fs, vpa)
	// 4. DCGM.
	hours, nodes, workloads := unmeasured(a)
	h := round2(hours)
	dcgm := Foundation{Kind: "dcgm", Targets: len(nodes), GPUHours: &h,
		Title:       fmt.Sprintf("DCGM exporter on every GPU node: %d node(s) with unmeasured GPUs", len(nodes)),
		Figure:      "allocated GPU-hours in the window with no DCGM series: never treated as idle, so never sized",
		EffortHours: effortDCGMInstall + effortDCGMNode*float64(len(nodes)),
		Command:     "helm upgrade --install dcgm-exporter gpu-helm-charts/dcgm-exporter -n gpu-operator (gpuwise writes nothing for it); then gpuwise inventory to check every GPU reports",
		UnlocksWhy:  fmt.Sprintf("after a week of data, the shape, right-sizing and reclaim levers can size the %d workload(s) on unmeasured GPUs (%s); no action of this run depends on it", len(workloads), andList(workloads)),
		Unlocks:     []string{},
	}
	if len(nodes) > 0 {
		dcgm.Title += " (" + andList(nodes) + ")"
	}
	fs = append(fs, dcgm)
	for i := range fs {
		fs[i].ID = fmt.Sprintf("F%d", i+1)
		fs[i].Done = fs[i].Targets == 0 && (g != nil || fs[i].Kind == "vpa-off" || fs[i].Kind == "dcgm")
		if fs[i].Done {
			fs[i].EffortHours = 0
		}
	}
	l.Foundations = fs
	if len(l.Phases) > 0 {
		ph := &l.Phases[0]
		for _, f := range fs {
			if !f.Done {
				ph.Foundations = append(ph.Foundations, f.ID)
				ph.FoundationEffortHours += f.EffortHours
			}
		}
		ph.Foundations = nonNil(ph.Foundations)
	}
}

// unmeasured is the allocated GPU-hours with no activity data, the nodes
// they ran on and the workloads that held them.
func unmeasured(a *cost.Allocation) (float64, []string, []string) {
	var hours float64
	nodes, workloads := map[string]bool{}, map[string]bool{}
	for i := range a.Lines {
		ln := &a.Lines[i]
		if ln.Pod == nil || ln.GPUHours.Unmeasured <= 0 {
			continue
		}
		hours += ln.GPUHours.Unmeasured
		if ln.Node != nil {
			nodes[ln.Node.Name] = true
		}
		workloads[ln.Pod.WorkloadKey()] = true
	}
	keys := func(m map[string]bool) []string {
		out := make([]string, 0, len(m))
		for k := range m {
			out = append(out, k)
		}
		sort.Strings(out)
		return out
	}
	return hours, keys(nodes), keys(workloads)
}

// vpaKinds are the owner kinds a VPA can target: those `gpuwise generate
// vpa` writes an object for (a bare pod and a PyTorchJob it cannot).
var vpaKinds = map[string]bool{"Deployment": true, "StatefulSet": true, "DaemonSet": true, "Job": true, "CronJob": true}

// vpaWorkloads are the workloads right-sizing gives a CPU and memory
// recommendation and a VPA can target, less the Jobs that finished in the
// window (cluster.FinishedJobs: a VPA would watch no pod): `gpuwise
// generate vpa`'s objects.
func vpaWorkloads(r *rightsize.Result, s *cluster.Snapshot) []string {
	out := []string{}
	if r == nil {
		return out
	}
	finished := cluster.FinishedJobs(s)
	for _, c := range r.Containers {
		if _, done := finished[c.Workload]; done {
			continue
		}
		if vpaKinds[c.OwnerKind] && !slices.Contains(out, c.Workload) {
			out = append(out, c.Workload)
		}
	}
	sort.Strings(out)
	return out
}

// andList joins names with commas and "and", the first 5 and a count.
func andList(xs []string) string {
	const most = 5
	switch {
	case len(xs) == 0:
		return "none"
	case len(xs) == 1:
		return xs[0]
	case len(xs) > most:
		return fmt.Sprintf("%s and %d more", strings.Join(xs[:most], ", "), len(xs)-most)
	}
	return strings.Join(xs[:len(xs)-1], ", ") + " and " + xs[len(xs)-1]
}
