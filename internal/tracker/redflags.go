package tracker

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/gpuwise/gpuwise/internal/cluster"
	"github.com/gpuwise/gpuwise/internal/ledger/lever"
)

// Flag is one of the seeds' red flags watched after an applied action,
// with the action it blames (docs/progress.md "Red flags").
type Flag struct {
	Name string `json:"name"`
	// Action is the tracked id it blames, applied at Since.
	Action string    `json:"action"`
	Lever  string    `json:"lever"`
	Kind   string    `json:"kind"`
	Since  time.Time `json:"since"`
	// Status is Firing, Clear or NoData (the data cannot tell: Detail
	// says what is missing; never a silent pass).
	Status string `json:"status"`
	// Threshold is the seeds' threshold in words; Value what was measured
	// against Limit (nil when nothing was).
	Threshold string   `json:"threshold"`
	Value     *float64 `json:"value"`
	Limit     float64  `json:"limit"`
	Detail    string   `json:"detail"`
	// Advice is what to do when it fires.
	Advice  string   `json:"advice"`
	Targets []string `json:"targets,omitempty"`
}

// Flag statuses.
const (
	Firing = "firing"
	Clear  = "ok"
	NoData = "no-data"
)

// The red flags (docs/progress.md "Red flags") and their thresholds.
const (
	FlagLowUtilization    = "low_utilization_after_mig"
	FlagOOMKillsUp        = "oom_kills_up"
	FlagSpotInterruptions = "spot_interruptions"
	FlagLatencyUp         = "latency_up"
	FlagCostUp            = "cost_up"

	// LowUtilizationLimit: GPU utilisation of the workload's held GPU
	// below 20 % after a MIG change (its profiles too large).
	LowUtilizationLimit = 0.20
	// SpotInterruptionsLimit: more than 5 spot interruptions in an hour.
	SpotInterruptionsLimit = 5
	// LatencyLimitMIG and LatencyLimit: serving latency up more than 10 %
	// after a MIG change, more than 5 % after any other.
	LatencyLimitMIG = 0.10
	LatencyLimit    = 0.05
)

// FlagNames are the red flags in the order outputs list them.
var FlagNames = []string{FlagLowUtilization, FlagOOMKillsUp, FlagSpotInterruptions, FlagLatencyUp, FlagCostUp}

// watched: the kinds whose change in the cluster the flags watch (a
// commitment and the groundwork change no workload).
func watched(a *Action) bool {
	return (a.Status == Applied || a.Status == Partly) && !a.AppliedAt.IsZero() && a.Kind != lever.KindCommit && a.Lever != Groundwork
}

// watch computes the red flags of every applied action on the window's
// view; the cost flag's realised part is added by Realise.
func (p *Plan) watch(v *view) []Flag {
	var out []Flag
	for _, a := range p.Actions {
		if !watched(a) {
			continue
		}
		for _, name := range flagsOf(a.Kind) {
			f := Flag{Name: name, Action: a.ID, Lever: a.Lever, Kind: a.Kind, Since: a.AppliedAt}
			switch name {
			case FlagLowUtilization:
				v.lowUtilization(a, &f)
			case FlagOOMKillsUp:
				v.oomUp(a, &f)
			case FlagSpotInterruptions:
				v.spotInterruptions(a, &f)
			case FlagLatencyUp:
				v.latency(a, &f)
			case FlagCostUp:
				v.costUp(a, &f)
			}
			out = append(out, f)
		}
	}
	return out
}

// flagsOf are the flags watched after an action of the kind.
func flagsOf(kind string) []string {
	switch kind {
	case lever.KindMIG:
		return []string{FlagLowUtilization, FlagOOMKillsUp, FlagLatencyUp, FlagCostUp}
	case lever.KindResize, lever.KindTimeSlice, lever.KindCheaperModel:
		return []string{FlagOOMKillsUp, FlagLatencyUp}
	case lever.KindSpot:
		return []string{FlagSpotInterruptions, FlagLatencyUp, FlagCostUp}
	case lever.KindPrepareNodes:
		return []string{FlagLatencyUp}
	}
	return []string{FlagLatencyUp, FlagCostUp}
}

