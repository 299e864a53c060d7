package rolling

import (
	"fmt"
	"sort"
	"strings"

	"github.com/gpuwise/gpuwise/internal/cluster"
)

// Attach returns the snapshot the engines compute on for window w: copies
// of the inventory's nodes (cluster.Prepare writes unit fractions, so
// every snapshot owns its GPUs) and of its pods that lived in w, each with
// the span's usage put on it. A holding takes the usage of
// the unit with its ID; usage of units the inventory does not name goes
// to the pod's remaining holdings in unit-ID order (the inventory guessed
// which unit the pod got; the usage series know). Containers match by
// name. What the span did not measure stays unmeasured. The hourly
// series of w are built from the span's raw hourly sums when it has them
// (a Prometheus read), with the pod-hours and held GPU-hours of the
// inventory's pods; otherwise the inventory's (a simulated or recorded
// inventory has them; one read from the API server does not) are kept
// for the hours of w when w starts a whole number of hours into the
// inventory's window (cluster.Hourly.Within). The DRA, Kueue and controls
// sections are the inventory's (the Kueue report clips its figures to w),
// and so is its partial list: what the inventory could not read (a
// forbidden API) is missing from w too.
func Attach(inv *cluster.Snapshot, w cluster.Window, u *Span) *cluster.Snapshot {
	out := &cluster.Snapshot{Window: w, Source: inv.Source, ActivityMetric: inv.ActivityMetric, Nodes: cloneNodes(inv.Nodes),
		Notes: append([]string(nil), inv.Notes...), Unknown: inv.Unknown, DRA: inv.DRA, Kueue: inv.Kueue,
		Controls: inv.Controls, Partial: append([]string(nil), inv.Partial...)}
	if u != nil && u.ActivityMetric != "" {
		out.ActivityMetric = u.ActivityMetric
	}
	out.Pods = make([]cluster.Pod, 0, len(inv.Pods))
	unplaced := 0
	find := u.finder(namesIn(inv.Pods, w))
	for i := range inv.Pods {
		p := &inv.Pods[i]
		if !lived(p, w) {
			continue
		}
		q := *p
		pu := find(p)
		unplaced += attachPod(&q, pu)
		out.Pods = append(out.Pods, q)
	}
	out.Hourly = hoursOf(windowHours(inv, out, u), out.Pods)
	if unplaced > 0 {
		out.Notes = append(out.Notes, fmt.Sprintf("%d GPU usage series of pods on units the inventory does not give them were left out", unplaced))
	}
	if u != nil {
		if note := draUnmeasured(out); note != "" {
			out.Notes = append(out.Notes, note)
		}
	}
	return out
}

// draUnmeasured says how many DRA units held by pods got no usage series:
// the exporter did not attribute the DRA device to its pod (dcgm-exporter
// maps devices to pods through the kubelet's pod-resources API, which
// must report DRA allocations), so their GPU-hours are unmeasured, never
// idle.
func draUnmeasured(s *cluster.Snapshot) string {
	ix := cluster.NewIndex(s)
	n, first := 0, ""
	for i := range s.Pods {
		for _, h := range s.Pods[i].GPUs {
			if ref, ok := ix.Units[h.UnitID]; ok && ref.GPU.Allocator == cluster.DRA && h.Activity == nil {
				if n == 0 {
					first = s.Pods[i].Key() + " on " + h.UnitID
				}
				n++
			}
		}
	}
	if n == 0 {
		return ""
	}
	return fmt.Sprintf("%d DRA GPU unit(s) held through ResourceClaims have no usage series (the first: %s): the DCGM exporter did not attribute the DRA device to its pod; their GPU-hours are unmeasured, not idle (docs/dra.md)", n, first)
}

// lived reports whether p ran at some time in w (unbound pods count: the
// engines decide what they hold).
func lived(p *cluster.Pod, w cluster.Window) bool {
	if !p.Start.IsZero() && !p.Start.Before(w.End) {
		return false
	}
	return p.End.IsZero() || p.End.After(w.Start)
}

// attachPod gives q fresh holdings and containers carrying pu's usage; it
// returns how many GPU series found no holding.
func attachPod(q *cluster.Pod, pu *PodUsage) int {
	q.GPUs = append([]cluster.Holding(nil), q.GPUs...)
	q.Containers = append([]cluster.Container(nil), q.Containers...)
	q.OOMKills = 0
	for i := range q.GPUs {
		h := &q.GPUs[i]
		h.Activity, h.SMActive, h.FramebufferMiB = nil, nil, nil
	}
	for j := range q.Containers {
		q.Containers[j].CPU, q.Containers[j].Memory = nil, nil
	}
	if pu == nil {
		return 0
	}
	q.OOMKills = pu.OOMKills
	for j := range q.Containers {
		if c := pu.Containers[q.Containers[j].Name]; c != nil {
			q.Containers[j].CPU, q.Containers[j].Memory = c.CPU, c.Memory
		}
	}
	return attachGPUs(q.GPUs, pu.GPUs)
}

