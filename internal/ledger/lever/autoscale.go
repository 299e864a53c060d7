package lever

import (
	"cmp"
	"fmt"
	"slices"

	"github.com/gpuwise/gpuwise/internal/capacity"
	"github.com/gpuwise/gpuwise/internal/cluster"
)

// autoscaleLever runs GPU nodes only in the hours demand needs them
// (docs/capacity.md). Per GPU model, from the hour-by-hour GPU share pods
// held (the demand sweep), the nodes each hour needs; two actions:
//
//  1. scale-nodes: a node autoscaler (a Karpenter NodePool) removes the
//     nodes the hour does not need — training nodes idle between jobs, the
//     nodes consolidation kept for the window's peak (burst.go);
//  2. autoscale-workloads: GPU Deployments and StatefulSets scaled to the
//     replicas each hour needs at the target activity (KEDA or an HPA,
//     package capacity) hold fewer GPUs in the troughs, so fewer nodes
//     run then. It needs the first: replicas that go free no node unless
//     the node pool scales down.
//
// A node's hours a month are the hours it is needed, × 730 ÷ the window's
// hours; nodes of a model run cheapest per GPU first. Nodes the packer
// needs beyond the GPU count at the peak (CPU, memory, MIG placement)
// stay in every hour: only the difference between the peak and the hour
// is freed. Node start-up and consolidateAfter are paid at every change.
type autoscaleLever struct{}

func (autoscaleLever) Name() string { return LeverAutoscale }

// Node autoscaler timings (docs/capacity.md): a GPU node takes about ten
// minutes to join and load drivers; the generated NodePool waits ten
// minutes (consolidateAfter) before it removes an empty node.
const (
	nodeBootHours        = 10.0 / 60
	consolidateAfterHour = 10.0 / 60
	consolidateAfter     = "10m"
)

// Keys and artefacts of the autoscale actions.
const (
	keyScaleNodes   = LeverAutoscale + ":" + KindScaleNodes + ":"
	keyAutoscaleWls = LeverAutoscale + ":" + KindAutoscale + ":"
	genNodePool     = "gpuwise generate nodepool -d out/"
	genAutoscaling  = "gpuwise generate autoscaling -d out/"
)

func (autoscaleLever) Propose(m *Model, env *Env) (Proposal, error) {
	var prop Proposal
	byModel, nc, err := serviceScalings(env)
	if err != nil {
		return prop, err
	}
	prop.NotCounted = nc
	for _, model := range keptModels(m) {
		p := newPoolScaling(m, env, model, byModel[model])
		prop.Changes = append(prop.Changes, p.changes()...)
	}
	return prop, nil
}

// serviceScalings sizes the GPU services from the hourly series (package
// capacity), by GPU model; without hourly series only the node pools
// scale (their demand comes from the pods' lives).
func serviceScalings(env *Env) (map[string][]capacity.Scaling, []NotCounted, error) {
	c := env.capacity
	if c == nil || !c.hourly {
		return nil, []NotCounted{{Lever: LeverAutoscale, Target: "GPU Deployments and StatefulSets",
			Reason: "needs hourly series to size replicas: the source has no hour-by-hour data (a version 3 snapshot, Prometheus or the simulator has)"}}, nil
	}
	var nc []NotCounted
	for _, sk := range c.skipped {
		nc = append(nc, NotCounted{Lever: LeverAutoscale, Target: sk.Workload, Reason: sk.Reason})
	}
	byModel, more := scalingsByModel(env.Snapshot, c.scalings)
	return byModel, append(nc, more...), nil
}

// keptModels are the GPU models of the model's kept nodes, sorted.
func keptModels(m *Model) []string {
	var out []string
	for i := range m.Nodes {
		if n := &m.Nodes[i]; n.Kept && n.GPUs > 0 && !slices.Contains(out, n.GPUModel) {
			out = append(out, n.GPUModel)
		}
	}
	slices.Sort(out)
	return out
}

// scalingsByModel groups the scalings of workloads running at the
// window's end by the GPU model their pods hold; the others are not
// counted (nothing of theirs is in the modelled cluster).
func scalingsByModel(s *cluster.Prepared, scs []capacity.Scaling) (map[string][]capacity.Scaling, []NotCounted) {
	models := workloadModels(s)
	out := map[string][]capacity.Scaling{}
	var nc []NotCounted
	for _, sc := range scs {
		model, ok := models[sc.Workload]
		switch {
		case !ok:
			nc = append(nc, NotCounted{Lever: LeverAutoscale, Target: sc.Workload, Reason: "no pod of it holds a GPU at the window's end"})
		case sc.FreedGPUHours <= 0:
			nc = append(nc, NotCounted{Lever: LeverAutoscale, Target: sc.Workload,
				Reason: fmt.Sprintf("every hour needs the replicas it runs (%d) at the target activity", sc.Replicas)})
		default:
			out[model] = append(out[model], sc)
		}
	}
	return out, nc
}

// workloadModels is the GPU model each workload's pods hold at the
// window's end.
func workloadModels(s *cluster.Prepared) map[string]string {
	units := map[string]string{}
	for i := range s.Nodes() {
		for _, g := range s.Nodes()[i].GPUs {
			for _, u := range g.Units {
				units[u.ID] = g.Model
			}
		}
	}
	out := map[string]string{}
	for i := range s.Pods() {
		p := &s.Pods()[i]
		if !p.End.IsZero() && p.End.Before(s.Window().End) || p.Start.After(s.Window().End) {
			continue
		}
		for _, h := range p.GPUs {
			if m, ok := units[h.UnitID]; ok {
				out[p.WorkloadKey()] = m
			}
		}
	}
	return out
}

// nodesByPrice are a model's kept nodes, cheapest per GPU first (they run
// longest).
func nodesByPrice(m *Model, model string) []*Node {
	var out []*Node
	for i := range m.Nodes {
		if n := &m.Nodes[i]; n.Kept && n.GPUModel == model && n.GPUs > 0 {
			out = append(out, n)
		}
	}
	slices.SortStableFunc(out, func(a, b *Node) int {
		return cmp.Compare(a.USDPerHour/float64(a.GPUs), b.USDPerHour/float64(b.GPUs))
	})
	return out
}
