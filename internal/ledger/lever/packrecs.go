package lever

import (
	"github.com/gpuwise/gpuwise/internal/packing"
	"github.com/gpuwise/gpuwise/internal/rightsize"
)

// PackingRecommendations converts right-sizing results into the shapes and
// requests the planner packs (packing.RecommendedShapes): the one place
// right-sizing and packing are composed, for the ledger and the plan use
// case alike.
func PackingRecommendations(r *rightsize.Result) *packing.Recommendations {
	out := newPackingRecs(len(r.Containers), len(r.GPU))
	out.addContainers(r.Containers)
	for i := range r.GPU {
		out.addGPU(&r.GPU[i])
	}
	return out.Recommendations
}

// packingRecs builds a packing.Recommendations; a later recommendation for
// the same workload or container replaces an earlier one.
type packingRecs struct{ *packing.Recommendations }

// newPackingRecs sizes the maps once: at 10k GPUs they are large, and each
// subset's packing gathers one.
func newPackingRecs(containers, gpus int) packingRecs {
	return packingRecs{&packing.Recommendations{
		Shapes:   make(map[string]packing.Reshape, gpus),
		Requests: make(map[packing.ContainerKey]packing.Requests, containers),
	}}
}

func (p packingRecs) addContainers(cs []rightsize.ContainerRec) {
	for i := range cs {
		c := &cs[i]
		p.Requests[packing.ContainerKey{Workload: c.Workload, Container: c.Container}] = packing.Requests{CPUMilli: c.CPUMilli, MemoryBytes: c.MemoryBytes}
	}
}

func (p packingRecs) addGPU(g *rightsize.GPURec) {
	p.Shapes[g.Workload] = packing.Reshape{Kind: reshapeKind(g.Action), Profile: g.Profile, Replicas: g.Replicas,
		TargetModel: g.TargetModel, GPUsPerPod: g.GPUsPerPod, Reason: g.Reason}
}

// reshapeKind is the planner's kind of a right-sizing action; keeping the
// GPUs whole (or an action the planner does not know) keeps the shape.
func reshapeKind(a rightsize.GPUAction) packing.ReshapeKind {
	switch a {
	case rightsize.UseMIG:
		return packing.ToMIG
	case rightsize.UseTimeSlice:
		return packing.ToTimeSlice
	case rightsize.CheaperModel:
		return packing.ToCheaperModel
	}
	return packing.KeepShape
}
