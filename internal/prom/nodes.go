package prom

import (
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/gpuwise/gpuwise/internal/cluster"
	"github.com/gpuwise/gpuwise/internal/pricing"
	"github.com/gpuwise/gpuwise/internal/prom/wire"
)

// nodeList is the nodes kube_node_info names, each with its
// spec.providerID.
type nodeList map[string]string

// names are the nodes, as buildNodes names them.
func (nl nodeList) names() []string {
	all := make([]string, 0, len(nl))
	for n := range nl {
		all = append(all, n)
	}
	return all
}

// unitIndex finds a node's units and how DCGM values on them scale.
type unitIndex struct {
	replicas map[string]int             // node → time-slicing replicas
	units    map[string]cluster.UnitRef // unit ID → unit
}

// nodeLabels reads each listed node's labels from kube_node_labels.
func nodeLabels(nl nodeList, labels *facts) map[string]map[string]string {
	out := map[string]map[string]string{}
	labels.each(func(f *fact) {
		if n := f.labels.Get("node"); hasNode(nl, n) {
			out[n] = objectLabels(f.labels)
		}
	})
	return out
}

func hasNode(nl nodeList, n string) bool {
	_, ok := nl[n]
	return ok
}

// gpuNodeLabels reads, from the node labels, each node's time-slicing
// replicas (more than one), as buildNodes does, and the nodes whose labels
// count GPUs.
func gpuNodeLabels(labels map[string]map[string]string) (replicas map[string]int, gpuNodes []string) {
	replicas = map[string]int{}
	for n, l := range labels {
		if r := atoi(l["nvidia.com/gpu.replicas"]); r > 1 {
			replicas[n] = r
		}
		if atoi(l["nvidia.com/gpu.count"]) > 0 {
			gpuNodes = append(gpuNodes, n)
		}
	}
	return replicas, gpuNodes
}

// buildNodes turns node facts and the DCGM inventory into nodes with
// their GPUs and units.
func buildNodes(nl nodeList, nf map[string]*facts, labels map[string]map[string]string, inventory []gpuLabels) ([]cluster.Node, unitIndex) {
	names := nl.names()
	sort.Strings(names)
	byNode := make(map[string]*cluster.Node, len(names))
	for _, name := range names {
		byNode[name] = &cluster.Node{Name: name, Cloud: cloudOf(nl[name]), ProviderID: nl[name], Labels: labels[name]}
	}
	applyNodeFacts(nf, byNode)
	gpus := inventoryByNode(inventory)
	alloc := gpuResources(nf)
	ix := unitIndex{replicas: map[string]int{}, units: map[string]cluster.UnitRef{}}
	nodes := make([]cluster.Node, 0, len(names))
	for _, name := range names {
		n := byNode[name]
		describe(n)
		n.GPUs = buildGPUs(n, gpus[name], alloc[name])
		if r := atoi(n.Labels["nvidia.com/gpu.replicas"]); r > 1 {
			ix.replicas[name] = r
		}
		nodes = append(nodes, *n)
	}
	for i := range nodes {
		n := &nodes[i]
		for j := range n.GPUs {
			g := &n.GPUs[j]
			for k := range g.Units {
				ix.units[g.Units[k].ID] = cluster.UnitRef{Node: n, GPU: g, Unit: &g.Units[k]}
			}
		}
	}
	return nodes, ix
}

func applyNodeFacts(nf map[string]*facts, byNode map[string]*cluster.Node) {
	get := func(m string, fn func(n *cluster.Node, f *fact)) {
		nf[m].each(func(f *fact) {
			if n := byNode[f.labels.Get("node")]; n != nil {
				fn(n, f)
			}
		})
	}
	get("kube_node_status_allocatable", func(n *cluster.Node, f *fact) {
		switch f.labels.Get("resource") {
		case "cpu":
			n.CPUMilli = int64(math.Round(f.value * 1000))
		case "memory":
			n.MemoryBytes = int64(f.value)
		}
	})
	get("kube_node_spec_taint", func(n *cluster.Node, f *fact) {
		n.Taints = append(n.Taints, cluster.Taint{Key: f.labels.Get("key"), Value: f.labels.Get("value"), Effect: f.labels.Get("effect")})
	})
	get("kube_node_created", func(n *cluster.Node, f *fact) { n.Created = unixTime(f.value) })
	get("kube_node_deletion_timestamp", func(n *cluster.Node, f *fact) { n.Deleted = unixTime(f.value) })
}

