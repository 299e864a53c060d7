package kube

import (
	"cmp"
	"fmt"
	"maps"
	"slices"
	"sort"

	resourcev1 "k8s.io/api/resource/v1"

	"github.com/gpuwise/gpuwise/internal/cluster"
	"github.com/gpuwise/gpuwise/internal/pricing"
)

// NVIDIA's DRA driver for GPUs (github.com/NVIDIA/k8s-dra-driver-gpu,
// cmd/gpu-kubelet-plugin/deviceinfo.go and mig.go; docs/dra.md): the
// driver name, its device attributes and the memory capacity.
const (
	draGPUDriver  = cluster.DRAGPUDriver
	draType       = "type"        // "gpu", "mig" (or "vfio")
	draUUID       = "uuid"        // the GPU's or MIG device's UUID
	draProduct    = "productName" // "NVIDIA A100-SXM4-40GB"
	draParentUUID = "parentUUID"  // a MIG device's GPU
	draProfile    = "profile"     // a MIG device's profile, "1g.10gb"
	draMemory     = "memory"      // capacity, bytes
	draTypeGPU    = "gpu"
	draTypeMIG    = "mig"
)

// draObjects are the resource.k8s.io objects a snapshot reads, converted
// where they are small, kept where the build needs them whole.
type draObjects struct {
	slices    []resourcev1.ResourceSlice
	classes   []cluster.DeviceClass
	claims    []resourcev1.ResourceClaim
	templates []cluster.ClaimTemplate
	// read says the API was served (a cluster without resource.k8s.io/v1
	// has no DRA devices: nothing to model).
	read bool
}

func convertClass(c *resourcev1.DeviceClass) cluster.DeviceClass {
	out := cluster.DeviceClass{Name: c.Name, Selectors: celOf(c.Spec.Selectors)}
	if c.Spec.ExtendedResourceName != nil {
		out.ExtendedResource = *c.Spec.ExtendedResourceName
	}
	return out
}

func celOf(sel []resourcev1.DeviceSelector) []string {
	var out []string
	for _, s := range sel {
		if s.CEL != nil {
			out = append(out, s.CEL.Expression)
		}
	}
	return out
}

func requestsOf(spec *resourcev1.ResourceClaimSpec) []cluster.DeviceRequest {
	var out []cluster.DeviceRequest
	for _, r := range spec.Devices.Requests {
		dr := cluster.DeviceRequest{Name: r.Name}
		switch {
		case r.Exactly != nil:
			dr.DeviceClass, dr.Selectors = r.Exactly.DeviceClassName, celOf(r.Exactly.Selectors)
			dr.All = r.Exactly.AllocationMode == resourcev1.DeviceAllocationModeAll
			if !dr.All {
				dr.Count = max(r.Exactly.Count, 1)
			}
		case len(r.FirstAvailable) > 0:
			// The first alternative stands for the request; the allocation
			// says which one the scheduler took.
			f := r.FirstAvailable[0]
			dr.DeviceClass, dr.Selectors, dr.Count = f.DeviceClassName, celOf(f.Selectors), max(f.Count, 1)
		}
		out = append(out, dr)
	}
	return out
}

func convertTemplate(t *resourcev1.ResourceClaimTemplate) cluster.ClaimTemplate {
	return cluster.ClaimTemplate{Namespace: t.Namespace, Name: t.Name, Requests: requestsOf(&t.Spec.Spec)}
}

// draDevice is one device of the GPU driver's current slices.
type draDevice struct {
	node, pool, name   string
	typ, uuid, product string
	parent, profile    string
	memBytes           int64
}

func attrString(d *resourcev1.Device, key string) string {
	if a, ok := d.Attributes[resourcev1.QualifiedName(key)]; ok && a.StringValue != nil {
		return *a.StringValue
	}
	if a, ok := d.Attributes[resourcev1.QualifiedName(draGPUDriver+"/"+key)]; ok && a.StringValue != nil {
		return *a.StringValue
	}
	return ""
}

