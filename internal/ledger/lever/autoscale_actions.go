package lever

import (
	"fmt"
	"slices"
	"strings"

	"github.com/gpuwise/gpuwise/internal/capacity"
	"github.com/gpuwise/gpuwise/internal/cluster"
)

// scaleNodes is the action that lets a node autoscaler run the model's
// nodes only in the hours demand needs them.
func (p *poolScaling) scaleNodes(hours []float64) Change {
	total, all := nodeHours(hours), float64(len(p.nodes))*HoursPerMonth
	a := Action{Key: keyScaleNodes + p.model, Kind: KindScaleNodes, Target: p.model + " GPU nodes", Targets: p.targets(),
		Title: fmt.Sprintf("Scale the %s GPU nodes with demand: %.0f of %.0f node-hours a month", p.model, total, all),
		Why: fmt.Sprintf("pods held at most %.1f and at least %.1f %s GPUs an hour in the %s; %d node(s) of %d GPU(s) kept: a node autoscaler (Karpenter NodePool, consolidation when empty after %s) removes the nodes an hour does not need and adds them back %0.f minutes ahead",
			maxOf(p.demand), minOf(p.demand), p.model, p.windowText(), len(p.nodes), p.nodes[0].GPUs, consolidateAfter, nodeBootHours*60),
		EffortHours: effortAction + effortNodePool,
		Evidence: []Evidence{
			{Name: "peak_gpus_held_hourly", Value: round2(maxOf(p.demand)), Unit: "GPUs"}, {Name: "trough_gpus_held_hourly", Value: round2(minOf(p.demand)), Unit: "GPUs"},
			{Name: "nodes", Value: float64(len(p.nodes)), Unit: "nodes"}, {Name: "node_hours_month", Value: round2(total), Unit: "hours"},
			{Name: "node_hours_month_before", Value: all, Unit: "hours"},
		},
		Artefacts: []Artefact{{Command: genNodePool, Files: nodePoolFiles(p.env.Snapshot, nodeNames(p.nodes), p.model, "")}},
	}
	a.Confidence, a.ConfidenceReason = historyConfidence(p.env.Snapshot.Window().Hours(), "the hourly GPU demand")
	a.Risk, a.RiskReason = Medium, fmt.Sprintf("when demand returns, pods wait about %.0f minutes for a node to boot", nodeBootHours*60)
	return Change{Action: a, Apply: p.apply(hours)}
}

// autoscaleWorkloads is the action that scales the model's GPU services
// to their hourly need; it needs the node pool to scale too.
func (p *poolScaling) autoscaleWorkloads(hours []float64) Change {
	a := Action{Key: keyAutoscaleWls + p.model, Kind: KindAutoscale,
		Artefacts: []Artefact{{Command: genAutoscaling}},
		title: func(n int) string {
			return fmt.Sprintf("Autoscale %d GPU service(s) on %s to the replicas each hour needs", n, p.model)
		},
	}
	for _, sc := range p.scaled {
		a.Items = append(a.Items, p.item(sc))
	}
	a.group()
	a.Why = fmt.Sprintf("at a %.0f%% target activity the services need fewer replicas in the troughs; with the %s nodes scaling too, they run %.0f node-hours a month",
		p.env.Autoscale.TargetActivity*100, p.model, nodeHours(hours))
	apply, freed, model := p.apply(hours), p.freed, p.model
	return Change{Action: a, Requires: []string{keyScaleNodes + p.model}, Apply: func(m *Model) {
		apply(m)
		m.setFreed(model, freed)
	}}
}

// item is one scaled workload.
func (p *poolScaling) item(sc capacity.Scaling) Item {
	perMonth := HoursPerMonth / p.env.Snapshot.Window().Hours()
	it := Item{Target: sc.Workload, key: keyAutoscaleWls + sc.Workload, weight: sc.FreedGPUHours * perMonth,
		Why: fmt.Sprintf("%d replica(s) now; %d to %d needed an hour at %.0f%% activity (sized on %s); scale on %s",
			sc.Replicas, sc.Trough, sc.Peak, p.env.Autoscale.TargetActivity*100, sc.Sizing, sc.Signal.Describe()),
		EffortHours: effortScaler,
		Evidence: []Evidence{
			{Name: "replicas", Value: float64(sc.Replicas), Unit: "replicas"}, {Name: "trough_replicas", Value: float64(sc.Trough), Unit: "replicas"},
			{Name: "peak_replicas", Value: float64(sc.Peak), Unit: "replicas"}, {Name: "floor", Value: float64(sc.MinReplicas), Unit: "replicas"},
			{Name: "gpu_hours_freed_month", Value: round2(sc.FreedGPUHours * perMonth), Unit: "GPU-hours"},
			{Name: "gpu_hours_held_month", Value: round2(sc.HeldGPUHours * perMonth), Unit: "GPU-hours"},
		},
		Files: []string{autoscalingFile(sc.Namespace, sc.Name)},
	}
	it.Confidence, it.ConfidenceReason = historyConfidence(p.env.Snapshot.Window().Hours(), "the replicas it needs an hour")
	switch {
	case sc.Sizing == capacity.SizingPeak:
		it.Confidence, it.ConfidenceReason = Low, "no GPU activity series: sized on request counters, assuming the busiest hour ran at the target"
	case it.Confidence == High:
		it.Confidence, it.ConfidenceReason = Medium, it.ConfidenceReason+"; latency under the scaler needs a load test"
	}
	it.Risk, it.RiskReason = Medium, fmt.Sprintf("a burst faster than a GPU pod starts (%v) queues requests; the floor of %d keeps one warm", p.env.Autoscale.Startup, sc.MinReplicas)
	return it
}

// historyConfidence grades what hourly history shows: a week or more
// repeats the weekly pattern (high), three days the daily one (medium),
// less is low.
func historyConfidence(hours float64, what string) (Level, string) {
	switch {
	case hours >= 7*24:
		return High, fmt.Sprintf("%s over %.0f h: a full week of the pattern", what, hours)
	case hours >= shortHistory:
		return Medium, fmt.Sprintf("%s over %.0f h: daily cycles, no full week", what, hours)
	}
	return Low, fmt.Sprintf("%s over only %.0f h", what, hours)
}

// nodePoolFiles are the NodePools `generate nodepool` (suffix "") or
// `generate spot` (suffix "-spot") writes for the named nodes of a model:
// one per cloud with a Karpenter provider.
func nodePoolFiles(s *cluster.Prepared, nodes []string, model, suffix string) []string {
	want := map[string]bool{}
	for _, n := range nodes {
		want[n] = true
	}
	var out []string
	for i := range s.Nodes() {
		n := &s.Nodes()[i]
		if cloud := strings.ToLower(n.Cloud); want[n.Name] && slices.Contains(capacity.KarpenterClouds, cloud) {
			if f := "nodepool/" + capacity.NodePoolNameIn(model, cloud) + suffix + ".yaml"; !slices.Contains(out, f) {
				out = append(out, f)
			}
		}
	}
	slices.Sort(out)
	return out
}

// nodeNames are the nodes' names.
func nodeNames(ns []*Node) []string {
	out := make([]string, len(ns))
	for i, n := range ns {
		out[i] = n.Name
	}
	return out
}

// autoscalingFile is where `generate autoscaling` writes a scaler.
func autoscalingFile(ns, name string) string { return "keda/" + ns + "/" + name + ".yaml" }
