package tracker

import (
	"fmt"
	"math"
	"sort"
	"strings"
	"time"

	"github.com/gpuwise/gpuwise/internal/cluster"
	"github.com/gpuwise/gpuwise/internal/ledger"
	"github.com/gpuwise/gpuwise/internal/ledger/lever"
)

// view is what detection reads of one snapshot: the nodes alive at the
// window's end, each workload's pods running then, and each unit's kind
// and GPU model.
type view struct {
	w       cluster.Window
	nodes   map[string]*cluster.Node // every node, alive or not
	alive   map[string]bool
	pods    map[string][]*cluster.Pod // by workload: running at the end (else the latest)
	units   map[string]unitInfo
	hourly  map[string]*cluster.WorkloadHours
	hasHour bool
	// named are the nodes the plan's removals and moves name: their end is
	// theirs, not an autoscaler's.
	named map[string]bool
	// controls are the snapshot's autoscalers, NodePools and admission
	// policies (nil: not read); onNode the pods running at the window's
	// end by node.
	controls *cluster.Controls
	onNode   map[string][]*cluster.Pod
}

// moves: the kinds that remove or replace the nodes they name.
func moves(kind string) bool {
	switch kind {
	case lever.KindRemoveNodes, lever.KindRepack, lever.KindSpot, lever.KindRegion:
		return true
	}
	return false
}

type unitInfo struct {
	kind  cluster.UnitKind
	model string
}

func newView(s *cluster.Snapshot, w cluster.Window) *view {
	v := &view{w: w, nodes: map[string]*cluster.Node{}, alive: map[string]bool{}, pods: map[string][]*cluster.Pod{},
		units: map[string]unitInfo{}, hourly: map[string]*cluster.WorkloadHours{}, controls: s.Controls, onNode: map[string][]*cluster.Pod{}}
	for i := range s.Nodes {
		n := &s.Nodes[i]
		v.nodes[n.Name] = n
		v.alive[n.Name] = aliveAt(n, w.End)
		for j := range n.GPUs {
			g := &n.GPUs[j]
			for _, u := range g.Units {
				v.units[u.ID] = unitInfo{kind: u.Kind, model: g.Model}
			}
		}
	}
	latest := map[string][]*cluster.Pod{}
	for i := range s.Pods {
		p := &s.Pods[i]
		k := p.WorkloadKey()
		if p.End.IsZero() || !p.End.Before(w.End) {
			v.pods[k] = append(v.pods[k], p)
			if p.Node != "" {
				v.onNode[p.Node] = append(v.onNode[p.Node], p)
			}
		}
		latest[k] = append(latest[k], p)
	}
	for k, ps := range latest {
		if len(v.pods[k]) > 0 {
			continue
		}
		sort.Slice(ps, func(i, j int) bool { return ps[i].Start.After(ps[j].Start) })
		v.pods[k] = ps[:1] // no pod at the end: the latest tells its shape
	}
	if s.Hourly != nil {
		v.hasHour = true
		for i := range s.Hourly.Workloads {
			wh := &s.Hourly.Workloads[i]
			v.hourly[wh.Workload] = wh
		}
	}
	return v
}

func aliveAt(n *cluster.Node, t time.Time) bool {
	return (n.Created.IsZero() || !n.Created.After(t)) && (n.Deleted.IsZero() || !n.Deleted.Before(t))
}

// layoutOf is a node's GPU sharing layout: per GPU its sharing mode and
// MIG profiles or replicas, in GPU order.
func layoutOf(n *cluster.Node) string {
	parts := make([]string, 0, len(n.GPUs))
	for _, g := range n.GPUs {
		switch g.Sharing {
		case cluster.MIG:
			ps := make([]string, 0, len(g.Units))
			for _, u := range g.Units {
				ps = append(ps, u.Profile)
			}
			sort.Strings(ps)
			parts = append(parts, "mig("+strings.Join(ps, "+")+")")
		case cluster.TimeSlicing:
			parts = append(parts, fmt.Sprintf("time-slicing(%d)", g.Replicas))
		default:
			parts = append(parts, string(g.Sharing))
		}
	}
	return strings.Join(parts, " ")
}

// evidence is an item's evidence value by name.
func evidence(es []ledger.Evidence, name string) (float64, bool) {
	for _, e := range es {
		if e.Name == name {
			return e.Value, true
		}
	}
	return 0, false
}

