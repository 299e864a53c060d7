package rolling

import (
	"github.com/gpuwise/gpuwise/internal/cluster"
	"github.com/gpuwise/gpuwise/internal/usage"
)

// Merge returns one span holding the usage of all of spans, over the
// window from the earliest start to the latest end. The result owns its
// accumulators: the inputs are not changed.
func Merge(spans ...*Span) *Span {
	out := &Span{Pods: map[string]*PodUsage{}}
	for _, s := range spans {
		out.add(s)
	}
	return out
}

// add merges s into out, copying accumulators out does not own yet.
func (out *Span) add(s *Span) {
	if s == nil {
		return
	}
	out.Window = union(out.Window, s.Window)
	if out.ActivityMetric == "" {
		out.ActivityMetric = s.ActivityMetric
	}
	if s.Hours != nil {
		if out.Hours == nil {
			out.Hours = &cluster.HourSums{}
		}
		out.Hours.Add(s.Hours)
	}
	for k, pu := range s.Pods {
		dst := out.Pods[k]
		if dst == nil {
			dst = &PodUsage{}
			out.Pods[k] = dst
		}
		dst.merge(pu)
	}
}

func union(a, b cluster.Window) cluster.Window {
	switch {
	case a.Start.IsZero() && a.End.IsZero():
		return b
	case b.Start.IsZero() && b.End.IsZero():
		return a
	}
	if b.Start.Before(a.Start) {
		a.Start = b.Start
	}
	if b.End.After(a.End) {
		a.End = b.End
	}
	return a
}

func (dst *PodUsage) merge(src *PodUsage) {
	dst.OOMKills += src.OOMKills
	for id, g := range src.GPUs {
		if dst.GPUs == nil {
			dst.GPUs = map[string]*GPUUsage{}
		}
		d := dst.GPUs[id]
		if d == nil {
			d = &GPUUsage{}
			dst.GPUs[id] = d
		}
		d.Activity = mergeActivity(d.Activity, g.Activity)
		d.SMActive = mergeActivity(d.SMActive, g.SMActive)
		d.FramebufferMiB = mergeGauge(d.FramebufferMiB, g.FramebufferMiB)
	}
	for name, c := range src.Containers {
		if dst.Containers == nil {
			dst.Containers = map[string]*ContainerUsage{}
		}
		d := dst.Containers[name]
		if d == nil {
			d = &ContainerUsage{}
			dst.Containers[name] = d
		}
		d.CPU = mergeGauge(d.CPU, c.CPU)
		d.Memory = mergeGauge(d.Memory, c.Memory)
	}
}

// mergeActivity adds b to a, allocating a when it is nil and b is not;
// nil stays nil (unmeasured).
func mergeActivity(a, b *usage.Activity) *usage.Activity {
	if b == nil {
		return a
	}
	if a == nil {
		a = &usage.Activity{}
	}
	a.Merge(b)
	return a
}

func mergeGauge(a, b *usage.Gauge) *usage.Gauge {
	if b == nil {
		return a
	}
	if a == nil {
		a = &usage.Gauge{}
	}
	a.Merge(b)
	return a
}
