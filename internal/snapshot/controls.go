package snapshot

import "github.com/gpuwise/gpuwise/internal/cluster"

// Version 7 ends the header, after the Kueue section, with the controls
// section: a presence byte, then the resources read and those not served
// (two string lists), the
// autoscalers, NodePools, admission policies and bindings, each a count
// and its items in declaration order.

func (e *encoder) controls(c *cluster.Controls) {
	if c == nil {
		e.byte(0)
		return
	}
	e.byte(1)
	e.strList(c.Read)
	e.strList(c.NotServed)
	e.uvarint(uint64(len(c.Autoscalers)))
	for i := range c.Autoscalers {
		a := &c.Autoscalers[i]
		for _, s := range []string{a.Kind, a.Namespace, a.Name, a.TargetKind, a.TargetName} {
			e.str(s)
		}
		e.varint(int64(a.MinReplicas))
		e.varint(int64(a.MaxReplicas))
		e.str(a.Mode)
		e.strList(a.Metrics)
	}
	e.uvarint(uint64(len(c.NodePools)))
	for i := range c.NodePools {
		p := &c.NodePools[i]
		e.str(p.Name)
		e.strList(p.InstanceTypes)
		e.strList(p.CapacityTypes)
		e.stringMap(p.Labels)
		e.taints(p.Taints)
		e.str(p.ConsolidationPolicy)
		e.str(p.ConsolidateAfter)
	}
	e.uvarint(uint64(len(c.Policies)))
	for i := range c.Policies {
		p := &c.Policies[i]
		e.str(p.Kind)
		e.str(p.Name)
		e.stringMap(p.Labels)
		e.strList(p.Actions)
	}
	e.uvarint(uint64(len(c.Bindings)))
	for i := range c.Bindings {
		b := &c.Bindings[i]
		e.str(b.Name)
		e.str(b.Policy)
		e.strList(b.Actions)
	}
}

func (e *encoder) taints(ts []cluster.Taint) {
	e.uvarint(uint64(len(ts)))
	for _, t := range ts {
		e.str(t.Key)
		e.str(t.Value)
		e.str(t.Effect)
	}
}

func (d *decoder) taints() []cluster.Taint {
	k := d.count("taints")
	if k == 0 {
		return nil
	}
	out := make([]cluster.Taint, k)
	for i := range out {
		out[i] = cluster.Taint{Key: d.str(), Value: d.str(), Effect: d.str()}
	}
	return out
}

func (d *decoder) controls() *cluster.Controls {
	if d.byte() == 0 || d.err != nil {
		return nil
	}
	c := &cluster.Controls{Read: d.strs("controls read"), NotServed: d.strs("controls not served")}
	if n := d.count("autoscalers"); n > 0 {
		c.Autoscalers = make([]cluster.Autoscaler, n)
		for i := range c.Autoscalers {
			a := &c.Autoscalers[i]
			a.Kind, a.Namespace, a.Name, a.TargetKind, a.TargetName = d.str(), d.str(), d.str(), d.str(), d.str()
			a.MinReplicas, a.MaxReplicas = d.int(), d.int()
			a.Mode = d.str()
			a.Metrics = d.strs("autoscaler metrics")
		}
	}
	if n := d.count("NodePools"); n > 0 {
		c.NodePools = make([]cluster.NodePool, n)
		for i := range c.NodePools {
			p := &c.NodePools[i]
			p.Name = d.str()
			p.InstanceTypes, p.CapacityTypes = d.strs("NodePool instance types"), d.strs("NodePool capacity types")
			p.Labels = d.stringMap()
			p.Taints = d.taints()
			p.ConsolidationPolicy, p.ConsolidateAfter = d.str(), d.str()
		}
	}
	if n := d.count("admission policies"); n > 0 {
		c.Policies = make([]cluster.AdmissionPolicy, n)
		for i := range c.Policies {
			p := &c.Policies[i]
			p.Kind, p.Name = d.str(), d.str()
			p.Labels = d.stringMap()
			p.Actions = d.strs("admission policy actions")
		}
	}
	if n := d.count("admission bindings"); n > 0 {
		c.Bindings = make([]cluster.AdmissionBinding, n)
		for i := range c.Bindings {
			b := &c.Bindings[i]
			b.Name, b.Policy = d.str(), d.str()
			b.Actions = d.strs("binding actions")
		}
	}
	return c
}
