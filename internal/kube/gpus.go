package kube

import (
	"fmt"
	"maps"
	"slices"
	"sort"
	"strconv"
	"strings"

	corev1 "k8s.io/api/core/v1"

	"github.com/gpuwise/gpuwise/internal/cluster"
	"github.com/gpuwise/gpuwise/internal/pricing"
)

// Resource names and GFD labels; ../shared/reference/gpu-formats.md §1, §2, §6.
const (
	resGPU      = "nvidia.com/gpu"
	resShared   = "nvidia.com/gpu.shared"
	migPrefix   = "nvidia.com/mig-"
	lblProduct  = "nvidia.com/gpu.product"
	lblMemory   = "nvidia.com/gpu.memory"
	lblCount    = "nvidia.com/gpu.count"
	lblReplicas = "nvidia.com/gpu.replicas"
	lblSharing  = "nvidia.com/gpu.sharing-strategy"
	lblStrategy = "nvidia.com/mig.strategy"
	annHAMi     = "hami.io/node-nvidia-register"
	// HAMi's fractional asks per vGPU (charts/hami/values.yaml).
	resHAMiCores      = "nvidia.com/gpucores"
	resHAMiMem        = "nvidia.com/gpumem"
	resHAMiMemPercent = "nvidia.com/gpumem-percentage"
	// hamiSplit is HAMi's default devicePlugin.deviceSplitCount.
	hamiSplit = 10
)

// IsGPUResource reports whether a container resource grants GPU units
// (as opposed to HAMi's gpumem/gpucores qualifiers).
func IsGPUResource(name string) bool {
	return name == resGPU || name == resShared || strings.HasPrefix(name, migPrefix) || cluster.IsAcceleratorResource(name)
}

// gpuBuilder adds one node's physical GPUs and remembers which resource
// name each unit is advertised under, for assigning pods to units.
type gpuBuilder struct {
	node    *cluster.Node
	memMiB  int64
	totalGB float64
	pools   map[string][]string
	notes   []string
}

func (b *gpuBuilder) notef(format string, args ...any) {
	b.notes = append(b.notes, fmt.Sprintf("node %s: ", b.node.Name)+fmt.Sprintf(format, args...))
}

// addGPUs reads the node's GPU resources and GFD labels into n.GPUs and
// returns the unit pools keyed by resource name, and notes.
func addGPUs(n *cluster.Node, annotations map[string]string, res corev1.ResourceList) (map[string][]string, []string) {
	b := &gpuBuilder{node: n, pools: map[string][]string{}}
	counts := b.gpuCounts(res)
	labels := n.Labels
	if b.accelerators(counts) {
		return b.pools, b.notes
	}
	if len(counts) == 0 {
		if labels[lblCount] != "" && labels[lblCount] != "0" {
			b.notef("GPU feature discovery labels %d GPUs (%s) but the node advertises no nvidia.com resource; is the device plugin running?",
				b.labelInt(lblCount), lblCount)
		}
		return b.pools, b.notes
	}
	whole, shared := counts[resGPU], counts[resShared]
	if labels[lblStrategy] == "single" && whole > 0 {
		// In single strategy gpu.memory is per MIG device, not per GPU.
		b.model(counts)
		n.MIGStrategy = "single"
		b.singleMIG(whole)
		return b.pools, b.notes
	}
	b.memMiB = b.labelInt(lblMemory)
	b.model(counts)
	tsRes := ""
	switch {
	case shared > 0:
		tsRes = resShared
	case labels[lblSharing] == "time-slicing" || labels[lblSharing] == "mps":
		tsRes = resGPU
	}
	switch {
	case whole > 0 && tsRes != resGPU && annotations[annHAMi] != "":
		b.hami(whole)
	case whole > 0 && tsRes != resGPU:
		b.whole(whole)
	}
	if tsRes != "" {
		b.timeSliced(tsRes, counts[tsRes], b.labelInt(lblReplicas))
	}
	if labels[lblStrategy] == "mixed" || hasMIG(counts) {
		n.MIGStrategy = "mixed"
		b.mixedMIG(counts)
	}
	return b.pools, b.notes
}

