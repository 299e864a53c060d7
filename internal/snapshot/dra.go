package snapshot

import "github.com/gpuwise/gpuwise/internal/cluster"

// Version 5 ends the header with the snapshot's DRA section: a presence
// byte, then drivers, device classes, claims and templates, each a count
// and its items in declaration order.

func (e *encoder) dra(x *cluster.DRAInfo) {
	if x == nil {
		e.byte(0)
		return
	}
	e.byte(1)
	e.uvarint(uint64(len(x.Drivers)))
	for _, dr := range x.Drivers {
		e.str(dr.Name)
		e.varint(int64(dr.Devices))
	}
	e.uvarint(uint64(len(x.DeviceClasses)))
	for _, c := range x.DeviceClasses {
		e.str(c.Name)
		e.strList(c.Selectors)
		e.str(c.ExtendedResource)
	}
	e.uvarint(uint64(len(x.Claims)))
	for _, c := range x.Claims {
		e.str(c.Namespace)
		e.str(c.Name)
		e.deviceRequests(c.Requests)
		e.str(c.Template)
		e.strList(c.Units)
		e.strList(c.Pods)
	}
	e.uvarint(uint64(len(x.Templates)))
	for _, t := range x.Templates {
		e.str(t.Namespace)
		e.str(t.Name)
		e.deviceRequests(t.Requests)
	}
}

func (e *encoder) strList(ss []string) {
	e.nilOrLen(ss == nil, len(ss))
	for _, s := range ss {
		e.str(s)
	}
}

func (e *encoder) deviceRequests(rs []cluster.DeviceRequest) {
	e.uvarint(uint64(len(rs)))
	for _, r := range rs {
		e.str(r.Name)
		e.str(r.DeviceClass)
		e.strList(r.Selectors)
		e.varint(r.Count)
		all := byte(0)
		if r.All {
			all = 1
		}
		e.byte(all)
	}
}

func (d *decoder) dra() *cluster.DRAInfo {
	if d.byte() == 0 || d.err != nil {
		return nil
	}
	x := &cluster.DRAInfo{}
	if k := d.count("DRA drivers"); k > 0 {
		x.Drivers = make([]cluster.DRADriver, k)
		for i := range x.Drivers {
			x.Drivers[i] = cluster.DRADriver{Name: d.str(), Devices: d.int()}
		}
	}
	if k := d.count("device classes"); k > 0 {
		x.DeviceClasses = make([]cluster.DeviceClass, k)
		for i := range x.DeviceClasses {
			x.DeviceClasses[i] = cluster.DeviceClass{Name: d.str(), Selectors: d.strs("selectors"), ExtendedResource: d.str()}
		}
	}
	if k := d.count("resource claims"); k > 0 {
		x.Claims = make([]cluster.ResourceClaim, k)
		for i := range x.Claims {
			c := &x.Claims[i]
			c.Namespace, c.Name = d.str(), d.str()
			c.Requests = d.deviceRequests()
			c.Template = d.str()
			c.Units, c.Pods = d.strs("claim units"), d.strs("claim pods")
		}
	}
	if k := d.count("claim templates"); k > 0 {
		x.Templates = make([]cluster.ClaimTemplate, k)
		for i := range x.Templates {
			t := &x.Templates[i]
			t.Namespace, t.Name = d.str(), d.str()
			t.Requests = d.deviceRequests()
		}
	}
	return x
}

func (d *decoder) deviceRequests() []cluster.DeviceRequest {
	k := d.count("device requests")
	if k == 0 {
		return nil
	}
	out := make([]cluster.DeviceRequest, k)
	for i := range out {
		out[i] = cluster.DeviceRequest{Name: d.str(), DeviceClass: d.str(), Selectors: d.strs("selectors"), Count: d.varint(), All: d.byte() == 1}
	}
	return out
}
