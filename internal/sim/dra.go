package sim

import (
	"fmt"

	"github.com/gpuwise/gpuwise/internal/cluster"
)

// The demo's DRA and HAMi nodes (docs/dra.md): an AWS p5.48xlarge whose
// eight H100s NVIDIA's DRA driver publishes as ResourceSlice devices, held
// through ResourceClaims (a whole GPU for a fine-tuning Job, a 3g.40gb MIG
// device for an embedding server, one GPU shared by two evaluation pods
// through one claim, five devices free); and an AWS g6.12xlarge whose four
// L4s HAMi splits into vGPUs (deviceSplitCount 10), dev pods asking
// fractions of them (nvidia.com/gpucores, nvidia.com/gpumem,
// nvidia.com/gpumem-percentage).

// draNodeName and hamiNodeName are the two nodes' names (before a cell's
// prefix).
const (
	draNodeName  = "train-dra-1"
	hamiNodeName = "dev-hami-1"
	hamiSplit    = 10 // HAMi's default devicePlugin.deviceSplitCount
)

// allocations adds the DRA and HAMi nodes and their pods. Like
// accelerators it runs after the other archetypes, so they draw the same
// random numbers with or without it.
func (c *cell) allocations() {
	if c.cfg.DRA {
		c.agents(c.draNode(), "nvidia-dra-driver-gpu-kubelet-plugin")
	}
	if c.cfg.HAMi {
		c.agents(c.hamiNode(), "")
	}
}

// agents runs a DRA or HAMi node's DaemonSets: the GPU operator's
// dcgm-exporter and, on a DRA node, NVIDIA's DRA kubelet plugin in place
// of the device plugin (HAMi's own device plugin runs in its namespace,
// kube-system), and the log shipper every node runs.
func (c *cell) agents(n *cluster.Node, plugin string) {
	from, to := c.nodeLife(n)
	from += 30
	opTolerations := []cluster.Toleration{gpuToleration}
	if plugin != "" {
		c.agent("gpu-operator", plugin, n, from, to, opTolerations, true,
			ctr{name: "plugin", cpuReq: 50, memReq: 64 * mi, memLim: 256 * mi, cpu: use{0.002, 0.004, 0.3}, mem: use{40 * mi, 6 * mi, 0.05}})
	} else {
		c.agent("kube-system", "hami-device-plugin", n, from, to, opTolerations, true,
			ctr{name: "device-plugin", cpuReq: 50, memReq: 64 * mi, memLim: 256 * mi, cpu: use{0.002, 0.004, 0.3}, mem: use{40 * mi, 6 * mi, 0.05}})
	}
	c.agent("gpu-operator", "nvidia-dcgm-exporter", n, from, to, opTolerations, true,
		ctr{name: "nvidia-dcgm-exporter", cpuReq: 100, memReq: 128 * mi, memLim: 512 * mi, cpu: use{0.01, 0.04, 0.3}, mem: use{140 * mi, 60 * mi, 0.05}})
	c.agent("logging", "fluent-bit", n, from, to, []cluster.Toleration{{Operator: "Exists"}}, false,
		ctr{name: "fluent-bit", cpuReq: 100, memReq: 128 * mi, memLim: 256 * mi, cpu: use{0.01, 0.08, 0.3}, mem: use{40 * mi, 30 * mi, 0.05}})
}

// draGPU is one H100 of the DRA node as NVIDIA's DRA driver publishes it.
func draGPU(node string, i int, uuid string, sharing cluster.Sharing) cluster.GPU {
	return cluster.GPU{Index: i, UUID: uuid, Model: p5.model, MemoryMiB: p5.gpuMiB, Sharing: sharing, Replicas: 1,
		Allocator: cluster.DRA, Driver: cluster.DRAGPUDriver, Pool: node}
}

