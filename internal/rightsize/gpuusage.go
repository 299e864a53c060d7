package rightsize

import (
	"sort"

	"github.com/gpuwise/gpuwise/internal/cluster"
	"github.com/gpuwise/gpuwise/internal/usage"
)

// gpuUsage is a workload's GPU holdings merged over its pods.
type gpuUsage struct {
	gpusPerPod   int
	node         *cluster.Node // where most of its pod time ran: its model is the current model
	resource     string
	kind         cluster.UnitKind // the kind of unit it held longest
	profile      string           // its MIG profile, when kind is MIG
	fraction     float64          // pod-time-weighted share of a GPU per pod
	activity     scaledActivity
	framebuffer  usage.Gauge
	fbPods       int
	actPods      int
	allocatedSec float64 // Σ pod seconds × units held
	nodes        []NodePods
	dra          bool // it holds DRA devices through ResourceClaims
	// hami is the HAMi vGPU ask it held longest, nil when it holds none:
	// a HAMi share is its own shape (docs/recommendations.md).
	hami *hamiHolding
}

// hamiHolding is a HAMi vGPU's ask and the GPU it is a share of.
type hamiHolding struct {
	ask      HAMiAsk
	gpuMiB   int64 // the physical GPU's memory
	replicas int   // vGPUs per GPU (HAMi's deviceSplitCount)
}

// scaledActivity answers activity percentiles as a share of a whole GPU
// from holdings on units of different sizes: each group's activity is
// relative to its unit, so it is scaled by the unit's compute share, and
// the largest scaled value of any group is taken (conservative).
type scaledActivity struct {
	groups map[float64]*usage.Activity
}

func (s *scaledActivity) add(scale float64, a *usage.Activity) {
	if s.groups == nil {
		s.groups = map[float64]*usage.Activity{}
	}
	g := s.groups[scale]
	if g == nil {
		g = &usage.Activity{}
		s.groups[scale] = g
	}
	g.Merge(a)
}

// Quantile is the largest scaled q-quantile over the groups.
func (s *scaledActivity) Quantile(q float64) float64 {
	v := 0.0
	for scale, a := range s.groups {
		v = max(v, a.Quantile(q)*scale)
	}
	return v
}

func (s *scaledActivity) Max() float64 {
	v := 0.0
	for scale, a := range s.groups {
		v = max(v, a.Max*scale)
	}
	return v
}

func (s *scaledActivity) Seconds() float64 {
	var sec float64
	for _, a := range s.groups {
		sec += a.Seconds
	}
	return sec
}

// gpuUsage collects the workload's GPU holdings, or nil when it holds and
// requests no GPU. Its shape (model, resource, nodes, share) is its own
// pods'; its usage evidence (activity, framebuffer) is its runs' (the
// template's union for a repeated job, template.go).
func (e *engine) gpuUsage(w *workload) *gpuUsage {
	u := e.gpuUsageOf(w, w.pods, w.seconds)
	if u == nil || w.nRuns <= 1 {
		return u
	}
	if all := e.gpuUsageOf(w, w.runs, w.runSeconds); all != nil {
		u.activity, u.framebuffer, u.actPods, u.fbPods, u.allocatedSec = all.activity, all.framebuffer, all.actPods, all.fbPods, all.allocatedSec
	}
	return u
}

