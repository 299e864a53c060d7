package generate

import (
	"fmt"
	"hash/fnv"
	"sort"
	"strings"

	"github.com/gpuwise/gpuwise/internal/cluster"
	"github.com/gpuwise/gpuwise/internal/packing"
)

// This file turns a consolidation plan (gpuwise plan) into the generators'
// inputs: per-node MIG layouts, device-plugin configs, GPU resource
// patches and the drain commands of removed nodes.

// PlanArtefacts is everything a plan needs applied: per-node MIG layouts,
// device-plugin configs (time-slicing, mixed MIG strategy), GPU resource
// patches per workload, and the cordon/drain commands of removed nodes.
func PlanArtefacts(pl *packing.Plan, snap *cluster.Snapshot) ([]File, []string, error) {
	return planArtefacts(pl, snap, nil)
}

// PlanArtefactsKeeping is PlanArtefacts with the nodes of keep left out of
// the drain commands, each with its reason as a comment: the savings
// ledger keeps some nodes the plan removes (the peak needs them, and the
// node autoscaler runs them only then), and no file drains a node an
// action keeps.
func PlanArtefactsKeeping(keep map[string]string) func(*packing.Plan, *cluster.Snapshot) ([]File, []string, error) {
	return func(pl *packing.Plan, snap *cluster.Snapshot) ([]File, []string, error) {
		return planArtefacts(pl, snap, keep)
	}
}

func planArtefacts(pl *packing.Plan, snap *cluster.Snapshot, keep map[string]string) ([]File, []string, error) {
	var files []File
	var notes []string
	mig, ts := planNodeConfigs(pl, nodesByName(snap))
	if len(mig.Nodes) > 0 {
		f, err := MIGPartedConfig(mig)
		if err != nil {
			return nil, nil, err
		}
		files = append(files, f...)
	}
	if len(ts.Nodes) > 0 {
		f, err := TimeSlicingConfig(ts)
		if err != nil {
			return nil, nil, err
		}
		files = append(files, f...)
	}
	patches, pnotes := planPatches(pl, snap)
	notes = append(notes, pnotes...)
	if len(patches) > 0 {
		f, err := Patches(patches)
		if err != nil {
			return nil, nil, err
		}
		files = append(files, f...)
	}
	if f, ok := removalCommands(pl, keep); ok {
		files = append(files, f)
	}
	notes = append(notes, "CPU and memory request changes are not in these patches; `gpuwise generate resources` writes them")
	return files, notes, nil
}

// PlanMIG is the mig-parted part of PlanArtefacts alone: the MIG layout
// of every kept node, as the planner laid it out. `gpuwise generate mig`
// writes it, so it and `gpuwise generate plan` never disagree about a
// node's layout.
func PlanMIG(pl *packing.Plan, snap *cluster.Snapshot) ([]File, []string, error) {
	mig, _ := planNodeConfigs(pl, nodesByName(snap))
	notes := []string{"these are the consolidation plan's MIG layouts (gpuwise plan): workloads the plan moves are placed with `gpuwise generate plan`, which writes the same layouts"}
	if len(mig.Nodes) == 0 {
		return nil, notes, nil
	}
	files, err := MIGPartedConfig(mig)
	return files, notes, err
}

func nodesByName(s *cluster.Snapshot) map[string]*cluster.Node {
	nodes := map[string]*cluster.Node{}
	for i := range s.Nodes {
		nodes[s.Nodes[i].Name] = &s.Nodes[i]
	}
	return nodes
}

// planNodeConfigs gives every kept node with MIG GPUs its mig-parted
// config (one name per distinct layout set) and the mixed strategy, every
// time-sliced node its replica config, and nodes that lose MIG or
// time-slicing the all-disabled / exclusive config. A node whose GPUs DRA
// or HAMi allocates gets none (the planner keeps it as it is).
func planNodeConfigs(pl *packing.Plan, nodes map[string]*cluster.Node) (MIGParted, TimeSlicing) {
	var mig MIGParted
	var ts TimeSlicing
	configs := map[string]bool{}
	for _, n := range pl.Nodes {
		if !n.Keep {
			continue
		}
		cur := nodes[n.Name]
		if cur != nil && packing.UnplannedAllocation(cur) != "" {
			continue // DRA or HAMi allocates its GPUs: no device-plugin or mig-parted config is its
		}
		groups := migGroups(n)
		hasMIG := len(groups) > 0
		switch {
		case hasMIG:
			mig.Nodes = append(mig.Nodes, MIGNode{Node: n.Name, Config: migConfigName(n.Model, groups), Groups: groups})
		case cur != nil && cur.MIGStrategy != "":
			mig.Nodes = append(mig.Nodes, MIGNode{Node: n.Name, Config: AllDisabledConfig})
		}
		name, cfg := deviceConfig(n.TimeSlicingReplicas, hasMIG)
		if cfg == nil {
			if cur != nil && (cur.MIGStrategy != "" || cur.Labels[DevicePluginConfigLabel] != "") {
				ts.Nodes = append(ts.Nodes, NodeConfig{Node: n.Name, Config: ExclusiveConfig})
			}
			continue
		}
		if !configs[name] {
			configs[name] = true
			ts.Configs = append(ts.Configs, *cfg)
		}
		ts.Nodes = append(ts.Nodes, NodeConfig{Node: n.Name, Config: name})
	}
	sort.Slice(ts.Configs, func(i, j int) bool { return ts.Configs[i].Name < ts.Configs[j].Name })
	return mig, ts
}