// draNode is the p5 whose GPUs DRA allocates: gpu-0 whole to a Job's pod,
// gpu-1 carved (dynamic MIG) into the one 3g.40gb device a claim holds,
// gpu-2 whole under a claim two pods share (two halves, as the split rule
// prices it), gpu-3 to gpu-7 published and free.
func (c *cell) draNode() *cluster.Node {
	n := c.addNode(nodeSpec{name: draNodeName, inst: p5, capacity: cluster.OnDemand, tainted: true, created: -c.secs(3*day, 120*day)})
	name := n.Name
	whole := c.gpuUUID()
	mig := c.gpuUUID()
	shared := c.gpuUUID()
	ftPod := c.generated("ml-training", c.pfx+"finetune-dra-0")
	ftClaim := "ml-training/" + ftPod + "-gpu-" + c.suffix(5)
	n.GPUs = make([]cluster.GPU, 0, p5.gpus)
	g := draGPU(name, 0, whole, cluster.Exclusive)
	g.Units = []cluster.Unit{{ID: name + "/gpu-0", Kind: cluster.WholeGPU, Device: "gpu-0", Claim: ftClaim}}
	n.GPUs = append(n.GPUs, g)
	g = draGPU(name, 1, mig, cluster.MIG)
	migDevice := "gpu-1-mig-3g40gb-0"
	g.Units = []cluster.Unit{{ID: name + "/" + migDevice, Kind: cluster.MIGSlice, Profile: "3g.40gb", ComputeSlices: 3, MemorySlices: 4,
		Device: migDevice, Claim: "inference/embed-dra-mig"}}
	n.GPUs = append(n.GPUs, g)
	g = draGPU(name, 2, shared, cluster.TimeSlicing)
	g.Replicas = 2
	for k := range 2 {
		g.Units = append(g.Units, cluster.Unit{ID: fmt.Sprintf("%s/gpu-2/share-%d", name, k), Kind: cluster.TimeSlice, Device: "gpu-2", Claim: "research/eval-dra-shared"})
	}
	n.GPUs = append(n.GPUs, g)
	for i := 3; i < p5.gpus; i++ {
		g = draGPU(name, i, c.gpuUUID(), cluster.Exclusive)
		g.Units = []cluster.Unit{{ID: fmt.Sprintf("%s/gpu-%d", name, i), Kind: cluster.WholeGPU, Device: fmt.Sprintf("gpu-%d", i)}}
		n.GPUs = append(n.GPUs, g)
	}
	for i := range n.GPUs {
		_ = n.GPUs[i].Normalize() // fractions now, for the hourly series
	}
	mem := float64(p5.gpuMiB)
	ft := cluster.Owner{Kind: "Job", Name: c.pfx + "finetune-dra"}
	c.addClaimPod(&podSpec{ns: "ml-training", name: ftPod, owner: ft, labels: labels("ml-training", "finetune-dra", cluster.CheckpointHint, "30m"), node: n,
		from: -c.secs(day, 3*day), to: c.window, units: []string{name + "/gpu-0"},
		ctrs: []ctr{{name: "main", cpuReq: 16000, cpuLim: 16000, memReq: 128 * gi, memLim: 128 * gi, cpu: use{2, 10, 0.1}, mem: use{60 * gi, 30 * gi, 0.03}}},
		load: load{curve: curve{shape: bursty, lo: c.between(0.7, 0.8), hi: c.between(0.85, 0.95), rnd: c.noise()}, sm: c.between(0.5, 0.8),
			fbBase: 0.6 * mem, fbSwing: 0.3 * mem, fbCap: mem}}, ftClaim)
	hash := c.suffix(10)
	c.addClaimPod(&podSpec{ns: "inference", name: c.generated("inference", c.pfx+"embed-dra-"+hash), owner: cluster.Owner{Kind: "Deployment", Name: c.pfx + "embed-dra"},
		labels: labels("search", "embed-dra"), node: n, from: -c.secs(2*day, 20*day), to: c.window, units: []string{name + "/" + migDevice},
		ctrs: serverCtrs(4, 16), load: load{curve: daytime(0.08, 0.5), sm: c.between(0.5, 0.8), fbBase: 0.4 * 40960, fbSwing: 0.2 * 40960, fbCap: 40960}},
		"inference/embed-dra-mig")
	hash = c.suffix(10)
	evalStart := -c.secs(day, 10*day) // share-0 goes to the first to start
	for k := range 2 {
		c.addClaimPod(&podSpec{ns: "research", name: c.generated("research", c.pfx+"eval-dra-"+hash), owner: cluster.Owner{Kind: "Deployment", Name: c.pfx + "eval-dra"},
			labels: labels("research", "eval-dra"), node: n, from: evalStart + int64(k)*minute, to: c.window, units: []string{fmt.Sprintf("%s/gpu-2/share-%d", name, k)},
			ctrs: serverCtrs(4, 16), load: load{curve: curve{shape: bursty, lo: c.between(0.05, 0.15), hi: c.between(0.3, 0.45), rnd: c.noise()}, sm: c.between(0.5, 0.8),
				fbBase: 0.15 * mem, fbSwing: 0.1 * mem, fbCap: mem / 2}},
			"research/eval-dra-shared")
	}
	return n
}