// gpuCounts returns positive whole counts of GPU resources; garbage
// (fractions, negatives) becomes a note.
func (b *gpuBuilder) gpuCounts(res corev1.ResourceList) map[string]int64 {
	counts := map[string]int64{}
	names := make([]string, 0, len(res))
	for name := range res {
		if IsGPUResource(string(name)) {
			names = append(names, string(name))
		}
	}
	sort.Strings(names)
	for _, name := range names {
		q := res[corev1.ResourceName(name)]
		v, ok := q.AsInt64()
		if !ok || v < 0 {
			b.notef("resource %s has invalid quantity %q; ignored", name, q.String())
			continue
		}
		if v > 0 {
			counts[name] = v
		}
	}
	return counts
}

func (b *gpuBuilder) labelInt(key string) int64 {
	s, ok := b.node.Labels[key]
	if !ok {
		return 0
	}
	v, err := strconv.ParseInt(strings.TrimSpace(s), 10, 64)
	if err != nil || v < 0 {
		b.notef("label %s=%q is not a count; ignored", key, s)
		return 0
	}
	return v
}

func hasMIG(counts map[string]int64) bool {
	for name := range counts {
		if strings.HasPrefix(name, migPrefix) {
			return true
		}
	}
	return false
}

// model sets the node's GPU model from the product label, or from a MIG
// type's product label in mixed mode.
func (b *gpuBuilder) model(counts map[string]int64) {
	product := b.node.Labels[lblProduct]
	if product == "" {
		for _, name := range slices.Sorted(maps.Keys(counts)) {
			if p := b.node.Labels[name+".product"]; p != "" {
				product = p
				break
			}
		}
	}
	model, gb := pricing.ModelFromProduct(product, b.memMiB)
	if model == "" {
		b.notef("no %s label (is GPU feature discovery running?); GPU model unknown, pricing by instance type only", lblProduct)
	}
	b.node.GPUModel, b.totalGB = model, gb
}

func (b *gpuBuilder) newGPU(sharing cluster.Sharing, replicas int) *cluster.GPU {
	i := len(b.node.GPUs)
	mem := b.memMiB
	if sharing == cluster.MIG {
		mem = int64(b.totalGB * 1024)
	}
	b.node.GPUs = append(b.node.GPUs, cluster.GPU{Index: i, Model: b.node.GPUModel, MemoryMiB: mem,
		Sharing: sharing, Replicas: replicas})
	return &b.node.GPUs[i]
}

func (b *gpuBuilder) addUnit(g *cluster.GPU, resource string, u cluster.Unit) {
	g.Units = append(g.Units, u)
	b.pools[resource] = append(b.pools[resource], u.ID)
}

func (b *gpuBuilder) whole(count int64) {
	for range count {
		g := b.newGPU(cluster.Exclusive, 1)
		b.addUnit(g, resGPU, cluster.Unit{ID: fmt.Sprintf("%s/gpu%d", b.node.Name, g.Index), Kind: cluster.WholeGPU})
	}
}

// timeSliced adds units replicas of resource: count/replicas physical GPUs.
func (b *gpuBuilder) timeSliced(resource string, units, replicas int64) {
	if units < 1 {
		return
	}
	if replicas < 1 {
		physical := b.labelInt(lblCount)
		if physical < 1 || units%physical != 0 {
			b.notef("time-sliced %s without a usable %s label; each replica counted as its own GPU", resource, lblReplicas)
			physical = units
		}
		replicas = units / physical
	}
	var g *cluster.GPU
	for r := range units {
		if r%replicas == 0 {
			g = b.newGPU(cluster.TimeSlicing, int(replicas))
		}
		id := fmt.Sprintf("%s/gpu%d/ts-%d", b.node.Name, g.Index, r%replicas)
		b.addUnit(g, resource, cluster.Unit{ID: id, Kind: cluster.TimeSlice})
	}
	if units%replicas != 0 {
		b.notef("%s=%d is not a multiple of %d replicas", resource, units, replicas)
	}
}