// endNodes ends, one info step after it was last seen, a node whose
// kube_node_info series stops before the window's end and that has no
// deletion time (kube_node_deletion_timestamp missing, or never scraped
// between the delete and the node's going): as a pod deleted while
// running. Without it a node deleted in the window looked alive at its
// end, and the ledger removed it again (issue 31's fault-mode property).
func endNodes(nodes []cluster.Node, nf map[string]*facts, w cluster.Window, infoStep time.Duration) {
	last := map[string]float64{}
	nf["kube_node_info"].each(func(f *fact) {
		n := f.labels.Get("node")
		last[n] = max(last[n], f.last)
	})
	for i := range nodes {
		n := &nodes[i]
		seen, ok := last[n.Name]
		if !ok || !n.Deleted.IsZero() {
			continue
		}
		if end := unixTime(seen).Add(infoStep); end.Before(w.End) {
			n.Deleted = end
		}
	}
}

// describe fills a node's cloud facts and GPU model from its labels.
func describe(n *cluster.Node) {
	l := n.Labels
	n.Region, n.Zone = l["topology.kubernetes.io/region"], l["topology.kubernetes.io/zone"]
	n.InstanceType = first(l, "node.kubernetes.io/instance-type", "beta.kubernetes.io/instance-type")
	n.Capacity = capacityOf(l, n.Cloud)
	if l["nvidia.com/mig.strategy"] == "mixed" || l["nvidia.com/mig.strategy"] == migSingle {
		n.MIGStrategy = l["nvidia.com/mig.strategy"]
	}
	if p := l["nvidia.com/gpu.product"]; p != "" {
		n.GPUModel, _ = pricing.ModelFromProduct(p, int64(atoi(l["nvidia.com/gpu.memory"])))
	}
}

func capacityOf(l map[string]string, cloud string) string {
	switch {
	case l["karpenter.sh/capacity-type"] != "":
		return l["karpenter.sh/capacity-type"]
	case strings.EqualFold(l["eks.amazonaws.com/capacityType"], "SPOT"),
		l["kubernetes.azure.com/scalesetpriority"] == "spot", l["cloud.google.com/gke-spot"] == "true":
		return cluster.Spot
	case cloud != "":
		return cluster.OnDemand
	}
	return ""
}

// cloudOf reads the provider from a node's spec.providerID.
func cloudOf(providerID string) string {
	scheme, _, ok := strings.Cut(providerID, "://")
	if !ok {
		return ""
	}
	switch scheme {
	case "aws", "azure":
		return scheme
	case "gce":
		return "gcp"
	}
	return ""
}

// dcgmGPU is what the DCGM series say about one physical GPU.
type dcgmGPU struct {
	uuid string
	mig  map[int]string // GPU instance ID → profile
}

// gpuLabels is what one DCGM series says about its GPU: the labels the
// inventory reads.
type gpuLabels struct {
	host      string
	idx       int
	uuid      string
	prof, gid string // MIG GPU_I_PROFILE, GPU_I_ID
}

// gpuLabelsOf reads a DCGM series' GPU labels; false when it has no host or
// GPU index.
func gpuLabelsOf(l wire.Labels) (gpuLabels, bool) {
	host, idx, ok := hostAndIndexOf(l)
	if !ok {
		return gpuLabels{}, false
	}
	return gpuLabels{host: host, idx: idx, uuid: l.First("UUID", "uuid"), prof: l.Get("GPU_I_PROFILE"), gid: l.Get("GPU_I_ID")}, true
}

