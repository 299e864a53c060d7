package exporter

import (
	"sort"

	"github.com/gpuwise/gpuwise/internal/cluster"
)

// Fleet is the GPU nodes' shape at the window's end and the spot nodes
// that left during it: what the sharing-change and spot alerts watch.
type Fleet struct {
	// GPUs counts the physical GPUs of nodes alive at the window's end,
	// by GPU model and sharing (exclusive, mig, time-slicing).
	GPUs map[FleetKey]int
	// SpotEnded counts the spot GPU nodes whose life ended inside the
	// window, by GPU model.
	SpotEnded map[string]int
}

// FleetKey is a GPU model and a sharing mode.
type FleetKey struct {
	Model   string
	Sharing cluster.Sharing
}

// NewFleet counts nodes' GPUs at w's end and the spot nodes that ended in w.
func NewFleet(nodes []cluster.Node, w cluster.Window) *Fleet {
	f := &Fleet{GPUs: map[FleetKey]int{}, SpotEnded: map[string]int{}}
	for i := range nodes {
		n := &nodes[i]
		if !n.HasGPUs() {
			continue
		}
		ended := !n.Deleted.IsZero() && !n.Deleted.After(w.End)
		if ended && n.Capacity == cluster.Spot && n.Deleted.After(w.Start) {
			f.SpotEnded[n.GPUModel]++
		}
		if ended || n.Created.After(w.End) {
			continue
		}
		for _, g := range n.GPUs {
			f.GPUs[FleetKey{Model: g.Model, Sharing: g.Sharing}]++
		}
	}
	return f
}

func (e emitter) fleet(f *Fleet) {
	keys := make([]FleetKey, 0, len(f.GPUs))
	for k := range f.GPUs {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool {
		if keys[i].Model != keys[j].Model {
			return keys[i].Model < keys[j].Model
		}
		return keys[i].Sharing < keys[j].Sharing
	})
	for _, k := range keys {
		e.emit(&FleetGPUs, float64(f.GPUs[k]), k.Model, string(k.Sharing))
	}
	for _, m := range sortedKeys(f.SpotEnded) {
		e.emit(&SpotNodesEnded, float64(f.SpotEnded[m]), m)
	}
}
