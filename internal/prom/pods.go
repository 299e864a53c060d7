package prom

import (
	"math"
	"sort"
	"strings"
	"time"

	"github.com/gpuwise/gpuwise/internal/cluster"
	"github.com/gpuwise/gpuwise/internal/prom/wire"
)

// podFacts gathers what kube-state-metrics says about one pod.
type podFacts struct {
	pod        cluster.Pod
	key        string // pod.Key()
	seenFirst  float64
	seenLast   float64
	ctrs       map[string]*cluster.Container
	ownerKind  string
	ownerName  string
	restarts   int
	oomCounted bool
	// reason is the pod's status reason (kube_pod_status_reason at 1);
	// annotations the ones gpuwise reads.
	reason      string
	annotations map[string]string
	// startEst and endEst: the life's start or end is estimated from
	// kube_pod_info's sightings (no kube_pod_start_time or
	// kube_pod_completion_time series), so cutEstimated may move it.
	startEst, endEst bool
}

// podIndex finds a pod's facts by namespace and name.
type podIndex map[string]*podFacts

func (pods podIndex) get(l wire.Labels) *podFacts {
	ns, name := l.Get("namespace"), l.Get("pod")
	if ns == "" || name == "" {
		return nil
	}
	// Looked up without building the key (a pod has many facts).
	var arr [128]byte
	kb := append(append(append(arr[:0], ns...), '/'), name...)
	if p := pods[string(kb)]; p != nil {
		return p
	}
	k := string(kb)
	p := &podFacts{pod: cluster.Pod{Namespace: ns, Name: name}, key: k, seenFirst: math.Inf(1), ctrs: map[string]*cluster.Container{}}
	pods[k] = p
	return p
}

// buildPods turns pod facts into pods, resolving owners through
// ReplicaSets and Jobs. With gpuFromLimits (no request series at all),
// GPU requests are read from the limits, which equal them for extended
// resources.
func buildPods(pf map[string]*facts, w cluster.Window, infoStep time.Duration, gpuFromLimits bool) []*podFacts {
	pods := podIndex{}
	each := func(m string, fn func(p *podFacts, f *fact)) {
		if pf[m] == nil {
			return
		}
		pf[m].each(func(f *fact) {
			if p := pods.get(f.labels); p != nil {
				fn(p, f)
			}
		})
	}
	each("kube_pod_info", func(p *podFacts, f *fact) {
		p.pod.Node, p.pod.UID = f.labels.Get("node"), f.labels.Get("uid")
		p.seenFirst, p.seenLast = min(p.seenFirst, f.first), max(p.seenLast, f.last)
	})
	each("kube_pod_owner", func(p *podFacts, f *fact) {
		p.ownerKind, p.ownerName = f.labels.Get("owner_kind"), f.labels.Get("owner_name")
	})
	each("kube_pod_labels", func(p *podFacts, f *fact) { p.pod.Labels = objectLabels(f.labels) })
	each("kube_pod_start_time", func(p *podFacts, f *fact) { p.pod.Start = unixTime(f.value) })
	each("kube_pod_completion_time", func(p *podFacts, f *fact) { p.pod.End = unixTime(f.value) })
	each("kube_pod_container_resource_requests", func(p *podFacts, f *fact) { p.request(f, true) })
	each("kube_pod_container_resource_limits", func(p *podFacts, f *fact) { p.request(f, false) })
	if gpuFromLimits {
		each(gpuLimitsFacts, func(p *podFacts, f *fact) { p.request(f, true) })
	}
	each("kube_pod_container_status_restarts_total", func(p *podFacts, f *fact) { p.restarts += int(f.value) })
	each("kube_pod_container_status_last_terminated_reason", func(p *podFacts, f *fact) {
		p.oomCounted = p.oomCounted || f.labels.Get("reason") == "OOMKilled"
	})
	each("kube_pod_status_reason", func(p *podFacts, f *fact) {
		if f.value == 1 {
			p.reason = f.labels.Get("reason")
		}
	})
	each("kube_pod_annotations", func(p *podFacts, f *fact) { p.annotations = podAnnotations(f.labels) })
	for _, m := range []string{tolerationsMetric, nodeSelectorsMetric} {
		each(m, func(p *podFacts, f *fact) { p.schedulingFact(m, f) })
	}
	owners := ownerChains(pf)
	out := make([]*podFacts, 0, len(pods))
	for _, p := range pods {
		if math.IsInf(p.seenFirst, 1) {
			continue // requests without kube_pod_info: not a pod we can place
		}
		p.finish(w, infoStep, owners)
		out = append(out, p)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].key < out[j].key })
	return out
}