// targetsOf captures what each of an action's objects must show once it is
// applied, with the facts of the snapshot that first proposed it.
func targetsOf(la *ledger.Action, v *view) []Target {
	var out []Target
	switch la.Kind {
	case lever.KindResize:
		for _, it := range la.Items {
			t := Target{Kind: "workload", Name: it.Target}
			cpuNow, _ := evidence(it.Evidence, "cpu_request_now")
			cpuNew, _ := evidence(it.Evidence, "cpu_request_new")
			memNow, _ := evidence(it.Evidence, "memory_request_now")
			memNew, _ := evidence(it.Evidence, "memory_request_new")
			podCPU, podMem := podRequests(v.pods[it.Target])
			// the pod's other containers keep their requests
			t.CPUNow, t.MemNow = round2(podCPU), round2(podMem)
			t.CPUNew, t.MemNew = round2(podCPU-cpuNow+cpuNew), round2(podMem-memNow+memNew)
			t.Expect = fmt.Sprintf("pod requests %s CPU, %s GiB memory (from %s, %s)", num(t.CPUNew), num(t.MemNew), num(t.CPUNow), num(t.MemNow))
			out = append(out, t)
		}
	case lever.KindMIG, lever.KindTimeSlice, lever.KindCheaperModel, lever.KindAutoscale, lever.KindReclaim:
		for _, it := range la.Items {
			t := Target{Kind: "workload", Name: it.Target, Model: podModel(v, v.pods[it.Target])}
			t.Expect = map[string]string{
				lever.KindMIG:          "its pods hold MIG slices",
				lever.KindTimeSlice:    "its pods hold time-slice shares",
				lever.KindCheaperModel: "its pods run on a GPU model other than " + orNone(t.Model),
				lever.KindAutoscale:    "its replica count follows demand (pods per hour vary)",
				lever.KindReclaim:      "its idle stretches given back (an hour with no pod running)",
			}[la.Kind]
			out = append(out, t)
		}
	default:
		region := ""
		if la.Kind == lever.KindRegion {
			// key: lever:kind:<pool>/<region>/<instance type>
			if parts := strings.Split(la.Key, "/"); len(parts) >= 3 {
				region = parts[len(parts)-2]
			}
		}
		for _, lt := range la.Targets {
			t := Target{Kind: lt.Kind, Name: lt.Name, Region: region}
			if n := v.nodes[lt.Name]; n != nil && lt.Kind == "node" {
				t.Model, t.Instance, t.Layout = nodeModel(n), n.InstanceType, layoutOf(n)
			}
			t.Expect = nodeExpect(la.Kind, t)
			out = append(out, t)
		}
	}
	return out
}

func nodeExpect(kind string, t Target) string {
	if t.Kind != "node" {
		return ""
	}
	switch kind {
	case lever.KindRemoveNodes, lever.KindRepack:
		return "node gone"
	case lever.KindPrepareNodes:
		return "MIG layout changed from " + orNone(t.Layout)
	case lever.KindScaleNodes:
		return "a " + orNone(t.Model) + " node scaled down by the autoscaler"
	case lever.KindSpot:
		return "on spot capacity (this node, or a spot " + orNone(t.Instance) + " in its place)"
	case lever.KindRegion:
		return "replaced by a " + orNone(t.Instance) + " node in " + orNone(t.Region)
	}
	return ""
}

// detect reads what the cluster shows of each target and counts them.
func detect(a *Action, v *view, at time.Time) {
	a.Detected, a.Of = 0, 0
	switch a.Kind {
	case lever.KindCommit:
		a.Detection = "a commitment is bought from the cloud and shows in the bill, not the cluster: mark it applied (gpuwise progress mark " + a.ID + " applied)"
		return
	case lever.KindScaleNodes:
		detectScaling(a, v, at)
		return
	case KindAdmission:
		refreshAdmission(a, v)
	}
	what := "workloads"
	for i := range a.Targets {
		t := &a.Targets[i]
		if t.Expect == "" {
			continue
		}
		ok, seen, known, when := v.check(a, t)
		t.Seen = seen
		if !known {
			continue
		}
		switch t.Kind {
		case "node":
			what = "nodes"
		case "policy", "policies":
			what = "policies"
		}
		a.Of++
		if ok {
			a.Detected++
			if !t.Applied || t.AppliedAt.IsZero() {
				t.AppliedAt = at
				if !when.IsZero() && when.Before(at) {
					t.AppliedAt = when // the cluster says when
				}
			}
		} else {
			t.AppliedAt = time.Time{}
		}
		t.Applied = ok
	}
	switch {
	case a.Of == 0 && (a.Kind == lever.KindAutoscale || a.Kind == lever.KindReclaim) && !v.hasHour:
		a.Detection = "the snapshot has no hourly series, so replica changes cannot be seen: mark it applied (gpuwise progress mark " + a.ID + " applied)"
	case a.Of == 0 && len(a.Targets) > 0 && a.Targets[0].Seen != "":
		a.Detection = a.Targets[0].Seen + " (gpuwise progress mark " + a.ID + " applied)"
	case a.Of == 0:
		a.Detection = "nothing the cluster shows tells it: mark it applied (gpuwise progress mark " + a.ID + " applied)"
	default:
		a.Detection = fmt.Sprintf("%d of %d %s show it", a.Detected, a.Of, what)
	}
}