// workloads are an action's workload targets.
func workloads(a *Action) []string {
	var out []string
	for _, t := range a.Targets {
		if t.Kind == "workload" {
			out = append(out, t.Name)
		}
	}
	return out
}

// after is the first whole hour of a workload's series at or after t, as
// an index into them.
func (v *view) after(wh *cluster.WorkloadHours, t time.Time) int {
	return int(math.Ceil(t.Sub(v.w.Start).Hours())) - wh.From
}

// sum adds a series' values over [from, to), NaN skipped; n counts hours
// with data.
func sum(s cluster.Series, from, to int) (total float64, n int) {
	for i := max(from, 0); i < min(to, len(s)); i++ {
		if x := float64(s[i]); !math.IsNaN(x) {
			total, n = total+x, n+1
		}
	}
	return total, n
}

// lowUtilization: the MIG'd workloads' GPU utilisation (active ÷ measured
// GPU-hours held) since the change.
func (v *view) lowUtilization(a *Action, f *Flag) {
	f.Threshold, f.Limit = "GPU utilisation of the MIG slices below 20 % since the change", LowUtilizationLimit
	f.Advice = "the MIG profiles are too large for the work: pick a smaller profile (gpuwise recommend) or pack more replicas per GPU"
	var active, measured float64
	for _, w := range workloads(a) {
		wh := v.hourly[w]
		if wh == nil || wh.GPUActive == nil {
			continue
		}
		i := v.after(wh, a.AppliedAt)
		ac, _ := sum(wh.GPUActive, i, len(wh.GPUActive))
		me, _ := sum(wh.GPUMeasured, i, len(wh.GPUMeasured))
		active, measured = active+ac, measured+me
		f.Targets = append(f.Targets, w)
	}
	if measured == 0 {
		f.Status, f.Detail = NoData, "no GPU activity measured on its workloads since the change (dcgm-exporter series): utilisation cannot be checked"
		return
	}
	u := active / measured
	f.Value = ptr(round4(u))
	f.Status, f.Detail = Clear, fmt.Sprintf("GPU utilisation since the change %.1f %% (of %.1f measured GPU-hours)", 100*u, measured)
	if u < LowUtilizationLimit {
		f.Status = Firing
	}
}

// oomUp: the workloads' OOM kills per hour since the change against
// before it.
func (v *view) oomUp(a *Action, f *Flag) {
	f.Threshold = "OOMKilled restarts up since the change (more per hour than before it)"
	var bk, bh, ak, ah float64
	for _, w := range workloads(a) {
		wh := v.hourly[w]
		if wh == nil || wh.OOMKills == nil {
			continue
		}
		i := v.after(wh, a.AppliedAt)
		b, nb := sum(wh.OOMKills, 0, int(math.Floor(a.AppliedAt.Sub(v.w.Start).Hours()))-wh.From)
		af, na := sum(wh.OOMKills, i, len(wh.OOMKills))
		bk, bh, ak, ah = bk+b, bh+float64(nb), ak+af, ah+float64(na)
		if af > 0 {
			f.Targets = append(f.Targets, w)
		}
	}
	if ah == 0 {
		f.Status, f.Detail = NoData, "no OOM kill counts for its workloads since the change (kube-state-metrics or cAdvisor series): OOM kills cannot be checked"
		return
	}
	before := 0.0
	if bh > 0 {
		before = bk / bh
	}
	rate := ak / ah
	f.Value, f.Limit = ptr(round4(rate)), round4(before)
	f.Status = Clear
	f.Detail = fmt.Sprintf("%.0f OOM kill(s) in %.0f h since the change (%.2f an hour; %.2f an hour before)", ak, ah, rate, before)
	if bh == 0 {
		f.Detail = fmt.Sprintf("%.0f OOM kill(s) in %.0f h since the change (%.2f an hour; the window holds no hour before it, so any kill counts)", ak, ah, rate)
	}
	if ak == 0 || rate <= before {
		return
	}
	f.Status = Firing
	switch {
	case a.Kind == lever.KindMIG:
		f.Advice = "the MIG profile is too small for the workload's memory: move it to the next larger profile"
	case ak > 2:
		f.Advice = "the memory request was cut too far: add 10–20 % memory; killed more than twice, so go on in +10 % steps until the kills stop"
	default:
		f.Advice = "the memory request was cut too far: add 10–20 % memory"
	}
}