// hami models HAMi vGPUs: nvidia.com/gpu counts vGPUs, physical GPUs
// come from the count label or the default split. Each vGPU is priced at
// the share its pod asks (hamiAsks; cluster.HAMiShare), and the pool
// lists the GPUs' first vGPUs, then their second ones, …: HAMi gives a
// pod's vGPUs on distinct GPUs.
func (b *gpuBuilder) hami(vgpus int64) {
	physical := b.labelInt(lblCount)
	if physical < 1 {
		physical = (vgpus + hamiSplit - 1) / hamiSplit
		b.notef("HAMi node without %s; assuming deviceSplitCount %d (%d physical GPUs)", lblCount, hamiSplit, physical)
	}
	first := len(b.node.GPUs)
	b.timeSliced(resGPU, vgpus, max(vgpus/physical, 1))
	gpus := b.node.GPUs[first:]
	var pool []string
	for r := 0; len(pool) < len(b.pools[resGPU]); r++ {
		for i := range gpus {
			if r < len(gpus[i].Units) {
				pool = append(pool, gpus[i].Units[r].ID)
			}
		}
	}
	for i := range gpus {
		gpus[i].Sharing = cluster.HAMi
	}
	b.pools[resGPU] = pool
}

// singleMIG: every nvidia.com/gpu is one MIG device of the profile named
// in the product label ("A100-SXM4-40GB-MIG-1g.5gb").
func (b *gpuBuilder) singleMIG(devices int64) {
	product := b.node.Labels[lblProduct]
	_, profile, _ := strings.Cut(product, "-MIG-")
	c, m, ok := cluster.ParseMIGProfile(profile, b.node.GPUModel, b.totalGB)
	if !ok {
		b.notef("MIG single strategy with product %q (invalid or mixed layout); %d devices not modelled", product, devices)
		return
	}
	geoC, geoM := cluster.MIGGeometry(b.node.GPUModel)
	perGPU := int64(min(geoC/c, geoM/m))
	var g *cluster.GPU
	for k := range devices {
		if k%perGPU == 0 {
			g = b.newGPU(cluster.MIG, 1)
		}
		b.addMIGUnit(g, resGPU, profile, c, m)
	}
}

func (b *gpuBuilder) addMIGUnit(g *cluster.GPU, resource, profile string, c, m int) {
	id := fmt.Sprintf("%s/gpu%d/%s-%d", b.node.Name, g.Index, profile, len(g.Units))
	b.addUnit(g, resource, cluster.Unit{ID: id, Kind: cluster.MIGSlice, Profile: profile, ComputeSlices: c, MemorySlices: m})
}

type migInstance struct {
	resource, profile string
	compute, memory   int
}

// mixedMIG packs the advertised MIG instances onto physical GPUs, largest
// first, first fit. The API does not say which GPU holds which instance;
// the packing reproduces a valid layout with the fewest GPUs.
func (b *gpuBuilder) mixedMIG(counts map[string]int64) {
	var insts []migInstance
	for _, name := range slices.Sorted(maps.Keys(counts)) {
		profile, ok := strings.CutPrefix(name, migPrefix)
		if !ok {
			continue
		}
		c, m, ok := cluster.ParseMIGProfile(profile, b.node.GPUModel, b.totalGB)
		if !ok {
			b.notef("resource %s is not a MIG profile gpuwise understands; ignored", name)
			continue
		}
		for range counts[name] {
			insts = append(insts, migInstance{name, profile, c, m})
		}
	}
	sort.SliceStable(insts, func(i, j int) bool {
		if insts[i].compute != insts[j].compute {
			return insts[i].compute > insts[j].compute
		}
		return insts[i].memory > insts[j].memory
	})
	geoC, geoM := cluster.MIGGeometry(b.node.GPUModel)
	type room struct{ gpu, compute, memory int }
	var rooms []room
	for _, in := range insts {
		k := -1
		for i := range rooms {
			if rooms[i].compute >= in.compute && rooms[i].memory >= in.memory {
				k = i
				break
			}
		}
		if k < 0 {
			rooms = append(rooms, room{b.newGPU(cluster.MIG, 1).Index, geoC, geoM})
			k = len(rooms) - 1
		}
		rooms[k].compute -= in.compute
		rooms[k].memory -= in.memory
		b.addMIGUnit(&b.node.GPUs[rooms[k].gpu], in.resource, in.profile, in.compute, in.memory)
	}
}