func inventoryByNode(sets []gpuLabels) map[string]map[int]*dcgmGPU {
	out := map[string]map[int]*dcgmGPU{}
	for _, l := range sets {
		host, idx := l.host, l.idx
		if out[host] == nil {
			out[host] = map[int]*dcgmGPU{}
		}
		g := out[host][idx]
		if g == nil {
			g = &dcgmGPU{uuid: l.uuid, mig: map[int]string{}}
			out[host][idx] = g
		}
		if l.prof != "" {
			if gi, err := strconv.Atoi(l.gid); err == nil {
				g.mig[gi] = l.prof
			}
		}
	}
	return out
}

// hostAndIndexOf reads a DCGM series' host and GPU index (gpu; gpu_id
// on AMD's device-metrics-exporter, whose host label is hostname).
func hostAndIndexOf(l wire.Labels) (string, int, bool) {
	host := l.First("Hostname", "hostname")
	idx, err := strconv.Atoi(l.First("gpu", "gpu_id"))
	if host == "" || err != nil || idx < 0 || idx > 1024 {
		return "", 0, false
	}
	return host, idx, true
}

// buildGPUs lays out a node's GPUs: as many as GPU feature discovery
// counts (or DCGM shows), time-sliced when the node advertises replicas,
// carved into the MIG instances DCGM reports (or, when DCGM shows none,
// those the node advertises: layoutFromInventory), whole otherwise.
// alloc is the node's allocatable GPU resources.
func buildGPUs(n *cluster.Node, seen map[int]*dcgmGPU, alloc map[string]int) []cluster.GPU {
	if gpus, ok := acceleratorGPUs(n, alloc); ok {
		return gpus
	}
	if n.MIGStrategy == migSingle {
		if gpus, ok := singleMIG(n, seen, alloc); ok {
			return gpus
		}
	}
	count := min(atoi(n.Labels["nvidia.com/gpu.count"]), maxGPUs)
	for idx := range seen {
		count = max(count, idx+1)
	}
	replicas := min(max(atoi(n.Labels["nvidia.com/gpu.replicas"]), 1), maxReplicas)
	mem := int64(atoi(n.Labels["nvidia.com/gpu.memory"]))
	counted := count > 0
	if !counted {
		count = allocatableGPUs(alloc, replicas)
	}
	if replicas == 1 && !anyMIG(seen) {
		if gpus, ok := layoutFromInventory(n, count, counted, alloc, mem); ok {
			for i := range gpus {
				if d := seen[i]; d != nil {
					gpus[i].UUID = d.uuid
				}
			}
			return gpus
		}
	}
	out := make([]cluster.GPU, count)
	for i := range out {
		g := cluster.GPU{Index: i, Model: n.GPUModel, MemoryMiB: mem, Sharing: cluster.Exclusive, Replicas: 1}
		base := fmt.Sprintf("%s/gpu%d", n.Name, i)
		d := seen[i]
		if d != nil {
			g.UUID = d.uuid
		}
		switch {
		case replicas > 1:
			g.Sharing, g.Replicas = cluster.TimeSlicing, replicas
			for r := range replicas {
				g.Units = append(g.Units, cluster.Unit{ID: fmt.Sprintf("%s/ts-%d", base, r), Kind: cluster.TimeSlice})
			}
		case d != nil && len(d.mig) > 0:
			g.Sharing = cluster.MIG
			g.Units = migUnits(base, d.mig, n.GPUModel, mem)
		default:
			g.Units = []cluster.Unit{{ID: base, Kind: cluster.WholeGPU}}
		}
		out[i] = g
	}
	return out
}

// Bounds on what node labels may claim: no node has more GPUs, and no
// device plugin shares one GPU more ways (labels are input, and a typo
// must not make millions of units).
const (
	maxGPUs     = 1024
	maxReplicas = 1024
)

// migSingle is the MIG strategy under which the device plugin advertises
// each MIG device as nvidia.com/gpu.
const migSingle = "single"

