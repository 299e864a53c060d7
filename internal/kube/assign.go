package kube

import (
	"fmt"
	"maps"
	"slices"
	"sort"

	"github.com/gpuwise/gpuwise/internal/cluster"
)

// assignUnits gives every running GPU pod concrete units on its node.
// The API does not say which physical GPU a pod got, so pods in (start,
// namespace, name) order take the first free units advertised under the
// resource they requested. Terminated pods hold nothing now and get no
// units. A pod asking for more than its node has left gets a note.
func assignUnits(pods []cluster.Pod, pools map[string]map[string][]string) []string {
	order := make([]int, 0, len(pods))
	for i := range pods {
		p := &pods[i]
		if p.Node != "" && p.End.IsZero() && p.RequestsGPU() {
			order = append(order, i)
		}
	}
	sort.SliceStable(order, func(a, b int) bool {
		pa, pb := &pods[order[a]], &pods[order[b]]
		if !pa.Start.Equal(pb.Start) {
			return pa.Start.Before(pb.Start)
		}
		return pa.Key() < pb.Key()
	})
	taken := map[string]bool{}
	var notes []string
	for _, i := range order {
		notes = append(notes, assignPod(&pods[i], pools[pods[i].Node], taken)...)
	}
	return notes
}

func assignPod(p *cluster.Pod, pools map[string][]string, taken map[string]bool) []string {
	var notes []string
	for _, c := range p.Containers {
		for _, res := range slices.Sorted(maps.Keys(c.GPURequests)) {
			want := c.GPURequests[res]
			got := int64(0)
			for _, id := range pools[res] {
				if got == want {
					break
				}
				if !taken[id] {
					taken[id] = true
					p.GPUs = append(p.GPUs, cluster.Holding{UnitID: id})
					got++
				}
			}
			if got < want {
				notes = append(notes, fmt.Sprintf("pod %s: requests %d %s on node %s, which advertises only %d free; %d not modelled",
					p.Key(), want, res, p.Node, got, want-got))
			}
		}
	}
	return notes
}