// check says whether one target shows the change, what it shows, and
// whether the snapshot can tell at all.
// when is the time the cluster shows it changed (a node's deletion, the
// start of the last pod with the new shape), zero when it does not say.
func (v *view) check(a *Action, t *Target) (applied bool, seen string, known bool, when time.Time) {
	applied, seen, known = v.checkNow(a, t)
	if !applied {
		return
	}
	switch a.Kind {
	case lever.KindRemoveNodes, lever.KindRepack, lever.KindRegion, lever.KindSpot:
		if n := v.nodes[t.Name]; n != nil && !n.Deleted.IsZero() {
			when = n.Deleted
		}
	case lever.KindResize, lever.KindMIG, lever.KindTimeSlice, lever.KindCheaperModel:
		for _, p := range v.pods[t.Name] {
			if p.Start.After(when) {
				when = p.Start
			}
		}
	}
	return
}

func (v *view) checkNow(a *Action, t *Target) (applied bool, seen string, known bool) {
	switch a.Kind {
	case lever.KindRemoveNodes, lever.KindRepack:
		if v.alive[t.Name] {
			return false, "still running", true
		}
		return true, "gone", true
	case lever.KindPrepareNodes:
		n := v.nodes[t.Name]
		if n == nil || !v.alive[t.Name] {
			return false, "node gone", true
		}
		l := layoutOf(n)
		return l != t.Layout, "layout " + orNone(l), true
	case lever.KindSpot:
		if n := v.nodes[t.Name]; n != nil && v.alive[t.Name] {
			return n.Capacity == cluster.Spot, "running, " + orNone(n.Capacity), true
		}
		if v.spotLike(t, a.FirstProposed) {
			return true, "gone; a spot " + orNone(t.Instance) + " runs in its place", true
		}
		return false, "gone, no spot " + orNone(t.Instance) + " started in its place", true
	case lever.KindRegion:
		if v.alive[t.Name] {
			return false, "still running in its region", true
		}
		for name, n := range v.nodes {
			if v.alive[name] && n.Region == t.Region && n.InstanceType == t.Instance {
				return true, "gone; " + name + " runs in " + t.Region, true
			}
		}
		return false, "gone, no " + orNone(t.Instance) + " node in " + orNone(t.Region), true
	case lever.KindResize:
		ps := v.pods[t.Name]
		if len(ps) == 0 {
			return false, "no pod of it in the snapshot", true
		}
		match := 0
		for _, p := range ps {
			cpu, mem := p.CPURequestCores(), float64(p.MemoryRequestBytes())/(1<<30)
			if near(cpu, t.CPUNew) && near(mem, t.MemNew) {
				match++
			}
		}
		cpu, mem := podRequests(ps)
		return match == len(ps), fmt.Sprintf("%d of %d pods at the new requests (mean %s CPU, %s GiB)", match, len(ps), num(cpu), num(mem)), true
	case lever.KindMIG, lever.KindTimeSlice, lever.KindCheaperModel:
		ps := v.pods[t.Name]
		if len(ps) == 0 {
			return false, "no pod of it in the snapshot", true
		}
		match := 0
		for _, p := range ps {
			if v.shaped(a.Kind, p, t.Model) {
				match++
			}
		}
		return match == len(ps), fmt.Sprintf("%d of %d pods %s", match, len(ps), map[string]string{
			lever.KindMIG: "on MIG slices", lever.KindTimeSlice: "on time-slice shares", lever.KindCheaperModel: "on another GPU model"}[a.Kind]), true
	case KindAdmission:
		return v.checkAdmission(t)
	case KindVPAOff:
		return v.checkVPA(t)
	case KindDCGM:
		return v.checkDCGM(t)
	case lever.KindAutoscale:
		if sc := v.scalerOf(t.Name); sc != nil {
			return true, fmt.Sprintf("%s %s/%s targets it (%d to %d replicas)", sc.Kind, sc.Namespace, sc.Name, sc.MinReplicas, sc.MaxReplicas), true
		}
		applied, seen, known = v.replicasVary(a, t)
		if !applied && v.readsScalers() {
			return false, "no HorizontalPodAutoscaler or ScaledObject targets it; " + seen, true
		}
		return applied, seen, known
	case KindTaint:
		n := v.nodes[t.Name]
		if n == nil || !v.alive[t.Name] {
			return false, "node gone", false
		}
		return hasGPUTaint(n), map[bool]string{true: "tainted", false: "no GPU taint"}[hasGPUTaint(n)], true
	case lever.KindReclaim:
		return v.replicasVary(a, t)
	}
	return false, "", false
}