// spotInterruptions: spot nodes of the action's instance types (or GPU
// models) reclaimed since the move, the most in one clock hour.
func (v *view) spotInterruptions(a *Action, f *Flag) {
	f.Threshold, f.Limit = "more than 5 spot interruptions in an hour since the move", SpotInterruptionsLimit
	f.Advice = "spot capacity of this type is scarce here: move to another region, zone or instance type, or keep this work on demand"
	models, instances := map[string]bool{}, map[string]bool{}
	for _, t := range a.Targets {
		models[t.Model], instances[t.Instance] = t.Model != "", t.Instance != ""
	}
	perHour := map[time.Time]int{}
	total := 0
	for _, name := range sortedKeys(v.nodes) {
		n := v.nodes[name]
		if n.Capacity != cluster.Spot || n.EndReason != cluster.NodeSpotInterrupted || n.Deleted.Before(a.AppliedAt) || n.Deleted.After(v.w.End) {
			continue
		}
		if !instances[n.InstanceType] && !models[nodeModel(n)] {
			continue
		}
		perHour[n.Deleted.Truncate(time.Hour)]++
		total++
		f.Targets = append(f.Targets, name)
	}
	worst := 0
	for _, c := range perHour {
		worst = max(worst, c)
	}
	f.Value, f.Status = ptr(float64(worst)), Clear
	f.Detail = fmt.Sprintf("%d spot interruption(s) of its nodes since the move, at most %d in one hour", total, worst)
	if worst > SpotInterruptionsLimit {
		f.Status = Firing
	}
}

// LatencyQuantiles are the quantiles the latency flag compares.
var LatencyQuantiles = []float64{0.50, 0.95, 0.99}

