package kube

import (
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"
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
	if len(ids) == 0 || int64(len(ids)) != gpuCount(p, pools) {
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

// gpuCount is the units p's requests take on a node with pools: one per
// requested unit, and every core of a device per whole Neuron device
// requested where the node offers its devices core by core.
func gpuCount(p *cluster.Pod, pools map[string][]string) int64 {
	var n int64
	for _, c := range p.Containers {
		for r, v := range c.GPURequests {
			if g := coreGroups(r, pools[r]); g != nil {
				v *= int64(len(g[0]))
			}
			n += v
		}
	}
	return n
}

// coreGroups splits a whole-Neuron-device resource's pool into its
// devices' NeuronCore units where the node offers devices core by core
// (cluster.NeuronCores: the pool is core units, cluster.NeuronCoreUnitID);
// nil for any other resource or pool.
func coreGroups(res string, pool []string) [][]string {
	if res != cluster.ResNeuron && res != cluster.ResNeuronDevice || len(pool) == 0 {
		return nil
	}
	var out [][]string
	for _, id := range pool {
		dev, ok := coreDevice(id)
		if !ok {
			return nil
		}
		if k := len(out); k > 0 {
			if d, _ := coreDevice(out[k-1][0]); d == dev {
				out[k-1] = append(out[k-1], id)
				continue
			}
		}
		out = append(out, []string{id})
	}
	return out
}

// coreDevice is the device part of a NeuronCore unit's ID ("n/gpu3" of
// "n/gpu3/nc6").
func coreDevice(id string) (string, bool) {
	i := strings.LastIndexByte(id, '/')
	if i < 0 || !strings.HasPrefix(id[i+1:], "nc") {
		return "", false
	}
	return id[:i], true
}

// takeDevices gives p want whole devices of groups, each one whose every
// core is free; it returns how many it gave.
func takeDevices(p *cluster.Pod, groups [][]string, want int64, u units) int64 {
	var got int64
	for _, g := range groups {
		if got == want {
			break
		}
		if !slices.ContainsFunc(g, func(id string) bool { return !u.free(id) }) {
			for _, id := range g {
				u.take(id)
				p.GPUs = append(p.GPUs, cluster.Holding{UnitID: id})
			}
			got++
		}
	}
	return got
}

func assignPod(p *cluster.Pod, pools map[string][]string, u units) []string {
	var notes []string
	for _, c := range p.Containers {
		for _, res := range slices.Sorted(maps.Keys(c.GPURequests)) {
			want := c.GPURequests[res]
			got := int64(0)
			if g := coreGroups(res, pools[res]); g != nil {
				if got = takeDevices(p, g, want, u); got < want {
					notes = append(notes, fmt.Sprintf("pod %s: requests %d %s on node %s, which has only %d whose NeuronCores are all free; %d not modelled",
						p.Key(), want, res, p.Node, got, want-got))
				}
				continue
			}
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
