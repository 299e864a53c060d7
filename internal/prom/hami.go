package prom

import (
	"cmp"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/gpuwise/gpuwise/internal/cluster"
)

// HAMi's scheduler exports what it allocated (github.com/Project-HAMi/HAMi
// cmd/scheduler/metrics.go at 4707fb0; docs/dra.md): per physical GPU its
// memory, per container and GPU the cores (percent) and memory (bytes) of
// the vGPU it granted. The current names, then the legacy ones (the
// scheduler's --legacy-metrics), each with its label names.
var hamiMetrics = []hamiMetric{
	{name: "hami_gpu_memory_limit_bytes", kind: hamiDevice, node: "node", uuid: "device_uuid", index: "device_index"},
	{name: "hami_vgpu_core_allocated_ratio", kind: hamiCores, ns: "namespace", pod: "pod", ctr: "container_index", uuid: "device_uuid"},
	{name: "hami_vgpu_memory_allocated_bytes", kind: hamiMemory, ns: "namespace", pod: "pod", ctr: "container_index", uuid: "device_uuid"},
	{name: "GPUDeviceMemoryLimit", kind: hamiDevice, node: "nodeid", uuid: "deviceuuid", index: "deviceidx"},
	{name: "vGPUCoreAllocated", kind: hamiCores, ns: "podnamespace", pod: "podname", ctr: "containeridx", uuid: "deviceuuid"},
	{name: "vGPUMemoryAllocated", kind: hamiMemory, ns: "podnamespace", pod: "podname", ctr: "containeridx", uuid: "deviceuuid"},
}

type hamiKind int

const (
	hamiDevice hamiKind = iota
	hamiCores
	hamiMemory
)

type hamiMetric struct {
	name                            string
	kind                            hamiKind
	node, uuid, index, ns, pod, ctr string
}

// hamiMetricNames are the facts read for HAMi.
func hamiMetricNames() []string {
	out := make([]string, len(hamiMetrics))
	for i, m := range hamiMetrics {
		out[i] = m.name
	}
	return out
}

// hamiGPU is one physical GPU HAMi shares: its node, index and memory.
type hamiGPU struct {
	node     string
	index    int
	memBytes float64
}

// hamiAsk is one vGPU HAMi granted: a container of a pod on a GPU.
type hamiAsk struct {
	pod, ctr, uuid string
	cores          float64 // percent of the GPU's cores
	memBytes       float64
	seen           bool
}

// hamiRead is what HAMi's scheduler said over the window.
type hamiRead struct {
	gpus map[string]hamiGPU // by device UUID
	asks []*hamiAsk
}

func readHAMi(fs factSet) hamiRead {
	h := hamiRead{gpus: map[string]hamiGPU{}}
	asks := map[[3]string]*hamiAsk{}
	for _, m := range hamiMetrics {
		fs.facts[m.name].each(func(f *fact) {
			l := f.labels
			switch m.kind {
			case hamiDevice:
				idx, err := strconv.Atoi(l.Get(m.index))
				if err != nil || idx < 0 || idx >= maxGPUs || l.Get(m.node) == "" || l.Get(m.uuid) == "" {
					return
				}
				if _, ok := h.gpus[l.Get(m.uuid)]; !ok { // the current name first
					h.gpus[l.Get(m.uuid)] = hamiGPU{node: l.Get(m.node), index: idx, memBytes: f.value}
				}
			default:
				k := [3]string{l.Get(m.ns) + "/" + l.Get(m.pod), l.Get(m.ctr), l.Get(m.uuid)}
				if k[1] == "" || k[2] == "" || l.Get(m.ns) == "" || l.Get(m.pod) == "" {
					return
				}
				a := asks[k]
				if a == nil {
					a = &hamiAsk{pod: k[0], ctr: k[1], uuid: k[2]}
					asks[k] = a
				}
				if a.seen && m.name[0] != 'h' {
					return // a legacy series beside the current one: the same grant
				}
				if m.kind == hamiCores {
					a.cores = f.value
				} else {
					a.memBytes = f.value
				}
				a.seen = a.seen || m.name[0] == 'h'
			}
		})
	}
	for _, k := range slices.SortedFunc(maps.Keys(asks), func(a, b [3]string) int {
		return cmp.Or(cmp.Compare(a[0], b[0]), cmp.Compare(a[1], b[1]), cmp.Compare(a[2], b[2]))
	}) {
		h.asks = append(h.asks, asks[k])
	}
	return h
}