// replicasVary reads an autoscaling or reclaim target from the hourly
// series: the replicas vary (or drop to none) since it was proposed, and
// did not before.
func (v *view) replicasVary(a *Action, t *Target) (applied bool, seen string, known bool) {
	if !v.hasHour {
		return false, "no hourly series", false
	}
	wh := v.hourly[t.Name]
	if wh == nil {
		return false, "no hourly series for it", true
	}
	from := int(math.Floor(a.FirstProposed.Sub(v.w.Start).Hours())) - wh.From
	bLo, bHi, bn := podRange(wh.Pods, 0, from)
	lo, hi, n := podRange(wh.Pods, from, len(wh.Pods))
	if n == 0 {
		return false, "no hour since it was proposed", true
	}
	if a.Kind == lever.KindReclaim {
		if bn > 0 && bLo < 0.05 {
			return false, fmt.Sprintf("it had hours without a pod before it was proposed too (fewest since: %s): the hours cannot tell; mark it", num(lo)), false
		}
		return lo < 0.05, fmt.Sprintf("fewest pods in an hour since proposed: %s (before: %s)", num(lo), num(bLo)), true
	}
	if bn > 0 && bHi-bLo >= 1 {
		return false, fmt.Sprintf("its replicas varied before it was proposed too (%s to %s): the hours cannot tell; mark it", num(bLo), num(bHi)), false
	}
	return hi-lo >= 1, fmt.Sprintf("pods per hour since proposed: %s to %s", num(lo), num(hi)), true
}

// shaped says whether a pod shows the shape a shape action asks for.
func (v *view) shaped(kind string, p *cluster.Pod, model string) bool {
	if len(p.GPUs) == 0 {
		return false
	}
	for _, h := range p.GPUs {
		u, ok := v.units[h.UnitID]
		if !ok {
			return false
		}
		switch kind {
		case lever.KindMIG:
			if u.kind != cluster.MIGSlice {
				return false
			}
		case lever.KindTimeSlice:
			if u.kind != cluster.TimeSlice {
				return false
			}
		case lever.KindCheaperModel:
			if u.model == model || u.model == "" {
				return false
			}
		}
	}
	return true
}

// spotLike: a spot node of the target's instance type (or GPU model)
// started after the action was proposed and runs at the window's end.
func (v *view) spotLike(t *Target, since time.Time) bool {
	for name, n := range v.nodes {
		if !v.alive[name] || n.Capacity != cluster.Spot || n.Created.Before(since) {
			continue
		}
		if (t.Instance != "" && n.InstanceType == t.Instance) || (t.Instance == "" && nodeModel(n) == t.Model) {
			return true
		}
	}
	return false
}

