package sim

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/gpuwise/gpuwise/internal/cluster"
	"github.com/gpuwise/gpuwise/internal/rolling"
)

// Workload change kinds (docs/progress.md "Ground truth").
const (
	// Resize sets the requests of the workload's pods running at At (each
	// recreated at At with them). A memory request below the container's
	// peak working set backfires: the pods are OOM-killed OOMPerHour
	// times an hour from At, and their servers' latency is
	// BackfireLatency times what it was.
	Resize = "resize"
	// ToMIG re-partitions Node at At: as many of its GPUs as the workload
	// needs (ones no other workload holds) are cut into Profile slices
	// (the node is replaced by <node>-mig of the same instance type, its
	// other pods going on there: the simulator's nodes keep one GPU
	// layout for life), and every pod of the workload alive from At moves
	// onto the slices, one per GPU it held.
	// The workload's GPU series follow (held and measured scale by the
	// slice's fraction; its work, active GPU-hours, stays). A profile
	// with less memory than the pods' peak framebuffer backfires: they
	// are OOM-killed OOMPerHour times an hour from At, and their servers'
	// latency is BackfireLatency times what it was.
	ToMIG = "to-mig"
	// Autoscale scales Node's pods, and the node, away every night from
	// At: from midnight UTC for NightHours the pods do not run and the
	// node is gone; each morning <node>-up<k> starts and the pods go on
	// there (the autoscaler following demand). The pods' workloads'
	// series lose them in those hours.
	Autoscale = "autoscale"
)

// OOMPerHour is how often a backfiring change OOM-kills each pod.
const OOMPerHour = 3

// NightHours is how long Autoscale's nights last, from midnight UTC.
const NightHours = 8

// alive: the pod runs at some time at or after t.
func aliveFrom(p *cluster.Pod, t time.Time) bool { return p.End.IsZero() || p.End.After(t) }

// recreate ends p at t and returns its continuation from t (a new pod
// of the same owner on the same units).
func recreate(s *cluster.Snapshot, p *cluster.Pod, t time.Time, suffix string) cluster.Pod {
	c := *p
	c.Name, c.UID, c.Start = movedName(p.Name), p.UID+suffix, t
	c.GPUs, c.Containers = slices.Clone(p.GPUs), slices.Clone(p.Containers)
	start := p.Start
	if start.IsZero() || start.Before(s.Window.Start) {
		start = s.Window.Start
	}
	if life := endOf(s, p).Sub(start).Seconds(); life > 0 {
		// the kills spread over its life: the part after t goes on
		before := int(math.Round(float64(p.OOMKills) * t.Sub(start).Seconds() / life))
		c.OOMKills, p.OOMKills = p.OOMKills-before, before
	}
	p.End, p.Phase, p.EndReason = t, "Succeeded", ""
	return c
}

// hourOf is the index of the window's hour holding t.
func hourOf(s *cluster.Snapshot, t time.Time) int { return int(t.Sub(s.Window.Start) / time.Hour) }

// endOf is a pod's end, the window's end when it runs on.
func endOf(s *cluster.Snapshot, p *cluster.Pod) time.Time {
	if p.End.IsZero() || p.End.After(s.Window.End) {
		return s.Window.End
	}
	return p.End
}

// addOOM adds OOMPerHour kills an hour to the workload's series over the
// pods' lives from t, and to the pods.
func addOOM(s *cluster.Snapshot, workload string, ps []*cluster.Pod, t time.Time) {
	wh := s.Hourly.Find(workload)
	for _, p := range ps {
		end := endOf(s, p)
		p.OOMKills += int(math.Round(OOMPerHour * end.Sub(t).Hours()))
		if wh == nil {
			continue
		}
		if wh.OOMKills == nil {
			wh.OOMKills = make(cluster.Series, len(wh.Pods))
		}
		for h := hourOf(s, t); h < s.Window.HourCount(); h++ {
			lo, hi := s.Window.Start.Add(time.Duration(h)*time.Hour), s.Window.Start.Add(time.Duration(h+1)*time.Hour)
			over := minT(hi, end).Sub(maxT(lo, t)).Hours()
			if i := h - wh.From; over > 0 && i >= 0 && i < len(wh.OOMKills) {
				if wh.OOMKills[i] != wh.OOMKills[i] {
					wh.OOMKills[i] = 0
				}
				wh.OOMKills[i] += float32(OOMPerHour * over)
			}
		}
	}
}

func minT(a, b time.Time) time.Time {
	if a.Before(b) {
		return a
	}
	return b
}

func maxT(a, b time.Time) time.Time {
	if a.After(b) {
		return a
	}
	return b
}

