package generate

import (
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/gpuwise/gpuwise/internal/cluster"
	"github.com/gpuwise/gpuwise/internal/rightsize"
)

// This file turns right-sizing results (gpuwise recommend) into the
// generators' inputs: one resource patch and one VPA per workload, and the
// time-slicing configs of dev nodes.

// RecommendedResources is one strategic-merge patch per right-sized
// workload; notes say which workloads were left out and why. counted is,
// per workload, what the savings ledger counts for its change (the only
// dollars a patch states: one number, one source); a workload it does
// not name gets "the savings ledger lists no change of it".
func RecommendedResources(r *rightsize.Result, counted map[string]string) ([]File, []string, error) {
	patches, notes := resourcePatches(r, counted)
	files, err := Patches(patches)
	return files, notes, err
}

// RecommendedVPAs is one recommendation-only VPA per right-sized workload,
// with the policy's minimums; a Job that no longer runs at the end of the
// snapshot's window (cluster.FinishedJobs) gets none (a VPA for it would watch no
// pod and recommend for nothing), and a note says so.
func RecommendedVPAs(r *rightsize.Result, pol rightsize.Policy, s *cluster.Snapshot) ([]File, []string, error) {
	vpas, notes := vpaObjects(r, pol, cluster.FinishedJobs(s))
	files, err := VPAs(vpas)
	return files, notes, err
}

// RecommendedTimeSlicing is the device-plugin time-slicing config of the
// nodes whose GPU pods are all dev workloads recommended for time-slicing.
func RecommendedTimeSlicing(r *rightsize.Result, s *cluster.Snapshot) ([]File, []string, error) {
	ts, notes := timeSlicing(r, s)
	if len(ts.Configs) == 0 {
		return nil, notes, nil
	}
	files, err := TimeSlicingConfig(ts)
	return files, notes, err
}

// patchable maps an owner kind to a kind a patch can target.
func patchable(ns, kind, name string) (Workload, bool) {
	switch k := WorkloadKind(kind); k {
	case Deployment, StatefulSet, DaemonSet, Job, CronJob:
		return Workload{Kind: k, Namespace: ns, Name: name}, true
	}
	return Workload{}, false
}

// resourcePatches is one patch per workload: its containers' new requests
// (memory request = limit; the CPU limit rightsize recommends: = request
// for GPU containers) and, for MIG and time-slice shapes, the GPU resource
// swap. A bare Job cannot be patched (ForNextRun says so instead).
func resourcePatches(r *rightsize.Result, counted map[string]string) ([]ResourcePatch, []string) {
	ps := &patchSet{by: map[string]*ResourcePatch{}, counted: counted}
	for _, c := range r.Containers {
		ps.addContainer(c)
	}
	for _, g := range r.GPU {
		ps.addGPU(g)
	}
	out, later := ForNextRun(ps.patches())
	return out, append(ps.notes, later...)
}

// patchSet gathers one patch per workload, in first-seen order, and what
// the savings ledger counts for each.
type patchSet struct {
	by      map[string]*ResourcePatch // nil: cannot be patched (noted)
	order   []string
	counted map[string]string
	notes   []string
}

// get is the workload's patch, nil when its owner cannot be patched.
func (ps *patchSet) get(key, ns, kind, name string) *ResourcePatch {
	if p, seen := ps.by[key]; seen {
		return p
	}
	w, ok := patchable(ns, kind, name)
	if !ok {
		ps.notes = append(ps.notes, fmt.Sprintf("%s: a %s cannot be patched in place; change the object that creates it", key, kind))
		ps.by[key] = nil
		return nil
	}
	ps.by[key] = &ResourcePatch{Workload: w}
	ps.order = append(ps.order, key)
	return ps.by[key]
}

func (ps *patchSet) addContainer(c rightsize.ContainerRec) {
	p := ps.get(c.Workload, c.Namespace, c.OwnerKind, c.OwnerName)
	if p == nil || (c.CPUMilli == c.CurrentCPUMilli && c.MemoryBytes == c.CurrentMemoryBytes && c.MemoryBytes == c.CurrentMemoryLimit &&
		(c.CPULimitMilli == 0 || c.CPULimitMilli == c.CurrentCPULimit)) {
		return
	}
	cr := ContainerResources{Name: c.Container, CPURequestMilli: c.CPUMilli, CPULimitMilli: c.CPULimitMilli,
		MemoryRequestBytes: c.MemoryBytes, MemoryLimitBytes: c.MemoryBytes}
	if cr.CPULimitMilli == 0 && c.CurrentCPULimit > 0 && c.CurrentCPULimit < c.CPUMilli {
		cr.CPULimitMilli = c.CPUMilli // a limit below the request is invalid
	}
	p.Containers = append(p.Containers, cr)
}

// addGPU swaps the GPU resource of a MIG or time-slice recommendation.
func (ps *patchSet) addGPU(g rightsize.GPURec) {
	if (g.Action != rightsize.UseMIG && g.Action != rightsize.UseTimeSlice) || g.Resource == g.CurrentResource || g.Container == "" {
		return
	}
	p := ps.get(g.Workload, g.Namespace, g.OwnerKind, g.OwnerName)
	if p == nil {
		return
	}
	change := &GPUChange{Resource: g.Resource, Count: 1}
	if g.CurrentResource != "" {
		change.Remove = []string{g.CurrentResource}
	}
	attachGPU(p, g.Container, change)
}