// latency: p50, p95 and p99 of the serving workloads' latency histograms
// (the bucket counts summed over the hours before the change, and over
// those from its first whole hour on, interpolated as Prometheus'
// histogram_quantile) before against after; the largest relative rise
// is the value. Workloads whose histograms differ (metric or bounds) are
// compared each on its own.
func (v *view) latency(a *Action, f *Flag) {
	f.Limit = LatencyLimit
	f.Threshold = "serving latency (p50/p95/p99) up more than 5 % since the change"
	if a.Kind == lever.KindMIG || a.Kind == lever.KindPrepareNodes {
		f.Limit, f.Threshold = LatencyLimitMIG, "serving latency (p50/p95/p99) up more than 10 % since the MIG change"
	}
	f.Advice = "the change slowed the servers: compare the latency histograms before and after it; undo it (or give back the GPU share or memory it took) where the SLO breaks"
	type group struct {
		metric        string
		bounds        []float64
		before, after []float64
		nb, na        int
		workloads     []string
	}
	var groups []*group
	serving, missing := 0, map[string]bool{}
	for _, w := range workloads(a) {
		wh := v.hourly[w]
		if wh == nil {
			continue
		}
		if wh.Latency == nil {
			if wh.Server != "" {
				serving++
				missing[wh.Server] = true
			}
			continue
		}
		l := wh.Latency
		var g *group
		for _, x := range groups {
			if x.metric == l.Metric && slices.Equal(x.bounds, l.Bounds) {
				g = x
			}
		}
		if g == nil {
			g = &group{metric: l.Metric, bounds: l.Bounds}
			groups = append(groups, g)
		}
		var nb, na int
		g.before, nb = l.Sum(0, int(math.Floor(a.AppliedAt.Sub(v.w.Start).Hours()))-wh.From, g.before)
		g.after, na = l.Sum(v.after(wh, a.AppliedAt), wh.Hours(), g.after)
		g.nb, g.na = g.nb+nb, g.na+na
		g.workloads = append(g.workloads, w)
	}
	worst, measured := math.Inf(-1), false
	var parts []string
	for _, g := range groups {
		if g.nb == 0 || g.na == 0 {
			continue
		}
		var rises []string
		for _, q := range LatencyQuantiles {
			b, af := cluster.HistogramQuantile(q, g.bounds, g.before), cluster.HistogramQuantile(q, g.bounds, g.after)
			if math.IsNaN(b) || math.IsNaN(af) || b <= 0 {
				continue
			}
			measured = true
			r := af/b - 1
			if r > worst {
				worst = r
				f.Targets = g.workloads
			}
			rises = append(rises, fmt.Sprintf("p%.0f %s → %s (%+.1f %%)", 100*q, seconds(b), seconds(af), 100*r))
		}
		if len(rises) > 0 {
			parts = append(parts, fmt.Sprintf("%s over %d h before and %d h since: %s", g.metric, g.nb, g.na, strings.Join(rises, ", ")))
		}
	}
	if !measured {
		f.Targets = nil
		f.Status = NoData
		switch {
		case len(groups) > 0:
			f.Detail = "its workloads' latency histograms hold no requests on one side of the change (the window needs hours before and after it): a latency rise cannot be checked"
		case serving > 0:
			f.Detail = fmt.Sprintf("no latency metrics: %d of its workloads serve requests (%s) but have no latency histogram (%s): a latency rise cannot be checked", serving, strings.Join(sortedKeys(missing), ", "), missingLatency(missing))
		default:
			f.Detail = "no latency metrics: none of its workloads has a serving latency histogram (vllm:e2e_request_latency_seconds_bucket, tgi_request_duration_bucket): a latency rise cannot be checked"
		}
		return
	}
	f.Value = ptr(round4(worst))
	f.Status, f.Detail = Clear, strings.Join(parts, "; ")
	if worst > f.Limit {
		f.Status = Firing
	}
}

// missingLatency names the histogram each server would expose.
func missingLatency(servers map[string]bool) string {
	var out []string
	for _, s := range sortedKeys(servers) {
		switch s {
		case cluster.ServerVLLM:
			out = append(out, "vllm:e2e_request_latency_seconds_bucket was not found")
		case cluster.ServerTriton:
			out = append(out, "Triton exposes only nv_inference_request_duration_us, a cumulative duration (a mean, no quantiles)")
		default:
			out = append(out, s+" exposes none gpuwise reads")
		}
	}
	return strings.Join(out, "; ")
}

// seconds writes a latency in s or ms.
func seconds(x float64) string {
	if x < 1 {
		return fmt.Sprintf("%.0f ms", 1000*x)
	}
	return fmt.Sprintf("%.2f s", x)
}

// costUp: what the change left paid for and unused in the cluster — MIG
// instances no pod holds on its workloads' nodes, nodes an autoscaler
// started since that hold nothing; Realise adds the measured rise.
func (v *view) costUp(a *Action, f *Flag) {
	f.Threshold = "cost up since the change: the measured run-rate above its range, MIG instances left unused, idle nodes the autoscaler started"
	f.Status, f.Detail = Clear, "nothing the change left unused at the window's end"
	var idle []string
	switch a.Kind {
	case lever.KindMIG:
		idle = v.unusedSlices(a)
		if len(idle) > 0 {
			f.Detail = fmt.Sprintf("%d MIG instance(s) on its workloads' nodes held by no pod at the window's end", len(idle))
			f.Advice = "re-cut the GPUs to the profiles the pods use, or pack more pods onto them"
		}
	case lever.KindScaleNodes, lever.KindAutoscale:
		idle = v.idleNew(a)
		if len(idle) > 0 {
			f.Detail = fmt.Sprintf("%d GPU node(s) started since the change hold no GPU at the window's end", len(idle))
			f.Advice = "the autoscaler keeps or adds idle nodes: check its consolidation (Karpenter consolidationPolicy, cluster-autoscaler scale-down) and the pods' scale-down delay"
		}
	}
	f.Value = ptr(float64(len(idle)))
	if len(idle) > 0 {
		f.Status, f.Targets = Firing, idle
	}
}