// currentDevices are the devices of each pool's newest generation (the
// scheduler ignores older ones), by node; drivers counts every driver's
// devices.
func currentDevices(sl []resourcev1.ResourceSlice) (gpu map[string][]draDevice, drivers map[string]int, notes []string) {
	newest := map[[2]string]int64{}
	for i := range sl {
		k := [2]string{sl[i].Spec.Driver, sl[i].Spec.Pool.Name}
		newest[k] = max(newest[k], sl[i].Spec.Pool.Generation)
	}
	gpu, drivers = map[string][]draDevice{}, map[string]int{}
	for i := range sl {
		s := &sl[i]
		if s.Spec.Pool.Generation < newest[[2]string{s.Spec.Driver, s.Spec.Pool.Name}] {
			continue
		}
		drivers[s.Spec.Driver] += len(s.Spec.Devices)
		if s.Spec.Driver != draGPUDriver {
			continue
		}
		if s.Spec.NodeName == nil || *s.Spec.NodeName == "" {
			notes = append(notes, fmt.Sprintf("ResourceSlice %s: %d %s devices not local to one node; not modelled", s.Name, len(s.Spec.Devices), s.Spec.Driver))
			continue
		}
		for j := range s.Spec.Devices {
			d := &s.Spec.Devices[j]
			dev := draDevice{node: *s.Spec.NodeName, pool: s.Spec.Pool.Name, name: d.Name, typ: attrString(d, draType),
				uuid: attrString(d, draUUID), product: attrString(d, draProduct), parent: attrString(d, draParentUUID),
				profile: attrString(d, draProfile)}
			if q, ok := d.Capacity[draMemory]; ok {
				dev.memBytes = q.Value.Value()
			}
			gpu[dev.node] = append(gpu[dev.node], dev)
		}
	}
	return gpu, drivers, notes
}

// draKey names a device as an allocation result does.
type draKey struct{ driver, pool, device string }

// allocations maps each allocated GPU-driver device to the claims that
// hold it (index into claims).
func allocations(claims []resourcev1.ResourceClaim) map[draKey][]int {
	out := map[draKey][]int{}
	for i := range claims {
		a := claims[i].Status.Allocation
		if a == nil {
			continue
		}
		for _, r := range a.Devices.Results {
			if r.Driver == draGPUDriver {
				k := draKey{r.Driver, r.Pool, r.Device}
				out[k] = append(out[k], i)
			}
		}
	}
	return out
}

// draBuild adds the GPU driver's devices to their nodes as GPUs
// (Allocator DRA) and gives the claims' pods their units: a whole GPU
// or MIG device held by one pod is that pod's; a whole GPU a claim
// shares among k pods becomes k equal units, one per pod (1/k of the
// GPU each, as time-slicing is priced), a shared MIG device k units of
// 1/k of the device's fraction each. It returns the DRA section and
// notes.
func draBuild(s *cluster.Snapshot, o *draObjects, templateOf map[string]string) (*cluster.DRAInfo, []string) {
	devs, drivers, notes := currentDevices(o.slices)
	info := &cluster.DRAInfo{DeviceClasses: o.classes, Templates: o.templates}
	for _, name := range slices.Sorted(maps.Keys(drivers)) {
		info.Drivers = append(info.Drivers, cluster.DRADriver{Name: name, Devices: drivers[name]})
	}
	allocated := allocations(o.claims)
	nodes := map[string]*cluster.Node{}
	for i := range s.Nodes {
		nodes[s.Nodes[i].Name] = &s.Nodes[i]
	}
	units := map[draKey]unitAt{}
	for _, node := range slices.Sorted(maps.Keys(devs)) {
		n := nodes[node]
		if n == nil {
			notes = append(notes, fmt.Sprintf("ResourceSlice devices of node %s, which the API does not list; not modelled", node))
			continue
		}
		notes = append(notes, addDRAGPUs(n, devs[node], allocated, units)...)
	}
	pods := map[string]*cluster.Pod{}
	for i := range s.Pods {
		pods[s.Pods[i].Key()] = &s.Pods[i]
	}
	for i := range o.claims {
		c, cn := claimOf(&o.claims[i], units, nodes, pods)
		if c == nil {
			continue
		}
		c.Template = templateOf[c.Key()]
		info.Claims = append(info.Claims, *c)
		notes = append(notes, cn...)
	}
	sort.Slice(info.Claims, func(a, b int) bool { return info.Claims[a].Key() < info.Claims[b].Key() })
	return info, notes
}