// patches are the non-empty patches with their evidence line.
func (ps *patchSet) patches() []ResourcePatch {
	var out []ResourcePatch
	for _, k := range ps.order {
		p := ps.by[k]
		if len(p.Containers) == 0 {
			continue
		}
		counted := ps.counted[k]
		if counted == "" {
			counted = "the savings ledger lists no change of it"
		}
		p.Evidence = fmt.Sprintf("gpuwise recommend: requests from measured usage (docs/recommendations.md); %s", counted)
		out = append(out, *p)
	}
	return out
}

func attachGPU(p *ResourcePatch, container string, change *GPUChange) {
	for i := range p.Containers {
		if p.Containers[i].Name == container {
			p.Containers[i].GPU = change
			return
		}
	}
	p.Containers = append(p.Containers, ContainerResources{Name: container, GPU: change})
}

// vpaObjects is one recommendation-only VPA per right-sized workload, with
// the policy's minimums.
func vpaObjects(r *rightsize.Result, pol rightsize.Policy, finished map[string]time.Time) ([]VPA, []string) {
	var notes []string
	by := map[string]*VPA{}
	var order []string
	for _, c := range r.Containers {
		v, seen := by[c.Workload]
		if !seen {
			if end, ok := finished[c.Workload]; ok {
				notes = append(notes, fmt.Sprintf("%s: no VPA: the Job finished (its last pod ended %s) and no pod of it runs at the window's end, so a VPA would watch nothing; `gpuwise generate resources` says what to set in its manifest for the next run",
					c.Workload, end.UTC().Format(time.RFC3339)))
				by[c.Workload] = nil
				continue
			}
			w, ok := patchable(c.Namespace, c.OwnerKind, c.OwnerName)
			if !ok {
				notes = append(notes, fmt.Sprintf("%s: a VPA cannot target a %s", c.Workload, c.OwnerKind))
				by[c.Workload] = nil
				continue
			}
			v = &VPA{Workload: w, MinCPUMilli: pol.CPU.MinMilli, MinMemoryBytes: pol.Memory.MinBytes,
				Evidence: "gpuwise recommend sized these containers; compare with the VPA recommender's numbers"}
			by[c.Workload] = v
			order = append(order, c.Workload)
		}
		if v != nil {
			v.Containers = append(v.Containers, c.Container)
		}
	}
	out := make([]VPA, 0, len(order))
	for _, k := range order {
		out = append(out, *by[k])
	}
	return out, notes
}

// timeSlicing gives each node whose GPU pods all belong to dev workloads
// recommended for time-slicing the config "ts-N", N the fewest replicas
// any of them was given. Nodes that also run other GPU workloads are left
// out: time-slicing applies to every GPU of a node and would mix them
// (gpuwise plan moves workloads first).
func timeSlicing(r *rightsize.Result, snap *cluster.Snapshot) (TimeSlicing, []string) {
	ts := TimeSlicing{}
	replicas := map[string]int{}
	for _, g := range r.GPU {
		if g.Action == rightsize.UseTimeSlice {
			replicas[g.Workload] = g.Replicas
		}
	}
	var notes []string
	perNode := map[string]int{}
	for _, node := range gpuNodesOf(r, rightsize.UseTimeSlice) {
		n, others := 0, []string{}
		for _, p := range runningGPUPods(snap, node) {
			if want, ok := replicas[p.WorkloadKey()]; ok {
				n = minPositive(n, want)
			} else {
				others = append(others, p.WorkloadKey())
			}
		}
		if len(others) > 0 {
			notes = append(notes, fmt.Sprintf("node %s left out of time-slicing: it also runs %s; move the dev workloads to a dev pool first (gpuwise plan)",
				node, strings.Join(slices.Compact(slices.Sorted(slices.Values(others))), ", ")))
			continue
		}
		if n >= 2 {
			perNode[node] = n
		}
	}
	configs := map[int]bool{}
	for _, node := range slices.Sorted(maps.Keys(perNode)) {
		n := perNode[node]
		name := fmt.Sprintf("ts-%d", n)
		if !configs[n] {
			configs[n] = true
			ts.Configs = append(ts.Configs, SharingConfig{Name: name, RenameByDefault: true, FailRequestsGreaterThanOne: true,
				Resources: []SharedResource{{Name: "nvidia.com/gpu", Replicas: n}}})
		}
		ts.Nodes = append(ts.Nodes, NodeConfig{Node: node, Config: name})
	}
	sort.Slice(ts.Configs, func(i, j int) bool { return ts.Configs[i].Name < ts.Configs[j].Name })
	return ts, notes
}

// gpuNodesOf lists the nodes of every workload with the action.
func gpuNodesOf(r *rightsize.Result, action rightsize.GPUAction) []string {
	seen := map[string]bool{}
	for _, g := range r.GPU {
		if g.Action == action {
			for _, np := range g.Nodes {
				seen[np.Node] = true
			}
		}
	}
	return slices.Sorted(maps.Keys(seen))
}

// runningGPUPods are the GPU pods on a node at the end of the window.
func runningGPUPods(s *cluster.Snapshot, node string) []*cluster.Pod {
	var out []*cluster.Pod
	for i := range s.Pods {
		p := &s.Pods[i]
		if p.Node == node && len(p.GPUs) > 0 && (p.End.IsZero() || !p.End.Before(s.Window.End)) {
			out = append(out, p)
		}
	}
	return out
}

func minPositive(a, b int) int {
	if a == 0 || b < a {
		return b
	}
	return a
}
