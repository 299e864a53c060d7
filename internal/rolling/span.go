package rolling

import (
	"github.com/gpuwise/gpuwise/internal/cluster"
	"github.com/gpuwise/gpuwise/internal/usage"
)

// Span is the usage measured over Window, per pod.
type Span struct {
	Window cluster.Window
	// Pods maps PodKey to the pod's usage.
	Pods map[string]*PodUsage
	// ActivityMetric is the DCGM field activity came from ("" unknown).
	ActivityMetric string
	// Hours are the raw hourly sums of the span's workloads (nil: the
	// source kept none); Attach builds the window's hourly series from
	// them.
	Hours *cluster.HourSums
}

// PodUsage is one pod's usage over a span.
type PodUsage struct {
	// GPUs maps a unit ID to its usage on that unit.
	GPUs map[string]*GPUUsage
	// Containers maps a container name to its usage.
	Containers map[string]*ContainerUsage
	OOMKills   int
}

// GPUUsage is one GPU unit's series as a pod held it.
type GPUUsage struct {
	Activity       *usage.Activity
	SMActive       *usage.Activity
	FramebufferMiB *usage.Gauge
}

// ContainerUsage is one container's CPU (cores) and working set (bytes).
type ContainerUsage struct {
	CPU    *usage.Gauge
	Memory *usage.Gauge
}

// PodKey identifies a pod across spans: namespace/name, and its UID when
// known, so that a StatefulSet pod recreated under the same name is a
// different pod.
func PodKey(p *cluster.Pod) string {
	if p.UID == "" {
		return p.Namespace + "/" + p.Name
	}
	return p.Namespace + "/" + p.Name + "/" + p.UID
}

// Extract takes the usage out of a snapshot that covers only the span's
// window, with its raw hourly sums when the source kept them. The
// accumulators are shared with s, which must not change afterwards.
func Extract(s *cluster.Snapshot) *Span {
	sp := &Span{Window: s.Window, Pods: make(map[string]*PodUsage, len(s.Pods)), ActivityMetric: s.ActivityMetric, Hours: s.HourSums}
	for i := range s.Pods {
		if pu := extractPod(&s.Pods[i]); pu != nil {
			sp.Pods[PodKey(&s.Pods[i])] = pu
		}
	}
	return sp
}

// extractPod is p's measured usage, nil when it has none.
func extractPod(p *cluster.Pod) *PodUsage {
	pu := &PodUsage{OOMKills: p.OOMKills}
	for _, h := range p.GPUs {
		if h.Activity == nil && h.SMActive == nil && h.FramebufferMiB == nil {
			continue
		}
		if pu.GPUs == nil {
			pu.GPUs = map[string]*GPUUsage{}
		}
		pu.GPUs[h.UnitID] = &GPUUsage{Activity: h.Activity, SMActive: h.SMActive, FramebufferMiB: h.FramebufferMiB}
	}
	for _, c := range p.Containers {
		if c.CPU == nil && c.Memory == nil {
			continue
		}
		if pu.Containers == nil {
			pu.Containers = map[string]*ContainerUsage{}
		}
		pu.Containers[c.Name] = &ContainerUsage{CPU: c.CPU, Memory: c.Memory}
	}
	if pu.GPUs == nil && pu.Containers == nil && pu.OOMKills == 0 {
		return nil
	}
	return pu
}