// unusedSlices are the MIG slices no pod holds at the window's end on the
// nodes that hold the action's workloads' slices.
func (v *view) unusedSlices(a *Action) []string {
	nodes := map[string]bool{}
	held := map[string]bool{}
	for _, ps := range v.pods {
		for _, p := range ps {
			if p.End.IsZero() || !p.End.Before(v.w.End) {
				for _, h := range p.GPUs {
					held[h.UnitID] = true
				}
			}
		}
	}
	for _, w := range workloads(a) {
		for _, p := range v.pods[w] {
			for _, h := range p.GPUs {
				if u, ok := v.units[h.UnitID]; ok && u.kind == cluster.MIGSlice {
					nodes[p.Node] = true
				}
			}
		}
	}
	var out []string
	for _, name := range sortedKeys(nodes) {
		if n := v.nodes[name]; n != nil && v.alive[name] {
			for _, g := range n.GPUs {
				for _, u := range g.Units {
					if u.Kind == cluster.MIGSlice && !held[u.ID] {
						out = append(out, u.ID)
					}
				}
			}
		}
	}
	return out
}

// idleNew are the nodes of the action's GPU models started since it was
// applied, alive at the window's end, that no running pod holds a GPU of.
func (v *view) idleNew(a *Action) []string {
	models := map[string]bool{}
	for _, t := range a.Targets {
		if t.Model != "" {
			models[t.Model] = true
		}
	}
	busy := map[string]bool{}
	for _, ps := range v.pods {
		for _, p := range ps {
			if len(p.GPUs) > 0 && (p.End.IsZero() || !p.End.Before(v.w.End)) {
				busy[p.Node] = true
			}
		}
	}
	var out []string
	for _, name := range sortedKeys(v.nodes) {
		n := v.nodes[name]
		if models[nodeModel(n)] && v.alive[name] && n.Created.After(a.AppliedAt) && !busy[name] {
			out = append(out, name)
		}
	}
	return out
}

// flags are the plan's watched flags with the realised part of the cost
// flag: a measured money action whose range lies below zero (its nodes
// cost more since) fires it.
func (p *Plan) flags(rs []Realised) []Flag {
	out := append([]Flag(nil), p.Flags...)
	for _, r := range rs {
		if r.Status != Measured || r.HighUSDMonth >= 0 {
			continue
		}
		i := len(out)
		for j := range out {
			if out[j].Action == r.ID && out[j].Name == FlagCostUp {
				i = j
			}
		}
		if i == len(out) {
			out = append(out, Flag{Name: FlagCostUp, Action: r.ID, Lever: r.Lever, Kind: r.Kind, Since: r.AppliedAt,
				Threshold: "cost up since the change: the measured run-rate above its range, MIG instances left unused, idle nodes the autoscaler started"})
		}
		f := &out[i]
		f.Status, f.Value = Firing, ptr(-r.RealisedUSDMonth)
		rise := fmt.Sprintf("its nodes cost %.2f $/month more since the change (range %.2f to %.2f saved)", -r.RealisedUSDMonth, r.LowUSDMonth, r.HighUSDMonth)
		if f.Detail == "" || strings.HasPrefix(f.Detail, "nothing") {
			f.Detail = rise
		} else {
			f.Detail = rise + "; " + f.Detail
		}
		if f.Advice == "" {
			f.Advice = "the change costs more than it saves: undo it or find what grew on its nodes"
		}
	}
	return out
}

// CountFiring counts the flags that fire.
func CountFiring(fs []Flag) int {
	n := 0
	for _, f := range fs {
		if f.Status == Firing {
			n++
		}
	}
	return n
}

func round4(x float64) float64 { return math.Round(x*1e4) / 1e4 }