// detectScaling: node autoscaling shows as nodes of the pool's GPU model
// ending (scaled down) after the action was proposed; the nodes the plan's
// removals and moves name, and spot interruptions, are not the
// autoscaler's doing.
func detectScaling(a *Action, v *view, at time.Time) {
	models := map[string]bool{}
	for _, t := range a.Targets {
		if t.Model != "" {
			models[t.Model] = true
		}
	}
	a.Of = 1
	ended, started := 0, 0
	var first time.Time // the first scale-down: the cluster says when
	for _, n := range v.nodes {
		if !models[nodeModel(n)] || v.named[n.Name] || n.EndReason == cluster.NodeSpotInterrupted {
			continue
		}
		if !n.Deleted.IsZero() && n.Deleted.After(a.FirstProposed) && !n.Deleted.After(v.w.End) {
			ended++
			if first.IsZero() || n.Deleted.Before(first) {
				first = n.Deleted
			}
		}
		if !n.Created.IsZero() && n.Created.After(a.FirstProposed) && !n.Created.After(v.w.End) {
			started++
		}
	}
	seen := fmt.Sprintf("since proposed, %d %s node(s) ended and %d started", ended, joinUnique(sortedKeys(models)), started)
	np := v.nodePoolOf(a, models)
	switch {
	case np != nil:
		seen = fmt.Sprintf("Karpenter NodePool %s provisions it (consolidation %s); %s", np.Name, orNone(np.ConsolidationPolicy), seen)
	case v.controls.Reads(cluster.ResourceNodePool):
		seen = "no Karpenter NodePool for it; " + seen
	}
	for i := range a.Targets {
		a.Targets[i].Seen = seen
	}
	if np != nil && ended == 0 {
		a.Detected = 1
		if a.AppliedAt.IsZero() {
			for i := range a.Targets {
				if a.Targets[i].AppliedAt.IsZero() {
					a.Targets[i].AppliedAt = at
				}
				a.Targets[i].Applied = true
			}
		}
	}
	if ended > 0 {
		a.Detected = 1
		if a.AppliedAt.IsZero() {
			for i := range a.Targets {
				if a.Targets[i].AppliedAt.IsZero() {
					a.Targets[i].AppliedAt = first
				}
				a.Targets[i].Applied = true
			}
		}
	}
	a.Detection = "the pool scales: " + seen
}

// hasGPUTaint: the node repels pods without the GPU toleration.
func hasGPUTaint(n *cluster.Node) bool {
	for _, t := range n.Taints {
		if t.Key == "nvidia.com/gpu" && (t.Effect == "NoSchedule" || t.Effect == "NoExecute") {
			return true
		}
	}
	return false
}

// untainted are the GPU nodes alive at the window's end without the GPU
// taint: the taint groundwork's targets.
func untainted(v *view) []Target {
	var out []Target
	for _, name := range sortedKeys(v.nodes) {
		n := v.nodes[name]
		if v.alive[name] && n.HasGPUs() && !hasGPUTaint(n) {
			out = append(out, Target{Kind: "node", Name: name, Model: nodeModel(n), Expect: "tainted nvidia.com/gpu:NoSchedule"})
		}
	}
	return out
}

// podRange is the fewest and most pods in the hours [from, to) with data.
func podRange(pods cluster.Series, from, to int) (lo, hi float64, n int) {
	lo, hi = math.Inf(1), math.Inf(-1)
	for i := max(from, 0); i < min(to, len(pods)); i++ {
		x := float64(pods[i])
		if math.IsNaN(x) {
			continue
		}
		lo, hi, n = math.Min(lo, x), math.Max(hi, x), n+1
	}
	return lo, hi, n
}

// podRequests is the mean CPU (cores) and memory (GiB) requests of pods.
func podRequests(ps []*cluster.Pod) (cpu, mem float64) {
	if len(ps) == 0 {
		return 0, 0
	}
	for _, p := range ps {
		cpu += p.CPURequestCores()
		mem += float64(p.MemoryRequestBytes()) / (1 << 30)
	}
	return cpu / float64(len(ps)), mem / float64(len(ps))
}

// podModel is the GPU model the workload's pods hold, "" when none.
func podModel(v *view, ps []*cluster.Pod) string {
	for _, p := range ps {
		for _, h := range p.GPUs {
			if u, ok := v.units[h.UnitID]; ok && u.model != "" {
				return u.model
			}
		}
	}
	return ""
}

func nodeModel(n *cluster.Node) string {
	if n.GPUModel != "" {
		return n.GPUModel
	}
	if len(n.GPUs) > 0 {
		return n.GPUs[0].Model
	}
	return ""
}

// near: within 2% or 0.011 (the evidence is rounded to 2 decimals).
func near(got, want float64) bool {
	return math.Abs(got-want) <= math.Max(0.011, 0.02*math.Abs(want))
}

func round2(x float64) float64 { return math.Round(x*100) / 100 }

func num(x float64) string { return fmt.Sprintf("%.2f", x) }

func orNone(s string) string {
	if s == "" {
		return "(unknown)"
	}
	return s
}