// singleMIG lays out a node of the MIG "single" strategy (issue 31): the
// device plugin advertises each MIG device as nvidia.com/gpu, and GPU
// feature discovery labels the product <model>-MIG-<profile>, with
// gpu.count the MIG devices and gpu.memory one device's memory
// (../shared/reference/gpu-formats.md §1, §2.3), so neither label counts
// or sizes physical GPUs: the GPU's memory comes from the product name.
// With DCGM's MIG instances the layout is DCGM's, GPU by GPU (a GPU DCGM
// does not show gets the profile's full cut, as every GPU of a single
// layout has one profile); without them the advertised devices
// (allocatable nvidia.com/gpu, else gpu.count) are laid out from the
// inventory as the mixed strategy's are, on as many GPUs as they fill.
// ok is false when the product names no MIG profile gpuwise reads (GFD's
// "-MIG-INVALID" for a layout the strategy cannot serve): the node is
// laid out as before.
func singleMIG(n *cluster.Node, seen map[int]*dcgmGPU, alloc map[string]int) ([]cluster.GPU, bool) {
	product := strings.TrimSuffix(n.Labels["nvidia.com/gpu.product"], "-SHARED")
	_, profile, _ := strings.Cut(product, "-MIG-")
	_, memGB := pricing.ModelFromProduct(product, 0)
	c, m, ok := cluster.ParseMIGProfile(profile, n.GPUModel, memGB)
	if !ok || memGB <= 0 {
		return nil, false
	}
	memMiB := int64(math.Round(memGB * 1024))
	physical := 0
	for idx := range seen {
		physical = max(physical, idx+1)
	}
	if !anyMIG(seen) {
		devices := alloc["nvidia.com/gpu"]
		if devices == 0 {
			devices = min(atoi(n.Labels["nvidia.com/gpu.count"]), maxGPUs*7)
		}
		gpus, _ := inventoryMIG(n, physical, map[string]int{profile: devices}, memMiB)
		for i := range gpus {
			if d := seen[i]; d != nil {
				gpus[i].UUID = d.uuid
			}
		}
		return gpus, true
	}
	geoC, geoM := cluster.MIGGeometry(n.GPUModel)
	full := map[int]string{}
	for gi := range min(geoC/c, geoM/m) {
		full[gi] = profile
	}
	out := make([]cluster.GPU, min(physical, maxGPUs))
	for i := range out {
		g := cluster.GPU{Index: i, Model: n.GPUModel, MemoryMiB: memMiB, Sharing: cluster.MIG, Replicas: 1}
		mig := full
		if d := seen[i]; d != nil {
			g.UUID = d.uuid
			if len(d.mig) > 0 {
				mig = d.mig
			}
		}
		g.Units = migUnits(fmt.Sprintf("%s/gpu%d", n.Name, i), mig, n.GPUModel, memMiB)
		out[i] = g
	}
	return out, true
}

func migUnits(base string, mig map[int]string, model string, memMiB int64) []cluster.Unit {
	ids := make([]int, 0, len(mig))
	for gi := range mig {
		ids = append(ids, gi)
	}
	sort.Ints(ids)
	units := make([]cluster.Unit, 0, len(ids))
	for _, gi := range ids {
		prof := mig[gi]
		c, m, ok := cluster.ParseMIGProfile(prof, model, float64(memMiB)/1024)
		if !ok {
			c, m = 1, 1 // an unknown name still holds a slice; Prepare checks the layout
		}
		units = append(units, cluster.Unit{ID: migUnitID(base, prof, gi), Kind: cluster.MIGSlice,
			Profile: prof, ComputeSlices: c, MemorySlices: m})
	}
	return units
}

func migUnitID(base, prof string, gi int) string { return fmt.Sprintf("%s/mig-%s-%d", base, prof, gi) }

func atoi(s string) int {
	n, err := strconv.Atoi(s)
	if err != nil {
		return 0
	}
	return n
}

func unixTime(sec float64) time.Time {
	if sec <= 0 || math.IsNaN(sec) || math.IsInf(sec, 0) {
		return time.Time{}
	}
	return time.UnixMilli(int64(math.Round(sec * 1000))).UTC()
}