// request records one requests or limits series of a container.
func (p *podFacts) request(f *fact, isRequest bool) {
	name := f.labels.Get("container")
	c := p.ctrs[name]
	if c == nil {
		c = &cluster.Container{Name: name}
		p.ctrs[name] = c
	}
	r := resourceName(f.labels.Get("resource"))
	switch {
	case r == "cpu" && isRequest:
		c.CPURequestMilli = int64(math.Round(f.value * 1000))
	case r == "cpu":
		c.CPULimitMilli = int64(math.Round(f.value * 1000))
	case r == "memory" && isRequest:
		c.MemoryRequest = int64(f.value)
	case r == "memory":
		c.MemoryLimit = int64(f.value)
	case (strings.HasPrefix(r, "nvidia.com/") || cluster.IsAcceleratorResource(r)) && isRequest && f.value > 0:
		if c.GPURequests == nil {
			c.GPURequests = map[string]int64{}
		}
		c.GPURequests[r] = int64(f.value)
	}
}

// owner is a controller and its own owner.
type owner struct{ kind, name string }

// ownerChains maps "namespace/Kind/name" of ReplicaSets and Jobs to their
// owners.
func ownerChains(pf map[string]*facts) map[string]owner {
	out := map[string]owner{}
	add := func(m, kind, label string) {
		pf[m].each(func(f *fact) {
			if k := f.labels.Get("owner_kind"); k != "" && k != "<none>" {
				out[f.labels.Get("namespace")+"/"+kind+"/"+f.labels.Get(label)] = owner{k, f.labels.Get("owner_name")}
			}
		})
	}
	add("kube_replicaset_owner", "ReplicaSet", "replicaset")
	add("kube_job_owner", "Job", "job_name")
	return out
}

func (p *podFacts) finish(w cluster.Window, infoStep time.Duration, owners map[string]owner) {
	o := owner{p.ownerKind, p.ownerName}
	for range 3 { // ReplicaSet → Deployment, Job → CronJob
		up, ok := owners[p.pod.Namespace+"/"+o.kind+"/"+o.name]
		if !ok {
			break
		}
		o = up
	}
	if o.kind == "" || o.kind == "<none>" {
		o = owner{"Pod", p.pod.Name}
	}
	p.pod.Owner = cluster.Owner{Kind: o.kind, Name: o.name}
	// With no start time the pod started within one info step before it
	// was first seen: the earliest such time, so that its GPU-hours are
	// never under-counted (cutEstimated moves it to the end of the unit's
	// previous holder).
	if p.pod.Start.IsZero() {
		p.pod.Start, p.startEst = unixTime(p.seenFirst).Add(-infoStep), true
	}
	// A pod deleted while running has no completion time: it ended within
	// one info step after it was last seen.
	// Seen last in the window's last info step, it may still run: its end
	// stays open, and estimated (cutEstimated).
	if last := unixTime(p.seenLast).Add(infoStep); p.pod.End.IsZero() && unixTime(p.seenLast).Before(w.End) {
		p.endEst = true
		if last.Before(w.End) {
			p.pod.End = last
		}
	}
	if !p.pod.End.IsZero() && p.pod.End.Before(p.pod.Start) {
		p.pod.End = p.pod.Start // a clock skew between kubelet and apiserver
	}
	// kube_pod_status_phase is not read: an ended pod's phase is unknown
	// ("", not a guessed Succeeded), but for a status reason, which only
	// a failed pod has.
	p.pod.Phase = "Running"
	if !p.pod.End.IsZero() {
		p.pod.Phase = ""
	}
	if p.oomCounted {
		p.pod.OOMKills = max(p.restarts, 1)
	}
	if !p.pod.End.IsZero() && p.reason != "" {
		p.pod.EndReason, p.pod.Phase = p.reason, "Failed"
	}
	// An invalid hint is no hint (the spot decision's safe side).
	p.pod.CheckpointSeconds, _ = cluster.CheckpointFrom(p.pod.Labels, p.annotations)
	names := make([]string, 0, len(p.ctrs))
	for n := range p.ctrs {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		p.pod.Containers = append(p.pod.Containers, *p.ctrs[n])
	}
}