// addClaimPod adds a pod that holds its GPU through ResourceClaim claim:
// no nvidia.com/gpu request (a DRA pod asks none), the claim named.
func (c *cell) addClaimPod(s *podSpec, claim string) {
	s.resource = gpuResource
	n := len(c.pods)
	c.addPod(s)
	if len(c.pods) > n {
		p := &c.pods[n]
		p.Containers[0].GPURequests = nil
		p.Claims = []string{claim}
	}
}

// draInfo is what the DRA API says of the cell's DRA node: NVIDIA's
// driver and device classes, the three claims (the fine-tuning one made
// from a template) and which pods hold them; nil without the node.
func (c *cell) draInfo() *cluster.DRAInfo {
	if !c.cfg.DRA {
		return nil
	}
	info := &cluster.DRAInfo{
		DeviceClasses: []cluster.DeviceClass{
			{Name: cluster.DRAGPUClass, Selectors: []string{"device.driver == 'gpu.nvidia.com' && device.attributes['gpu.nvidia.com'].type == 'gpu'"}},
			{Name: cluster.DRAMIGClass, Selectors: []string{"device.driver == 'gpu.nvidia.com' && device.attributes['gpu.nvidia.com'].type == 'mig'"}},
		},
	}
	devices := 0
	claims := map[string]*cluster.ResourceClaim{}
	for _, n := range c.nodes {
		for _, g := range n.GPUs {
			if g.Allocator != cluster.DRA {
				continue
			}
			seen := map[string]bool{}
			for _, u := range g.Units {
				if !seen[u.Device] {
					seen[u.Device], devices = true, devices+1
				}
				if u.Claim == "" {
					continue
				}
				rc := claims[u.Claim]
				if rc == nil {
					ns, name, _ := cutKey(u.Claim)
					rc = &cluster.ResourceClaim{Namespace: ns, Name: name}
					req := cluster.DeviceRequest{Name: "gpu", DeviceClass: cluster.DRAGPUClass, Count: 1}
					if u.Kind == cluster.MIGSlice {
						req = cluster.DeviceRequest{Name: "mig", DeviceClass: cluster.DRAMIGClass, Selectors: []string{cluster.DRAMIGSelector(u.Profile)}, Count: 1}
					}
					rc.Requests = []cluster.DeviceRequest{req}
					claims[u.Claim] = rc
				}
				rc.Units = append(rc.Units, u.ID)
			}
		}
	}
	info.Drivers = []cluster.DRADriver{{Name: cluster.DRAGPUDriver, Devices: devices}}
	for i := range c.pods {
		p := &c.pods[i]
		for _, k := range p.Claims {
			if rc := claims[k]; rc != nil && p.End.IsZero() {
				rc.Pods = append(rc.Pods, p.Key())
			}
		}
	}
	tmpl := cluster.ClaimTemplate{Namespace: "ml-training", Name: c.pfx + "finetune-dra-gpu",
		Requests: []cluster.DeviceRequest{{Name: "gpu", DeviceClass: cluster.DRAGPUClass, Count: 1}}}
	info.Templates = []cluster.ClaimTemplate{tmpl}
	for _, k := range sortedKeys(claims) {
		rc := claims[k]
		if rc.Namespace == "ml-training" {
			rc.Template = tmpl.Name
		}
		info.Claims = append(info.Claims, *rc)
	}
	return info
}

func cutKey(key string) (ns, name string, ok bool) {
	for i := range len(key) {
		if key[i] == '/' {
			return key[:i], key[i+1:], true
		}
	}
	return "", key, false
}