// resize recreates the workload's pods running at c.At with the new
// requests.
func resize(s *cluster.Snapshot, c Change) ([]move, error) {
	if c.CPUMilli <= 0 || c.MemoryBytes <= 0 {
		return nil, fmt.Errorf("sim: change %s of %s: give the new CPU (milli) and memory (bytes) requests", c.Kind, c.Workload)
	}
	var out []move
	var recreated []*cluster.Pod
	peak := 0.0
	n := len(s.Pods)
	for i := 0; i < n; i++ {
		p := &s.Pods[i]
		if p.WorkloadKey() != c.Workload || p.Start.After(c.At) || !aliveFrom(p, c.At) {
			continue
		}
		k := containerOf(p, c.Container)
		if k < 0 {
			return nil, fmt.Errorf("sim: change %s of %s: pod %s has no container %q", c.Kind, c.Workload, p.Key(), c.Container)
		}
		from := rolling.PodKey(p)
		q := recreate(s, p, c.At, "-resized")
		ct := &q.Containers[k]
		ct.CPURequestMilli, ct.MemoryRequest = c.CPUMilli, c.MemoryBytes
		if ct.MemoryLimit > 0 {
			ct.MemoryLimit = c.MemoryBytes
		}
		if ct.Memory != nil {
			peak = math.Max(peak, ct.Memory.Max)
		}
		s.Pods = append(s.Pods, q)
		out = append(out, moved(from, &s.Pods[len(s.Pods)-1], q.GPUs, c.At))
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("sim: change %s: no pod of %s runs at %s", c.Kind, c.Workload, c.At.UTC().Format(time.RFC3339))
	}
	if peak > float64(c.MemoryBytes) {
		for j := n; j < len(s.Pods); j++ {
			recreated = append(recreated, &s.Pods[j])
		}
		addOOM(s, c.Workload, recreated, c.At)
		slowDown(s, c.Workload, hourOf(s, c.At), BackfireLatency)
	}
	return out, nil
}

// containerOf is the index of the named container, or of the first
// requesting a GPU (else the first) when name is empty; -1 when none.
func containerOf(p *cluster.Pod, name string) int {
	if name != "" {
		return slices.IndexFunc(p.Containers, func(c cluster.Container) bool { return c.Name == name })
	}
	if i := slices.IndexFunc(p.Containers, func(c cluster.Container) bool { return len(c.GPURequests) > 0 }); i >= 0 {
		return i
	}
	if len(p.Containers) == 0 {
		return -1
	}
	return 0
}

// toMIG replaces node i by a copy at c.At with as many of its GPUs cut
// into c.Profile slices as the workload's pods need (GPUs no other
// workload holds from c.At), and moves the workload's pods onto them.
func toMIG(s *cluster.Snapshot, i int, c Change) ([]move, error) {
	sh, ok := migShapes[c.Profile]
	old := s.Nodes[i]
	if !ok || (old.GPUModel != "A100-80GB" && old.GPUModel != "H100-80GB") {
		return nil, fmt.Errorf("sim: change %s of %s to %q: the simulator cuts A100-80GB and H100-80GB GPUs into %s", c.Kind, c.Node, c.Profile, migProfiles())
	}
	per := min(7/sh[0], 8/sh[1])
	needed, others := 0, map[string]bool{}
	for j := range s.Pods {
		p := &s.Pods[j]
		if !aliveFrom(p, c.At) {
			continue
		}
		if p.WorkloadKey() == c.Workload {
			needed += len(p.GPUs)
		} else if p.Node == old.Name {
			for _, h := range p.GPUs {
				others[h.UnitID] = true
			}
		}
	}
	n := old
	n.Name, n.Created, n.MIGStrategy, n.ProviderID = old.Name+"-mig", c.At, "mixed", ""
	rename := renameUnits(&n, old)
	var slots []string
	layout := make([][]string, len(n.GPUs))
	for g := range n.GPUs {
		if len(slots) >= needed {
			break
		}
		if len(old.GPUs[g].Units) != 1 || old.GPUs[g].Units[0].Kind != cluster.WholeGPU || others[old.GPUs[g].Units[0].ID] {
			continue
		}
		gp := &n.GPUs[g]
		gp.Sharing, gp.Units = cluster.MIG, nil
		for k := range per {
			id := fmt.Sprintf("%s/gpu%d/mig-%s-%d", n.Name, g, c.Profile, k)
			gp.Units = append(gp.Units, cluster.Unit{ID: id, Kind: cluster.MIGSlice, Profile: c.Profile, ComputeSlices: sh[0], MemorySlices: sh[1]})
			slots = append(slots, id)
			layout[g] = append(layout[g], c.Profile)
		}
		if err := gp.Normalize(); err != nil {
			return nil, fmt.Errorf("sim: change %s of %s: %w", c.Kind, c.Node, err)
		}
	}
	if needed == 0 || len(slots) < needed {
		return nil, fmt.Errorf("sim: change %s of %s onto %s: its pods hold %d GPUs from %s; %d %s slices fit on the GPUs no other workload holds",
			c.Kind, c.Workload, c.Node, needed, c.At.UTC().Format(time.RFC3339), len(slots), c.Profile)
	}
	n.Labels = map[string]string{}
	for k, v := range old.Labels {
		if !strings.HasPrefix(k, "nvidia.com/mig") {
			n.Labels[k] = v
		}
	}
	for g := range layout {
		if layout[g] == nil {
			layout[g] = []string{}
		}
	}
	migLabels(n.Labels, layout)
	var frac float64
	for _, g := range n.GPUs {
		if g.Sharing == cluster.MIG {
			frac = g.Units[0].Fraction
		}
	}
	memMiB := float64(old.GPUs[0].MemoryMiB) * float64(sh[1]) / 8
	if memMiB == 0 {
		memMiB = 80 * 1000 * float64(sh[1]) / 8
	}
	s.Nodes[i].Deleted, s.Nodes[i].EndReason = c.At, cluster.NodeScaledDown
	s.Nodes = append(s.Nodes, n)
	// the node's pods go on on the copy: the workload's onto the slices
	// (below), the others on their GPUs
	var out []move
	cs, from := cut(s, old.Name, c.At)
	for k, q := range cs {
		prev := slices.Clone(q.GPUs)
		q.Node = n.Name
		if q.WorkloadKey() != c.Workload {
			for j := range q.GPUs {
				q.GPUs[j].UnitID = rename[q.GPUs[j].UnitID]
			}
		}
		s.Pods = append(s.Pods, q)
		out = append(out, moved(from[k], &q, prev, c.At))
	}
	m, peak, err := ontoSlices(s, c, n.Name, slots)
	if err != nil {
		return nil, err
	}
	out = append(out, m...)
	migSeries(s, c.Workload, c.At, frac)
	if peak > memMiB {
		var ps []*cluster.Pod
		for j := range s.Pods {
			if p := &s.Pods[j]; p.WorkloadKey() == c.Workload && p.Node == n.Name {
				ps = append(ps, p)
			}
		}
		addOOM(s, c.Workload, ps, c.At)
		slowDown(s, c.Workload, hourOf(s, c.At), BackfireLatency)
	}
	return out, nil
}

