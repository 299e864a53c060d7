package prom

import (
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"

	"github.com/gpuwise/gpuwise/internal/cluster"
)

// The GPU inventory from kube-state-metrics, not from the exporter: a
// GPU's holder comes from the inventory (DESIGN.md, "Missing data is
// never zero"), so with dcgm-exporter down or not scraped a MIG node's
// slices still exist and its pods still hold them, unmeasured.

// gpuResources reads each node's advertised GPU resources (the device
// plugin's allocatable nvidia.com/gpu and nvidia.com/mig-* counts) from
// kube_node_status_allocatable; values that are not whole non-negative
// counts are left out.
func gpuResources(nf map[string]*facts) map[string]map[string]int {
	out := map[string]map[string]int{}
	nf["kube_node_status_allocatable"].each(func(f *fact) {
		r := resourceName(f.labels.Get("resource"))
		if !strings.HasPrefix(r, "nvidia.com/") && !cluster.IsAcceleratorResource(r) || f.value < 0 || f.value > maxGPUs*maxReplicas || f.value != math.Trunc(f.value) {
			return
		}
		n := f.labels.Get("node")
		if out[n] == nil {
			out[n] = map[string]int{}
		}
		out[n][r] = int(f.value)
	})
	return out
}

// migCounts are the MIG instances a node advertises, by profile: from the
// allocatable nvidia.com/mig-* resources, or else from GPU feature
// discovery's nvidia.com/mig-<profile>.count labels (mixed strategy),
// whose keys come back from kube-state-metrics sanitized
// (nvidia_com_mig_1g_10gb_count) unless known.
func migCounts(labels map[string]string, alloc map[string]int) map[string]int {
	out := map[string]int{}
	for r, n := range alloc {
		if p, ok := strings.CutPrefix(r, "nvidia.com/mig-"); ok && n > 0 {
			out[p] = n
		}
	}
	if len(out) > 0 {
		return out
	}
	for k, v := range labels {
		var p string
		switch {
		case strings.HasPrefix(k, "nvidia.com/mig-") && strings.HasSuffix(k, ".count"):
			p = strings.TrimSuffix(strings.TrimPrefix(k, "nvidia.com/mig-"), ".count")
		case strings.HasPrefix(k, "nvidia_com_mig_") && strings.HasSuffix(k, "_count"):
			p = strings.TrimPrefix(resourceName(strings.TrimSuffix(k, "_count")), "nvidia.com/mig-")
		default:
			continue
		}
		if n, err := strconv.Atoi(v); err == nil && n > 0 && n <= maxGPUs*7 && p != "" {
			out[p] = n
		}
	}
	return out
}

// anyMIG reports whether DCGM showed a MIG instance on any of a node's
// GPUs: then the layout is DCGM's, GPU by GPU.
func anyMIG(seen map[int]*dcgmGPU) bool {
	for _, d := range seen {
		if d != nil && len(d.mig) > 0 {
			return true
		}
	}
	return false
}