// unitAt locates a DRA unit: its node and GPU index.
type unitAt struct {
	node *cluster.Node
	gpu  int
}

func addDRAGPUs(n *cluster.Node, devs []draDevice, allocated map[draKey][]int, units map[draKey]unitAt) []string {
	var notes []string
	migs := map[string][]draDevice{}
	var whole []draDevice
	for _, d := range devs {
		switch d.typ {
		case draTypeGPU:
			whole = append(whole, d)
		case draTypeMIG:
			migs[d.parent] = append(migs[d.parent], d)
		default:
			notes = append(notes, fmt.Sprintf("node %s: DRA device %s of type %q is not a GPU or MIG device; not modelled", n.Name, d.name, d.typ))
		}
	}
	isAlloc := func(d draDevice) bool { return len(allocated[draKey{draGPUDriver, d.pool, d.name}]) > 0 }
	add := func(g cluster.GPU, ds []draDevice) {
		g.Index, g.Allocator, g.Driver, g.Pool = len(n.GPUs), cluster.DRA, draGPUDriver, ds[0].pool
		for _, d := range ds {
			u := cluster.Unit{ID: n.Name + "/" + d.name, Kind: cluster.WholeGPU, Device: d.name}
			if d.typ == draTypeMIG {
				c, m, ok := cluster.ParseMIGProfile(d.profile, g.Model, float64(g.MemoryMiB)/1024)
				if !ok {
					notes = append(notes, fmt.Sprintf("node %s: DRA MIG device %s has profile %q, which gpuwise does not understand; not modelled", n.Name, d.name, d.profile))
					continue
				}
				u.Kind, u.Profile, u.ComputeSlices, u.MemorySlices = cluster.MIGSlice, d.profile, c, m
			}
			units[draKey{draGPUDriver, d.pool, d.name}] = unitAt{n, g.Index}
			g.Units = append(g.Units, u)
		}
		if len(g.Units) > 0 {
			n.GPUs = append(n.GPUs, g)
		}
	}
	model := func(product string, memBytes int64) (string, int64) {
		m, gb := pricing.ModelFromProduct(product, memBytes>>20)
		if m == "" {
			notes = append(notes, fmt.Sprintf("node %s: DRA device product %q is not a GPU model gpuwise knows; pricing by instance type only", n.Name, product))
		}
		if n.GPUModel == "" {
			n.GPUModel = m
		}
		if memBytes > 0 {
			return m, memBytes >> 20
		}
		return m, int64(gb * 1024)
	}
	parents := map[string]bool{}
	for _, d := range whole {
		parents[d.uuid] = true
		m, mem := model(d.product, d.memBytes)
		g := cluster.GPU{UUID: d.uuid, Model: m, MemoryMiB: mem, Sharing: cluster.Exclusive, Replicas: 1}
		var used []draDevice
		for _, mig := range migs[d.uuid] {
			if isAlloc(mig) {
				used = append(used, mig)
			}
		}
		// Dynamic MIG (KEP-4815) publishes the whole GPU and every MIG
		// placement it could be cut into: what is allocated is the layout.
		if len(used) > 0 && !isAlloc(d) {
			g.Sharing = cluster.MIG
			add(g, used)
			continue
		}
		add(g, []draDevice{d})
	}
	for _, parent := range slices.Sorted(maps.Keys(migs)) {
		if parents[parent] {
			continue
		}
		ds := migs[parent]
		sort.Slice(ds, func(a, b int) bool { return ds[a].name < ds[b].name })
		m, mem := model(ds[0].product, 0)
		add(cluster.GPU{UUID: parent, Model: m, MemoryMiB: mem, Sharing: cluster.MIG, Replicas: 1}, ds)
	}
	return notes
}