func migProfiles() string {
	ps := make([]string, 0, len(migShapes))
	for p := range migShapes {
		ps = append(ps, p)
	}
	slices.Sort(ps)
	return strings.Join(ps, ", ")
}

// ontoSlices moves the workload's pods alive from c.At onto the slots
// (recreating those that started before), one slot per GPU held; peak is
// their largest framebuffer (MiB).
func ontoSlices(s *cluster.Snapshot, c Change, node string, slots []string) ([]move, float64, error) {
	var out []move
	peak, next := 0.0, 0
	n := len(s.Pods)
	for i := 0; i < n; i++ {
		p := &s.Pods[i]
		if p.WorkloadKey() != c.Workload || !aliveFrom(p, c.At) || len(p.GPUs) == 0 {
			continue
		}
		for _, h := range p.GPUs {
			if h.FramebufferMiB != nil {
				peak = math.Max(peak, h.FramebufferMiB.Max)
			}
		}
		if next+len(p.GPUs) > len(slots) {
			return nil, 0, fmt.Errorf("sim: change %s of %s onto %s: %d %s slices, not enough for the workload's pods", c.Kind, c.Workload, c.Node, len(slots), c.Profile)
		}
		target := p
		from := rolling.PodKey(p)
		if p.Start.Before(c.At) {
			q := recreate(s, p, c.At, "-mig")
			s.Pods = append(s.Pods, q)
			target = &s.Pods[len(s.Pods)-1]
		}
		prev := slices.Clone(target.GPUs)
		target.GPUs = slices.Clone(target.GPUs)
		for k := range target.GPUs {
			target.GPUs[k].UnitID = slots[next]
			next++
		}
		target.Node = node
		out = append(out, moved(from, target, prev, c.At))
	}
	if next == 0 {
		return nil, 0, fmt.Errorf("sim: change %s: no GPU pod of %s runs from %s", c.Kind, c.Workload, c.At.UTC().Format(time.RFC3339))
	}
	return out, peak, nil
}

// migSeries scales the workload's GPU series from t by the slice's
// fraction: held and measured shrink, the work (active GPU-hours) stays
// within them.
func migSeries(s *cluster.Snapshot, workload string, t time.Time, frac float64) {
	wh := s.Hourly.Find(workload)
	if wh == nil {
		return
	}
	f := float32(frac)
	for i := max(hourOf(s, t)-wh.From, 0); i < len(wh.Pods); i++ {
		wh.GPUHeld[i] *= f
		wh.GPUMeasured[i] *= f
		if wh.GPUActive != nil {
			wh.GPUActive[i] = min(wh.GPUActive[i], wh.GPUMeasured[i])
		}
		if wh.GPUIdle != nil {
			wh.GPUIdle[i] = min(wh.GPUIdle[i]*f, wh.GPUMeasured[i])
		}
	}
}