// gpuUsageOf merges the GPU holdings of pods (running seconds secs).
func (e *engine) gpuUsageOf(w *workload, pods []*cluster.Pod, secs []float64) *gpuUsage {
	u := &gpuUsage{}
	nodeSec := map[string]float64{}
	atEnd, during := map[string]int{}, map[string]int{}
	var fracSec, gpuSec float64
	kindSec := map[cluster.UnitKind]float64{}
	var hamiSec float64
	for i, pod := range pods {
		held := 0
		var podFrac float64
		var hasAct, hasFB bool
		for _, h := range pod.GPUs {
			ref, ok := e.s.Index().Units[h.UnitID]
			if !ok {
				continue
			}
			held++
			u.dra = u.dra || ref.GPU.Allocator == cluster.DRA
			if ref.GPU.Sharing == cluster.HAMi && secs[i] >= hamiSec {
				hamiSec = secs[i]
				u.hami = &hamiHolding{ask: askOf(ref.Unit), gpuMiB: ref.GPU.MemoryMiB, replicas: ref.GPU.Replicas}
			}
			podFrac += ref.Unit.Fraction
			kindSec[ref.Unit.Kind] += secs[i]
			if ref.Unit.Kind == cluster.MIGSlice {
				u.profile = ref.Unit.Profile
			}
			u.allocatedSec += secs[i]
			if h.Activity != nil && h.Activity.Seconds > 0 {
				u.activity.add(computeShare(ref), h.Activity)
				hasAct = true
			}
			if h.FramebufferMiB != nil && h.FramebufferMiB.Seconds > 0 {
				u.framebuffer.Merge(h.FramebufferMiB)
				hasFB = true
			}
		}
		if held == 0 && !pod.RequestsGPU() {
			continue
		}
		held = max(held, int(gpuRequest(pod)))
		u.gpusPerPod = max(u.gpusPerPod, held)
		if podFrac > 0 {
			fracSec += podFrac * secs[i]
			gpuSec += secs[i]
		}
		u.actPods += b2i(hasAct)
		u.fbPods += b2i(hasFB)
		nodeSec[pod.Node] += secs[i]
		during[pod.Node]++
		if pod.End.IsZero() || !pod.End.Before(e.s.Window().End) {
			atEnd[pod.Node]++
		}
	}
	if u.gpusPerPod == 0 {
		return nil
	}
	if gpuSec > 0 {
		u.fraction = fracSec / gpuSec
	} else {
		u.fraction = float64(u.gpusPerPod)
	}
	u.node = e.s.Index().Nodes[busiest(nodeSec)]
	u.kind = cluster.WholeGPU
	for k, sec := range kindSec {
		if sec > kindSec[u.kind] {
			u.kind = k
		}
	}
	u.resource = gpuResource(w.latest())
	counts := atEnd
	if len(counts) == 0 {
		counts = during
	}
	for n, c := range counts {
		u.nodes = append(u.nodes, NodePods{Node: n, Pods: c})
	}
	sort.Slice(u.nodes, func(i, j int) bool { return u.nodes[i].Node < u.nodes[j].Node })
	return u
}

// askOf is a HAMi unit's ask.
func askOf(u *cluster.Unit) HAMiAsk {
	return HAMiAsk{CoresPercent: u.CoresPercent, MemoryMiB: u.MemoryMiB, MemoryPercent: u.MemoryPercent}
}

// computeShare is the part of a GPU's compute a unit holds: a MIG
// instance's compute slices over the GPU's, else the unit's fraction.
func computeShare(ref cluster.UnitRef) float64 {
	if ref.Unit.Kind == cluster.MIGSlice && ref.Unit.ComputeSlices > 0 {
		c, _ := cluster.MIGGeometry(ref.GPU.Model)
		return float64(ref.Unit.ComputeSlices) / float64(c)
	}
	if ref.Unit.Fraction > 0 {
		return ref.Unit.Fraction
	}
	return 1
}

func gpuRequest(p *cluster.Pod) int64 {
	var n int64
	for _, c := range p.Containers {
		for _, v := range c.GPURequests {
			n += v
		}
	}
	return n
}

// gpuResource is the GPU resource the pod's containers request
// (alphabetically first when several).
func gpuResource(p *cluster.Pod) string {
	var names []string
	for _, c := range p.Containers {
		for name, v := range c.GPURequests {
			if v > 0 {
				names = append(names, name)
			}
		}
	}
	if len(names) == 0 {
		return ""
	}
	sort.Strings(names)
	return names[0]
}

func busiest(sec map[string]float64) string {
	best, bestSec := "", -1.0
	for n, s := range sec {
		if s > bestSec || (s == bestSec && n < best) {
			best, bestSec = n, s
		}
	}
	return best
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// gpuContainer is the first container that requests a GPU resource.
func gpuContainer(p *cluster.Pod) string {
	for _, c := range p.Containers {
		for _, v := range c.GPURequests {
			if v > 0 {
				return c.Name
			}
		}
	}
	return ""
}
