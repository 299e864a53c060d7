package sim

import (
	"time"

	"github.com/gpuwise/gpuwise/internal/cluster"
)

// Byte sizes for requests and usage.
const (
	mi = 1 << 20
	gi = 1 << 30
)

// GPU resource names the device plugin advertises.
const (
	gpuResource    = "nvidia.com/gpu"
	sharedResource = "nvidia.com/gpu.shared"
)

// gpuToleration is what the ExtendedResourceToleration admission plugin
// adds to pods that request GPUs.
var gpuToleration = cluster.Toleration{Key: "nvidia.com/gpu", Operator: "Exists", Effect: "NoSchedule"}

// podSpec is what a workload generator decides about one pod.
type podSpec struct {
	ns, name string
	owner    cluster.Owner
	labels   map[string]string
	node     *cluster.Node
	// from and to bound the pod's life in seconds from the window start;
	// to at or past the window's end means still running.
	from, to int64
	failed   bool
	// units are the GPU units the pod holds, requested as resource.
	units    []string
	resource string
	ctrs     []ctr
	load     load
	selector map[string][]string
	// tolerations default to the GPU toleration for pods holding GPUs.
	tolerations []cluster.Toleration
	oomKills    int
	// endReason is the pod's status or disruption reason when it ended.
	endReason string
}

// ctr is one container: requests and limits (CPU in millicores, memory in
// bytes; 0 = none) and its usage as a function of the pod's activity.
type ctr struct {
	name           string
	cpuReq, cpuLim int64
	memReq, memLim int64
	cpu, mem       use // cores, bytes
}

// addPod builds the pod, streams its samples and adds it to the cell.
// Pods whose life misses the window are dropped.
func (c *cell) addPod(s *podSpec) {
	if s.from >= c.window || s.to <= 0 || s.to <= s.from {
		return
	}
	p := cluster.Pod{
		Namespace: s.ns, Name: s.name, UID: c.uid(), Labels: s.labels, Owner: s.owner,
		Node: s.node.Name, Phase: "Running", Start: c.at(s.from),
		Tolerations: s.tolerations, NodeSelector: s.selector, OOMKills: s.oomKills,
	}
	if s.to < c.window {
		p.End, p.Phase = c.at(s.to), "Succeeded"
		if s.failed {
			p.Phase = "Failed"
		}
		p.EndReason = s.endReason
	}
	p.CheckpointSeconds, _ = cluster.CheckpointFrom(p.Labels, nil)
	if len(s.units) > 0 && p.Tolerations == nil {
		p.Tolerations = []cluster.Toleration{gpuToleration}
	}
	p.Containers = make([]cluster.Container, len(s.ctrs))
	for i, k := range s.ctrs {
		p.Containers[i] = cluster.Container{
			Name: k.name, CPURequestMilli: k.cpuReq, CPULimitMilli: k.cpuLim,
			MemoryRequest: k.memReq, MemoryLimit: k.memLim,
			CPU: c.gauges.get(), Memory: c.gauges.get(),
		}
	}
	if len(s.units) > 0 {
		p.Containers[0].GPURequests = map[string]int64{s.resource: int64(len(s.units))}
		p.GPUs = make([]cluster.Holding, len(s.units))
		blind := c.isBlind(s.node.Name)
		for i, id := range s.units {
			p.GPUs[i].UnitID = id
			if !blind {
				c.measure(&p.GPUs[i])
			}
		}
	}
	s.load.ctrs = s.ctrs
	c.signalDefaults(s)
	c.stream(&p, &s.load, s.from, s.to)
	c.pods = append(c.pods, p)
}

// signalDefaults fills what a pod spec leaves unset: a healthy input
// pipeline, NVLink peer traffic on NVLink nodes (heavy for pods that
// compute across several GPUs), and its OOM kills spread over its life.
func (c *cell) signalDefaults(s *podSpec) {
	if s.load.link == (linkLoad{}) {
		s.load.link = defaultLink
	}
	if nvlinkModels[s.node.InstanceType] && s.load.link.nvSwing == 0 {
		s.load.link.nvSwing = 20 * mbps
		if len(s.units) > 1 {
			s.load.link.nvSwing = 120 * gbps
		}
	}
	if s.oomKills > 0 && s.load.oom.every == 0 {
		s.load.oom.fixed = s.oomKills
	}
}

func (c *cell) isBlind(node string) bool {
	for _, b := range c.blind {
		if b == node {
			return true
		}
	}
	return false
}

// nodeLife is a node's life in seconds from the window start; a node that
// outlives the window ends at the window's end.
func (c *cell) nodeLife(n *cluster.Node) (from, to int64) {
	from, to = -c.window, c.window
	if !n.Created.IsZero() {
		from = int64(n.Created.Sub(c.cfg.Start) / time.Second)
	}
	if !n.Deleted.IsZero() {
		to = int64(n.Deleted.Sub(c.cfg.Start) / time.Second)
	}
	return from, to
}

// wholeGPUs returns the unit IDs of n whole GPUs of a node from index i.
func wholeGPUs(node *cluster.Node, i, n int) []string {
	ids := make([]string, n)
	for k := range ids {
		ids[k] = node.GPUs[i+k].Units[0].ID
	}
	return ids
}

// gpuLoad is a load on a node's whole GPUs: framebuffer at base share of
// GPU memory, plus swing share at full activity.
func (c *cell) gpuLoad(cv curve, node *cluster.Node, base, swing float64) load {
	mem := float64(node.GPUs[0].MemoryMiB)
	return load{curve: cv, sm: c.between(0.5, 0.8), fbBase: base * mem, fbSwing: swing * mem, fbCap: mem}
}

// labels builds a pod's labels: team (left off when empty) and app name.
func labels(team, app string, more ...string) map[string]string {
	l := map[string]string{"app.kubernetes.io/name": app}
	if team != "" {
		l["team"] = team
	}
	for i := 0; i+1 < len(more); i += 2 {
		l[more[i]] = more[i+1]
	}
	return l
}
