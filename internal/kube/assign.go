package kube

import (
	"fmt"
	"maps"
	"slices"
	"sort"
	"time"

	"github.com/gpuwise/gpuwise/internal/cluster"
)

// assignUnits gives every running GPU pod concrete units on its node.
// The API does not say which physical GPU a pod got, so pods in (start,
// namespace, name) order take the first free units advertised under the
// resource they requested. Terminated pods hold nothing now and get no
// units. A pod asking for more than its node has left gets a note.
func assignUnits(pods []cluster.Pod, pools map[string]map[string][]string) []string {
	return assignSticky(pods, pools, nil, nil)
}

// assignSticky is assignUnits where a running pod first keeps the units
// prev gave it (by UID), when they are still advertised and free, so that
// a pod's units do not move between snapshots as other pods come and go;
// and where a unit reserved until time t (an ended pod held it) goes only
// to pods that started at or after t.
func assignSticky(pods []cluster.Pod, pools map[string]map[string][]string, prev map[string][]string, reserved map[string]time.Time) []string {
	order := runningGPUPods(pods)
	rest := order[:0:0]
	taken := map[string]bool{}
	for _, i := range order {
		if !keep(&pods[i], pools[pods[i].Node], prev[pods[i].UID], free(taken, reserved, pods[i].Start)) {
			rest = append(rest, i)
		}
	}
	var notes []string
	for _, i := range rest {
		notes = append(notes, assignPod(&pods[i], pools[pods[i].Node], free(taken, reserved, pods[i].Start))...)
	}
	return notes
}

// units says whether a unit is free for a pod starting at start, and
// takes it.
type units struct {
	taken    map[string]bool
	reserved map[string]time.Time
	start    time.Time
}

func free(taken map[string]bool, reserved map[string]time.Time, start time.Time) units {
	return units{taken: taken, reserved: reserved, start: start}
}

func (u units) free(id string) bool {
	return !u.taken[id] && !u.reserved[id].After(u.start)
}

func (u units) take(id string) { u.taken[id] = true }

// runningGPUPods are the indexes of bound, running pods asking for GPUs,
// in (start, namespace, name) order.
func runningGPUPods(pods []cluster.Pod) []int {
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
	return order
}

// keep gives p the units it had, when every one is still advertised on its
// node and free, and their count still matches its requests.
func keep(p *cluster.Pod, pools map[string][]string, ids []string, u units) bool {
	if len(ids) == 0 || int64(len(ids)) != gpuCount(p) {
		return false
	}
	advertised := map[string]bool{}
	for _, ids := range pools {
		for _, id := range ids {
			advertised[id] = true
		}
	}
	for _, id := range ids {
		if !advertised[id] || !u.free(id) {
			return false
		}
	}
	for _, id := range ids {
		u.take(id)
		p.GPUs = append(p.GPUs, cluster.Holding{UnitID: id})
	}
	return true
}

func gpuCount(p *cluster.Pod) int64 {
	var n int64
	for _, c := range p.Containers {
		for _, v := range c.GPURequests {
			n += v
		}
	}
	return n
}

func assignPod(p *cluster.Pod, pools map[string][]string, u units) []string {
	var notes []string
	for _, c := range p.Containers {
		for _, res := range slices.Sorted(maps.Keys(c.GPURequests)) {
			want := c.GPURequests[res]
			got := int64(0)
			for _, id := range pools[res] {
				if got == want {
					break
				}
				if u.free(id) {
					u.take(id)
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