// inventoryMIG lays a node's advertised MIG instances out on its GPUs
// when DCGM shows none: the API and GFD say how many instances of each
// profile the node has, not which GPU holds which. A unit's share of its
// GPU (what its holder is charged) is max(compute/C, memory/M) unless the
// GPU's shares sum past 1 (cluster.GPU.Normalize), so the layout decides
// the allocation: instances go largest share first onto the GPU whose
// share left fits them most tightly (best fit decreasing), so that no GPU
// is laid out past a whole one where some layout fits the node's GPUs
// (then every unit keeps its own profile's share, as on any such real
// layout); an instance that fits no GPU's share goes where its slices fit
// with the most share left, and a GPU is added only when none has the
// slices. It returns the MIG GPUs (indexes from 0) and the instances that
// fit nowhere.
func inventoryMIG(n *cluster.Node, gpus int, counts map[string]int, memMiB int64) ([]cluster.GPU, int) {
	geoC, geoM := cluster.MIGGeometry(n.GPUModel)
	type inst struct {
		prof    string
		compute int
		memory  int
		share   float64
	}
	var insts []inst
	dropped := 0
	for p, k := range counts {
		c, m, ok := cluster.ParseMIGProfile(p, n.GPUModel, float64(memMiB)/1024)
		if !ok {
			dropped += k
			continue
		}
		for range k {
			insts = append(insts, inst{p, c, m, max(float64(c)/float64(geoC), float64(m)/float64(geoM))})
		}
	}
	sort.Slice(insts, func(i, j int) bool {
		a, b := insts[i], insts[j]
		if a.share != b.share {
			return a.share > b.share
		}
		if a.compute != b.compute {
			return a.compute > b.compute
		}
		if a.memory != b.memory {
			return a.memory > b.memory
		}
		return a.prof < b.prof
	})
	type room struct {
		compute, memory int
		share           float64
	}
	rooms := make([]room, min(gpus, len(insts)))
	for i := range rooms {
		rooms[i] = room{geoC, geoM, 1}
	}
	placed := make([][]inst, len(rooms))
	const eps = 1e-9
	for _, in := range insts {
		tight, loose := -1, -1
		for i, r := range rooms {
			if r.compute < in.compute || r.memory < in.memory {
				continue
			}
			if r.share+eps >= in.share && (tight < 0 || r.share < rooms[tight].share) {
				tight = i
			}
			if loose < 0 || r.share > rooms[loose].share {
				loose = i
			}
		}
		k := tight
		if k < 0 {
			k = loose
		}
		if k < 0 {
			if len(rooms) >= maxGPUs {
				dropped++
				continue
			}
			rooms, placed = append(rooms, room{geoC, geoM, 1}), append(placed, nil)
			k = len(rooms) - 1
		}
		rooms[k].compute -= in.compute
		rooms[k].memory -= in.memory
		rooms[k].share -= in.share
		placed[k] = append(placed[k], in)
	}
	out := make([]cluster.GPU, 0, len(placed))
	for _, ins := range placed {
		if len(ins) == 0 {
			continue
		}
		base := fmt.Sprintf("%s/gpu%d", n.Name, len(out))
		g := cluster.GPU{Index: len(out), Model: n.GPUModel, MemoryMiB: memMiB, Sharing: cluster.MIG, Replicas: 1}
		for j, in := range ins {
			g.Units = append(g.Units, cluster.Unit{ID: migUnitID(base, in.prof, j), Kind: cluster.MIGSlice,
				Profile: in.prof, ComputeSlices: in.compute, MemorySlices: in.memory})
		}
		out = append(out, g)
	}
	return out, dropped
}

// layoutFromInventory lays out a node's GPUs from what kube-state-metrics
// says when DCGM shows no MIG instance on it: its advertised MIG
// instances (inventoryMIG) on the first GPUs, whole GPUs after them (as
// many as GFD counts, or the allocatable nvidia.com/gpu when no label or
// DCGM series counts them). ok is false when the node advertises no MIG
// instance (buildGPUs lays it out as before).
func layoutFromInventory(n *cluster.Node, count int, counted bool, alloc map[string]int, memMiB int64) ([]cluster.GPU, bool) {
	counts := migCounts(n.Labels, alloc)
	if len(counts) == 0 {
		return nil, false
	}
	out, _ := inventoryMIG(n, count, counts, memMiB)
	whole := count - len(out)
	if !counted {
		whole = alloc["nvidia.com/gpu"]
	}
	for range min(max(whole, 0), maxGPUs-len(out)) {
		i := len(out)
		out = append(out, cluster.GPU{Index: i, Model: n.GPUModel, MemoryMiB: memMiB, Sharing: cluster.Exclusive, Replicas: 1,
			Units: []cluster.Unit{{ID: fmt.Sprintf("%s/gpu%d", n.Name, i), Kind: cluster.WholeGPU}}})
	}
	return out, true
}

// allocatableGPUs is how many physical GPUs a node's allocatable
// nvidia.com/gpu (or gpu.shared) counts, with replicas time-slice
// replicas each: the count when neither GFD labels nor DCGM give one.
func allocatableGPUs(alloc map[string]int, replicas int) int {
	n := max(alloc["nvidia.com/gpu"], alloc["nvidia.com/gpu.shared"])
	return min((n+replicas-1)/replicas, maxGPUs)
}