// claimOf gives the claim's running pods its units and returns it as the
// snapshot keeps it; nil when it allocates no GPU unit.
func claimOf(rc *resourcev1.ResourceClaim, units map[draKey]unitAt, nodes map[string]*cluster.Node, pods map[string]*cluster.Pod) (*cluster.ResourceClaim, []string) {
	a := rc.Status.Allocation
	if a == nil {
		return nil, nil
	}
	c := &cluster.ResourceClaim{Namespace: rc.Namespace, Name: rc.Name, Requests: requestsOf(&rc.Spec)}
	var notes []string
	var holders []*cluster.Pod
	for _, r := range rc.Status.ReservedFor {
		if r.Resource != "pods" || r.APIGroup != "" {
			continue
		}
		key := rc.Namespace + "/" + r.Name
		c.Pods = append(c.Pods, key)
		if p := pods[key]; p != nil && p.Node != "" && p.End.IsZero() && (r.UID == "" || p.UID == "" || string(r.UID) == p.UID) {
			holders = append(holders, p)
		}
	}
	sort.Slice(holders, func(i, j int) bool {
		return cmp.Or(holders[i].Start.Compare(holders[j].Start), cmp.Compare(holders[i].Key(), holders[j].Key())) < 0
	})
	gpu := false
	for _, r := range a.Devices.Results {
		if r.Driver != draGPUDriver {
			continue
		}
		gpu = true
		at, ok := units[draKey{r.Driver, r.Pool, r.Device}]
		if !ok {
			notes = append(notes, fmt.Sprintf("ResourceClaim %s: allocated device %s/%s/%s is in no current ResourceSlice; not modelled", c.Key(), r.Driver, r.Pool, r.Device))
			continue
		}
		notes = append(notes, holdDevice(c, at, r.Device, holders)...)
	}
	if !gpu {
		return nil, nil
	}
	for _, p := range holders {
		p.Claims = append(p.Claims, c.Key())
	}
	return c, notes
}

// holdDevice gives the claim's holders the unit of device on at.
func holdDevice(c *cluster.ResourceClaim, at unitAt, device string, holders []*cluster.Pod) []string {
	g := &at.node.GPUs[at.gpu]
	k := slices.IndexFunc(g.Units, func(u cluster.Unit) bool { return u.Device == device })
	u := &g.Units[k]
	if u.Claim != "" {
		return []string{fmt.Sprintf("ResourceClaim %s: device %s on node %s is also allocated to %s; billed to %s only", c.Key(), device, at.node.Name, u.Claim, u.Claim)}
	}
	u.Claim = c.Key()
	var notes []string
	switch {
	case len(holders) == 0:
		notes = append(notes, fmt.Sprintf("ResourceClaim %s: device %s on node %s is allocated but reserved for no running pod; its cost is unallocated", c.Key(), device, at.node.Name))
	case len(holders) > 1 && g.Sharing == cluster.Exclusive:
		// A shared claim: the GPU's cost is split equally among its pods.
		base := *u
		g.Sharing, g.Replicas, g.Units = cluster.TimeSlicing, len(holders), nil
		for i, p := range holders {
			share := base
			share.ID, share.Kind = fmt.Sprintf("%s/share-%d", base.ID, i), cluster.TimeSlice
			g.Units = append(g.Units, share)
			p.GPUs = append(p.GPUs, cluster.Holding{UnitID: share.ID})
			c.Units = append(c.Units, share.ID)
		}
		return notes
	case len(holders) > 1:
		// A shared claim on a MIG device: the device becomes one unit per
		// pod, each naming the device, and Normalize splits the device's
		// fraction equally among them (as for a shared whole GPU).
		base := *u
		shares := make([]cluster.Unit, len(holders))
		for i, p := range holders {
			shares[i] = base
			shares[i].ID = fmt.Sprintf("%s/share-%d", base.ID, i)
			p.GPUs = append(p.GPUs, cluster.Holding{UnitID: shares[i].ID})
			c.Units = append(c.Units, shares[i].ID)
		}
		g.Units = slices.Concat(g.Units[:k], shares, g.Units[k+1:])
		return notes
	}
	c.Units = append(c.Units, u.ID)
	if len(holders) > 0 {
		holders[0].GPUs = append(holders[0].GPUs, cluster.Holding{UnitID: u.ID})
	}
	return notes
}