// applyHAMi lays out the GPUs HAMi's scheduler shares as HAMi GPUs (one
// unit per vGPU it can grant: the node's allocatable vGPUs over its GPUs)
// and gives each pod the vGPUs the scheduler says it granted, on the GPU
// it names, with the cores and memory it granted: their share of the GPU
// is priced as the snapshot path prices it (cluster.HAMiShare). A
// holding DCGM measured on the pod's GPU keeps its usage. Pods on such a
// node that asked for GPUs but have no grant series take free vGPUs, with
// a note. It returns notes.
func applyHAMi(s *cluster.Snapshot, h hamiRead, alloc map[string]map[string]int, u *gpuUsage) []string {
	if len(h.gpus) == 0 {
		return nil
	}
	byNode := map[string][]string{} // node → device UUIDs in index order
	for uuid, g := range h.gpus {
		byNode[g.node] = append(byNode[g.node], uuid)
	}
	asksOn := map[string][]*hamiAsk{}
	for _, a := range h.asks {
		asksOn[a.uuid] = append(asksOn[a.uuid], a)
	}
	var notes []string
	pods := map[string]*cluster.Pod{}
	for i := range s.Pods {
		pods[s.Pods[i].Key()] = &s.Pods[i]
	}
	orphan := 0
	for i := range s.Nodes {
		n := &s.Nodes[i]
		uuids := byNode[n.Name]
		if len(uuids) == 0 {
			continue
		}
		slices.SortFunc(uuids, func(a, b string) int { return cmp.Compare(h.gpus[a].index, h.gpus[b].index) })
		// The node advertises its vGPUs as nvidia.com/gpu: the split count
		// (HAMi's deviceSplitCount) is that over its GPUs.
		vgpus := alloc[n.Name]["nvidia.com/gpu"]
		split := max((vgpus+len(uuids)-1)/len(uuids), 1)
		for _, uuid := range uuids {
			split = max(split, len(asksOn[uuid]))
		}
		split = min(split, maxReplicas)
		old := map[int]string{} // GPU index → a unit ID DCGM measured under
		for _, g := range n.GPUs {
			if len(g.Units) > 0 {
				old[g.Index] = g.Units[0].ID
			}
		}
		n.GPUs = n.GPUs[:0]
		units := map[string]*cluster.Pod{} // unit ID → the pod given it
		for gi, uuid := range uuids {
			g := h.gpus[uuid]
			gpu := cluster.GPU{Index: gi, UUID: uuid, Model: n.GPUModel, MemoryMiB: int64(g.memBytes) >> 20, Sharing: cluster.HAMi, Replicas: split}
			for r := range split {
				gpu.Units = append(gpu.Units, cluster.Unit{ID: fmt.Sprintf("%s/gpu%d/ts-%d", n.Name, gi, r), Kind: cluster.TimeSlice})
			}
			for r, a := range asksOn[uuid] {
				p := pods[a.pod]
				if p == nil || p.Node != n.Name || r >= split {
					orphan++
					continue
				}
				unit := &gpu.Units[r]
				unit.CoresPercent, unit.MemoryMiB = int(a.cores), int64(a.memBytes)>>20
				units[unit.ID] = p
			}
			n.GPUs = append(n.GPUs, gpu)
		}
		notes = append(notes, regrant(n, pods, units, old, u)...)
	}
	if orphan > 0 {
		notes = append(notes, fmt.Sprintf("%d HAMi vGPU grants name a pod the window does not place on that GPU's node (or exceed its vGPUs); not modelled", orphan))
	}
	return notes
}

// regrant replaces the holdings of the pods on HAMi node n by the vGPUs
// granted them (units), keeping the usage DCGM measured on the GPU; a pod
// asking for GPUs without a grant takes free vGPUs.
func regrant(n *cluster.Node, pods map[string]*cluster.Pod, units map[string]*cluster.Pod, old map[int]string, u *gpuUsage) []string {
	oldGPU := map[string]int{} // old unit ID → GPU index
	for idx, id := range old {
		oldGPU[id] = idx
	}
	granted := map[*cluster.Pod][]string{}
	for _, id := range slices.Sorted(maps.Keys(units)) {
		granted[units[id]] = append(granted[units[id]], id)
	}
	var notes []string
	ungranted := 0
	for _, key := range slices.Sorted(maps.Keys(pods)) {
		p := pods[key]
		if p.Node != n.Name {
			continue
		}
		prev := p.GPUs
		p.GPUs = nil
		ids := granted[p]
		if len(ids) == 0 && len(prev) > 0 {
			ungranted++
			ids = freeVGPUs(n, units, len(prev))
			for _, id := range ids {
				units[id] = p
			}
		}
		for _, id := range ids {
			hd := cluster.Holding{UnitID: id}
			// DCGM's series of the pod on the same physical GPU: its usage
			// (the hourly series follow it under the new unit).
			for _, ph := range prev {
				if idx, ok := oldGPU[ph.UnitID]; ok && strings.HasPrefix(id, fmt.Sprintf("%s/gpu%d/", n.Name, idx)) {
					hd = ph
					hd.UnitID = id
					if u != nil {
						if s := u.holds[holdKey{key, ph.UnitID}]; s != nil {
							u.holds[holdKey{key, id}] = s
						}
					}
					break
				}
			}
			p.GPUs = append(p.GPUs, hd)
		}
	}
	if ungranted > 0 {
		notes = append(notes, fmt.Sprintf("node %s: %d pods hold GPUs HAMi's scheduler exports no grant for; given free vGPUs, priced as the free vGPUs' share", n.Name, ungranted))
	}
	return notes
}

// freeVGPUs are up to k vGPUs of n no pod was given.
func freeVGPUs(n *cluster.Node, units map[string]*cluster.Pod, k int) []string {
	var out []string
	for _, g := range n.GPUs {
		for _, u := range g.Units {
			if len(out) < k && units[u.ID] == nil {
				out = append(out, u.ID)
			}
		}
	}
	return out
}
