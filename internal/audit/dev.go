package audit

import (
	"fmt"

	"github.com/gpuwise/gpuwise/internal/cluster"
	"github.com/gpuwise/gpuwise/internal/gpurule"
	"github.com/gpuwise/gpuwise/internal/pricing"
)

// timeSliceReplicas is the sharing the dev rule prices its saving at.
const timeSliceReplicas = 4

func (a *auditor) devWholeGPU(p *cluster.Pod) *hit {
	whole := gpurule.DevWholeGPUs(p, a.o.DevNamespaces, gpurule.WholeGPUResources, a.heldWhole)
	if whole == 0 {
		return nil
	}
	h := &hit{severity: Warning,
		message: fmt.Sprintf("whole GPUs requested in dev/notebook namespace %s; a time-slice or MIG slice usually suffices", p.Namespace),
		evidence: []string{fmt.Sprintf("%d whole GPU(s) on node %s", whole, orNone(p.Node)),
			fmt.Sprintf("impact: the saving if %d notebooks share each GPU by time-slicing", timeSliceReplicas)},
		fix: "# enable time-slicing on a dev pool (device-plugin config, renameByDefault: true), then request a shared unit:\n" +
			patchCommand(p, map[string]any{"containers": []any{map[string]any{"name": firstGPUContainer(p),
				"resources": map[string]any{
					"limits":   map[string]any{"nvidia.com/gpu": nil, "nvidia.com/gpu.shared": 1},
					"requests": map[string]any{"nvidia.com/gpu": nil}}}}}),
	}
	if n := a.s.Index().Nodes[p.Node]; n != nil {
		if price := a.price(n); price != nil {
			h.usd = usd(float64(whole) * price.GPUUSDPerHour * (1 - 1.0/timeSliceReplicas) * pricing.HoursPerMonth)
		}
	}
	return h
}

// heldWhole counts the whole GPUs a bound pod holds (known: the pod is
// bound or holds units); an unbound pod is judged by its requests.
func (a *auditor) heldWhole(p *cluster.Pod) (int64, bool) {
	if len(p.GPUs) == 0 {
		return 0, p.Node != ""
	}
	ix := a.unitKinds()
	var n int64
	for _, h := range p.GPUs {
		if ix[h.UnitID] == cluster.WholeGPU {
			n++
		}
	}
	return n, true
}

func (a *auditor) unitKinds() map[string]cluster.UnitKind {
	if a.kinds == nil {
		a.kinds = map[string]cluster.UnitKind{}
		for _, n := range a.s.Nodes() {
			for _, g := range n.GPUs {
				for _, u := range g.Units {
					a.kinds[u.ID] = u.Kind
				}
			}
		}
	}
	return a.kinds
}

func firstGPUContainer(p *cluster.Pod) string {
	for i := range p.Containers {
		if gpurule.GPUResources.Container(&p.Containers[i]) {
			return p.Containers[i].Name
		}
	}
	return "main"
}

const gib = int64(1) << 30

func (a *auditor) roundRequests(p *cluster.Pod) *hit {
	if !isGPUPod(p) {
		return nil
	}
	var ev []string
	for _, c := range p.Containers {
		if cluster.RoundCPU(c.CPURequestMilli) {
			ev = append(ev, fmt.Sprintf("container %s: CPU request %d cores", c.Name, c.CPURequestMilli/1000))
		}
		if cluster.RoundMemory(c.MemoryRequest) {
			ev = append(ev, fmt.Sprintf("container %s: memory request %dGi", c.Name, c.MemoryRequest/gib))
		}
	}
	if len(ev) == 0 {
		return nil
	}
	return &hit{severity: Info,
		message:  "GPU pods with round-number CPU/memory requests, likely guessed; size them from measured usage",
		evidence: ev,
		fix: "# measure first: a VPA in recommendation-only mode (or gpuwise recommend with Prometheus usage)\n" +
			fmt.Sprintf("apiVersion: autoscaling.k8s.io/v1\nkind: VerticalPodAutoscaler\nmetadata: {name: %s, namespace: %s}\n"+
				"spec:\n  targetRef: {apiVersion: apps/v1, kind: %s, name: %s}\n  updatePolicy: {updateMode: \"Off\"}\n",
				p.Owner.Name, p.Namespace, p.Owner.Kind, p.Owner.Name),
	}
}
