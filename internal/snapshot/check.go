package snapshot

import (
	"fmt"

	"github.com/gpuwise/gpuwise/internal/cluster"
)

// check applies the count and string limits to a snapshot decoded whole
// (version 1 JSON, whose decoder cannot stop early; MaxBytes has bounded
// what it could allocate).
func (b *budget) check(s *cluster.Snapshot) error {
	o := b.opts
	switch {
	case len(s.Nodes) > o.MaxNodes:
		return limitErr(fmt.Sprintf("the number of nodes (%d)", len(s.Nodes)), int64(len(s.Nodes)), "MaxNodes", int64(o.MaxNodes))
	case len(s.Pods) > o.MaxPods:
		return limitErr(fmt.Sprintf("the number of pods (%d)", len(s.Pods)), int64(len(s.Pods)), "MaxPods", int64(o.MaxPods))
	}
	if err := b.addSeries(countSeries(s)); err != nil {
		return err
	}
	if n := longestString(s); n > o.MaxStringBytes {
		return limitErr("a string", int64(n), "MaxStringBytes", int64(o.MaxStringBytes))
	}
	return nil
}

func countSeries(s *cluster.Snapshot) int {
	n := 0
	for i := range s.Pods {
		for _, c := range s.Pods[i].Containers {
			n += count(c.CPU != nil) + count(c.Memory != nil)
		}
		for _, h := range s.Pods[i].GPUs {
			n += count(h.Activity != nil) + count(h.SMActive != nil) + count(h.FramebufferMiB != nil)
		}
	}
	return n
}

func count(ok bool) int {
	if ok {
		return 1
	}
	return 0
}

// longestString is the length of the longest string in s.
func longestString(s *cluster.Snapshot) int {
	m := maxLen(s.Source, s.ActivityMetric)
	m = max(m, maxLen(s.Notes...), maxLen(s.Partial...), maxLen(s.Unknown...), draLongest(s.DRA))
	for i := range s.Nodes {
		m = max(m, nodeLongest(&s.Nodes[i]))
	}
	for i := range s.Pods {
		m = max(m, podLongest(&s.Pods[i]))
	}
	return m
}

func nodeLongest(n *cluster.Node) int {
	m := maxLen(n.Name, n.Cloud, n.Region, n.Zone, n.InstanceType, n.Capacity, n.GPUModel, n.MIGStrategy, n.ProviderID)
	m = max(m, mapLongest(n.Labels))
	for _, t := range n.Taints {
		m = max(m, maxLen(t.Key, t.Value, t.Effect))
	}
	for _, g := range n.GPUs {
		m = max(m, maxLen(g.UUID, g.Model, string(g.Sharing), g.Allocator, g.Driver, g.Pool))
		for _, u := range g.Units {
			m = max(m, maxLen(u.ID, string(u.Kind), u.Profile, u.Device, u.Claim))
		}
	}
	return m
}

func podLongest(p *cluster.Pod) int {
	m := maxLen(p.Namespace, p.Name, p.UID, p.Owner.Kind, p.Owner.Name, p.Node, p.Phase)
	m = max(m, mapLongest(p.Labels))
	for _, t := range p.Tolerations {
		m = max(m, maxLen(t.Key, t.Operator, t.Value, t.Effect))
	}
	for k, vs := range p.NodeSelector {
		m = max(m, len(k), maxLen(vs...))
	}
	for _, c := range p.Containers {
		m = max(m, len(c.Name))
		for k := range c.GPURequests {
			m = max(m, len(k))
		}
	}
	for _, h := range p.GPUs {
		m = max(m, len(h.UnitID))
	}
	return max(m, maxLen(p.Claims...))
}

func mapLongest(m map[string]string) int {
	n := 0
	for k, v := range m {
		n = max(n, len(k), len(v))
	}
	return n
}

func maxLen(ss ...string) int {
	n := 0
	for _, s := range ss {
		n = max(n, len(s))
	}
	return n
}

func draLongest(d *cluster.DRAInfo) int {
	if d == nil {
		return 0
	}
	m := 0
	for _, dr := range d.Drivers {
		m = max(m, len(dr.Name))
	}
	for _, c := range d.DeviceClasses {
		m = max(m, maxLen(c.Name, c.ExtendedResource), maxLen(c.Selectors...))
	}
	reqs := func(rs []cluster.DeviceRequest) {
		for _, r := range rs {
			m = max(m, maxLen(r.Name, r.DeviceClass), maxLen(r.Selectors...))
		}
	}
	for _, c := range d.Claims {
		m = max(m, maxLen(c.Namespace, c.Name, c.Template), maxLen(c.Units...), maxLen(c.Pods...))
		reqs(c.Requests)
	}
	for _, t := range d.Templates {
		m = max(m, maxLen(t.Namespace, t.Name))
		reqs(t.Requests)
	}
	return m
}