func attachGPUs(hs []cluster.Holding, gpus map[string]*GPUUsage) int {
	used := map[string]bool{}
	var free []int
	for i := range hs {
		if g := gpus[hs[i].UnitID]; g != nil {
			set(&hs[i], g)
			used[hs[i].UnitID] = true
		} else {
			free = append(free, i)
		}
	}
	var rest []string
	for id := range gpus {
		if !used[id] {
			rest = append(rest, id)
		}
	}
	sort.Strings(rest)
	for k, id := range rest {
		if k >= len(free) {
			return len(rest) - k
		}
		set(&hs[free[k]], gpus[id])
	}
	return 0
}

func set(h *cluster.Holding, g *GPUUsage) {
	h.Activity, h.SMActive, h.FramebufferMiB = g.Activity, g.SMActive, g.FramebufferMiB
}

// cloneNodes copies nodes down to their units; labels and taints, which
// nothing writes, stay shared.
func cloneNodes(nodes []cluster.Node) []cluster.Node {
	out := append([]cluster.Node(nil), nodes...)
	for i := range out {
		gpus := append([]cluster.GPU(nil), out[i].GPUs...)
		for j := range gpus {
			gpus[j].Units = append([]cluster.Unit(nil), gpus[j].Units...)
		}
		out[i].GPUs = gpus
	}
	return out
}

// namesIn counts the pods of each namespace/name that lived in w.
func namesIn(pods []cluster.Pod, w cluster.Window) map[string]int {
	n := map[string]int{}
	for i := range pods {
		if lived(&pods[i], w) {
			n[pods[i].Key()]++
		}
	}
	return n
}

// finder looks a pod's usage up by PodKey, and by namespace/name when
// the inventory and the usage source disagree on knowing the UID — only
// when one pod of that name lived in the window and one usage entry has
// it, so that a recreated pod's two lives never share usage.
func (u *Span) finder(names map[string]int) func(p *cluster.Pod) *PodUsage {
	if u == nil {
		return func(*cluster.Pod) *PodUsage { return nil }
	}
	var byName map[string]string // namespace/name → key, "" when ambiguous
	return func(p *cluster.Pod) *PodUsage {
		if pu := u.Pods[PodKey(p)]; pu != nil {
			return pu
		}
		if byName == nil {
			byName = map[string]string{}
			for k := range u.Pods {
				name := nameOf(k)
				if _, seen := byName[name]; seen {
					byName[name] = ""
				} else {
					byName[name] = k
				}
			}
		}
		if k := byName[p.Key()]; k != "" && names[p.Key()] == 1 {
			return u.Pods[k]
		}
		return nil
	}
}

// nameOf is the namespace/name part of a PodKey.
func nameOf(key string) string {
	if i := strings.IndexByte(key, '/'); i >= 0 {
		if j := strings.IndexByte(key[i+1:], '/'); j >= 0 {
			return key[:i+1+j]
		}
	}
	return key
}

// hoursOf keeps the series of the workloads with a pod in pods (a
// workload's series may run through hours in which none of its pods did).
func hoursOf(h *cluster.Hourly, pods []cluster.Pod) *cluster.Hourly {
	if h == nil {
		return nil
	}
	has := make(map[string]bool, len(h.Workloads))
	for i := range pods {
		has[pods[i].WorkloadKey()] = true
	}
	out := &cluster.Hourly{IdleThreshold: h.IdleThreshold}
	for _, wh := range h.Workloads {
		if has[wh.Workload] {
			out.Workloads = append(out.Workloads, wh)
		}
	}
	return out
}

// windowHours is the hourly series of out's window: built from the
// span's sums, with the lives of out's pods, when it has them; else the
// inventory's. A build that fails (a window off the hour) leaves a note
// and falls back.
func windowHours(inv, out *cluster.Snapshot, u *Span) *cluster.Hourly {
	w := out.Window
	if u != nil && u.Hours != nil {
		h, err := spanHours(out, u.Hours)
		if err == nil {
			return h
		}
		out.Notes = append(out.Notes, "hourly series from the usage reads left out: "+err.Error())
	}
	return inv.Hourly.Within(inv.Window, w)
}

// spanHours builds out's hourly series from sums, the pod-hours and held
// GPU-hours taken from out's pods (the ones the cost engine allocates,
// so that Σ hourly held GPU-hours stays its allocated GPU-hours).
func spanHours(out *cluster.Snapshot, sums *cluster.HourSums) (*cluster.Hourly, error) {
	for i := range out.Nodes {
		for j := range out.Nodes[i].GPUs {
			out.Nodes[i].GPUs[j].Normalize() // out's own copies; an invalid layout is Prepare's to refuse
		}
	}
	b := cluster.NewHourlyBuilder(out.Window, sums.IdleThreshold)
	defer b.Release()
	b.Lives(out, cluster.NewIndex(out))
	lives, err := b.Sums()
	if err != nil {
		return nil, err
	}
	return sums.WithLives(lives).Build(out.Window)
}