func deviceConfig(reps int, mixed bool) (string, *SharingConfig) {
	strategy := "none"
	if mixed {
		strategy = "mixed"
	}
	switch {
	case reps > 0:
		name := fmt.Sprintf("ts-%d", reps)
		if mixed {
			name += "-mixed"
		}
		return name, &SharingConfig{Name: name, MIGStrategy: strategy, RenameByDefault: true, FailRequestsGreaterThanOne: true,
			Resources: []SharedResource{{Name: "nvidia.com/gpu", Replicas: reps}}}
	case mixed:
		return "mig-mixed", &SharingConfig{Name: "mig-mixed", MIGStrategy: strategy}
	}
	return "", nil
}

// migGroups groups a node's GPUs by MIG layout; GPUs without MIG form a
// MIG-disabled group.
func migGroups(n packing.NodePlan) []MIGDeviceGroup {
	by := map[string]*MIGDeviceGroup{}
	var order []string
	any := false
	for _, g := range n.GPUs {
		key := ""
		if g.Mode == packing.ModeMIG {
			key, any = g.Layout.String(), true
		}
		grp := by[key]
		if grp == nil {
			grp = &MIGDeviceGroup{Model: n.Model}
			if g.Mode == packing.ModeMIG {
				grp.Layout = map[string]int(g.Layout)
			}
			by[key] = grp
			order = append(order, key)
		}
		grp.Devices = append(grp.Devices, g.Index)
	}
	if !any {
		return nil
	}
	out := make([]MIGDeviceGroup, 0, len(order))
	for _, k := range order {
		out = append(out, *by[k])
	}
	return out
}

// migConfigName names a layout set: model and a hash of the groups, so
// nodes with identical layouts share one config.
func migConfigName(model string, groups []MIGDeviceGroup) string {
	h := fnv.New32a()
	for _, g := range groups {
		fmt.Fprintf(h, "%v=%s;", g.Devices, packingLayout(g.Layout))
	}
	return fmt.Sprintf("gpuwise-%s-%08x", strings.ToLower(model), h.Sum32())
}

func packingLayout(l map[string]int) string {
	keys := make([]string, 0, len(l))
	for k, v := range l {
		keys = append(keys, fmt.Sprintf("%s:%d", k, v))
	}
	sort.Strings(keys)
	return strings.Join(keys, ",")
}

// planPatches swaps the GPU resource of every workload whose shape the plan
// changes, once per workload.
func planPatches(pl *packing.Plan, snap *cluster.Snapshot) ([]ResourcePatch, []string) {
	pods := map[string]*cluster.Pod{}
	for i := range snap.Pods {
		pods[snap.Pods[i].Key()] = &snap.Pods[i]
	}
	var out []ResourcePatch
	var notes []string
	done := map[string]bool{}
	for _, m := range pl.Moves {
		if m.Kind == "move" || m.Kind == "restart" || done[m.Group] {
			continue
		}
		done[m.Group] = true
		pod := pods[m.Workload]
		pc := placementFor(pl, m.Workload)
		if pod == nil || pc == nil {
			continue
		}
		w, ok := patchable(pod.Namespace, pod.Owner.Kind, pod.Owner.Name)
		if !ok {
			notes = append(notes, fmt.Sprintf("%s: a %s cannot be patched in place; change the object that creates it", m.Group, pod.Owner.Kind))
			continue
		}
		ctr, old := gpuContainer(pod)
		res, count := pc.Demand.Resource()
		if ctr == "" || res == "" || res == old {
			continue
		}
		change := &GPUChange{Resource: res, Count: count}
		if old != "" {
			change.Remove = []string{old}
		}
		out = append(out, ResourcePatch{Workload: w,
			Evidence:   fmt.Sprintf("gpuwise plan: %s → %s (%s)", m.FromShape, m.ToShape, pc.Note),
			Containers: []ContainerResources{{Name: ctr, GPU: change}}})
	}
	out, later := ForNextRun(out)
	return out, append(notes, later...)
}

func placementFor(pl *packing.Plan, id string) *packing.Placement {
	for i := range pl.Placements {
		if pl.Placements[i].Workload == id {
			return &pl.Placements[i]
		}
	}
	return nil
}

// gpuContainer is the first container asking for a GPU resource, and the
// resource.
func gpuContainer(p *cluster.Pod) (string, string) {
	for _, c := range p.Containers {
		for r, n := range c.GPURequests {
			if n > 0 {
				return c.Name, r
			}
		}
	}
	return "", ""
}

// removalCommands is the cordon-and-drain script for the removed nodes,
// less those keep keeps (a comment says why).
func removalCommands(pl *packing.Plan, keep map[string]string) (File, bool) {
	var b strings.Builder
	b.WriteString("#!/bin/sh\n# gpuwise plan: nodes the plan removes. Apply the MIG, device-plugin and workload\n" +
		"# changes first, then cordon and drain each node and let the autoscaler (or you) delete it.\nset -eu\n")
	n := 0
	for _, np := range pl.Nodes {
		if np.Keep {
			continue
		}
		if why, ok := keep[np.Name]; ok {
			fmt.Fprintf(&b, "# %s stays: %s\n", np.Name, why)
			continue
		}
		n++
		fmt.Fprintf(&b, "kubectl cordon %s\nkubectl drain %s --ignore-daemonsets --delete-emptydir-data --timeout=15m\n", np.Name, np.Name)
	}
	return File{Path: "plan/remove-nodes.sh", Data: []byte(b.String())}, n > 0
}