// hamiNode is the g6.12xlarge HAMi shares: each L4 is ten vGPUs, and dev
// pods each ask one vGPU with a share of compute and memory (the larger
// of the two is what the pod pays, docs/dra.md).
func (c *cell) hamiNode() *cluster.Node {
	n := c.addNode(nodeSpec{name: hamiNodeName, inst: g6x12, capacity: cluster.OnDemand, tainted: true, created: -c.secs(3*day, 120*day)})
	for i := range n.GPUs {
		g := &n.GPUs[i]
		g.Sharing, g.Replicas, g.Units = cluster.HAMi, hamiSplit, nil
		for r := range hamiSplit {
			g.Units = append(g.Units, cluster.Unit{ID: fmt.Sprintf("%s/gpu%d/vgpu-%d", n.Name, i, r), Kind: cluster.TimeSlice})
		}
	}
	n.Labels["nvidia.com/gpu.replicas"] = fmt.Sprint(hamiSplit)
	asks := []struct {
		who               string
		cores, memMiB, mp int64
		gpu, vgpu         int
	}{
		{"alice", 25, 6144, 0, 0, 0},
		{"bob", 50, 0, 50, 0, 1},
		{"carol", 10, 2048, 0, 1, 0},
		{"dave", 30, 8192, 0, 1, 1},
		{"erin", 0, 0, 25, 2, 0},
	}
	for _, a := range asks {
		g := &n.GPUs[a.gpu]
		u := &g.Units[a.vgpu]
		u.CoresPercent, u.MemoryMiB, u.MemoryPercent = int(a.cores), a.memMiB, int(a.mp)
		if u.MemoryMiB == 0 && u.MemoryPercent == 0 {
			u.MemoryPercent = 100
		}
	}
	for i := range n.GPUs {
		_ = n.GPUs[i].Normalize()
	}
	mem := float64(g6x12.gpuMiB)
	for _, a := range asks {
		unit := n.GPUs[a.gpu].Units[a.vgpu]
		share := unit.Fraction
		name := c.generated("dev", c.pfx+"hami-"+a.who)
		np := len(c.pods)
		c.addPod(&podSpec{ns: "dev", name: name, owner: cluster.Owner{Kind: "StatefulSet", Name: c.pfx + "hami-" + a.who},
			labels: labels("dev", "hami-notebook"), node: n, from: -c.secs(day, 14*day), to: c.window, units: []string{unit.ID}, resource: gpuResource,
			ctrs: []ctr{{name: "notebook", cpuReq: 2000, cpuLim: 4000, memReq: 8 * gi, memLim: 16 * gi, cpu: use{0.2, 2, 0.2}, mem: use{2 * gi, 4 * gi, 0.05}}},
			load: load{curve: curve{shape: bursty, lo: 0.01, hi: c.between(0.05, 0.2), rnd: c.noise()}, sm: c.between(0.5, 0.8),
				fbBase: 0.3 * share * mem, fbSwing: 0.5 * share * mem, fbCap: share * mem}})
		if len(c.pods) > np {
			ct := &c.pods[np].Containers[0]
			ct.GPUCores, ct.GPUMemoryMiB, ct.GPUMemoryPercent = a.cores, a.memMiB, a.mp
		}
	}
	return n
}

// joinDRA adds a cell's DRA objects to the snapshot's: the device
// classes once, devices summed per driver, every claim and template.
func joinDRA(into, cell *cluster.DRAInfo) *cluster.DRAInfo {
	if cell == nil {
		return into
	}
	if into == nil {
		cp := *cell
		cp.Drivers = append([]cluster.DRADriver(nil), cell.Drivers...)
		return &cp
	}
	for _, d := range cell.Drivers {
		found := false
		for i := range into.Drivers {
			if into.Drivers[i].Name == d.Name {
				into.Drivers[i].Devices += d.Devices
				found = true
			}
		}
		if !found {
			into.Drivers = append(into.Drivers, d)
		}
	}
	into.Claims = append(into.Claims, cell.Claims...)
	into.Templates = append(into.Templates, cell.Templates...)
	return into
}
