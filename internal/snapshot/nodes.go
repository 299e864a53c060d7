package snapshot

import (
	"slices"

	"github.com/gpuwise/gpuwise/internal/cluster"
)

// The encoding of each type sits next to its decoding: fields in
// declaration order, maps with sorted keys (so a snapshot's bytes are
// deterministic), nil and empty slices and maps alike as a zero count
// except where JSON keeps the difference (units, containers, the node
// and pod lists), written as count+1 with 0 for nil.

func (e *encoder) node(n *cluster.Node) {
	e.str(n.Name)
	e.stringMap(n.Labels)
	e.uvarint(uint64(len(n.Taints)))
	for _, t := range n.Taints {
		e.str(t.Key)
		e.str(t.Value)
		e.str(t.Effect)
	}
	for _, s := range []string{n.Cloud, n.Region, n.Zone, n.InstanceType, n.Capacity} {
		e.str(s)
	}
	e.varint(n.CPUMilli)
	e.varint(n.MemoryBytes)
	e.str(n.GPUModel)
	e.uvarint(uint64(len(n.GPUs)))
	for i := range n.GPUs {
		e.gpu(&n.GPUs[i])
	}
	e.str(n.MIGStrategy)
	e.time(n.Created)
	e.time(n.Deleted)
	e.varint(int64(n.Pods))
	e.str(n.EndReason)  // version 3
	e.str(n.ProviderID) // version 4
}

func (d *decoder) node(n *cluster.Node) {
	n.Name = d.str()
	n.Labels = d.stringMap()
	if k := d.count("taints"); k > 0 {
		n.Taints = make([]cluster.Taint, k)
		for i := range n.Taints {
			n.Taints[i] = cluster.Taint{Key: d.str(), Value: d.str(), Effect: d.str()}
		}
	}
	n.Cloud, n.Region, n.Zone, n.InstanceType, n.Capacity = d.str(), d.str(), d.str(), d.str(), d.str()
	n.CPUMilli, n.MemoryBytes = d.varint(), d.varint()
	n.GPUModel = d.str()
	if k := d.count("GPUs"); k > 0 {
		n.GPUs = make([]cluster.GPU, k)
		for i := range n.GPUs {
			d.gpu(&n.GPUs[i])
		}
	}
	n.MIGStrategy = d.str()
	n.Created, n.Deleted = d.time(), d.time()
	if !d.early {
		n.Pods = d.int()
	}
	if d.version >= 3 {
		n.EndReason = d.str()
	}
	if d.version >= 4 {
		n.ProviderID = d.str()
	}
}

func (e *encoder) gpu(g *cluster.GPU) {
	e.varint(int64(g.Index))
	e.str(g.UUID)
	e.str(g.Model)
	e.varint(g.MemoryMiB)
	e.str(string(g.Sharing))
	e.varint(int64(g.Replicas))
	e.nilOrLen(g.Units == nil, len(g.Units))
	for _, u := range g.Units {
		e.str(u.ID)
		e.str(string(u.Kind))
		e.str(u.Profile)
		e.varint(int64(u.ComputeSlices))
		e.varint(int64(u.MemorySlices))
		e.float(u.Fraction)
		// version 5: DRA device and claim, HAMi asks
		e.str(u.Device)
		e.str(u.Claim)
		e.varint(int64(u.CoresPercent))
		e.varint(int64(u.MemoryPercent))
		e.varint(u.MemoryMiB)
	}
	// version 5
	e.str(g.Allocator)
	e.str(g.Driver)
	e.str(g.Pool)
}

func (d *decoder) gpu(g *cluster.GPU) {
	g.Index, g.UUID, g.Model, g.MemoryMiB = d.int(), d.str(), d.str(), d.varint()
	g.Sharing, g.Replicas = cluster.Sharing(d.str()), d.int()
	d.units(g)
	if d.version >= 5 {
		g.Allocator, g.Driver, g.Pool = d.str(), d.str(), d.str()
	}
}

func (d *decoder) units(g *cluster.GPU) {
	k, isNil := d.nilOrLen("units")
	if isNil {
		return
	}
	g.Units = make([]cluster.Unit, k)
	for i := range g.Units {
		g.Units[i] = cluster.Unit{ID: d.str(), Kind: cluster.UnitKind(d.str()), Profile: d.str(),
			ComputeSlices: d.int(), MemorySlices: d.int(), Fraction: d.float()}
		if d.version >= 5 {
			u := &g.Units[i]
			u.Device, u.Claim = d.str(), d.str()
			u.CoresPercent, u.MemoryPercent, u.MemoryMiB = d.int(), d.int(), d.varint()
		}
	}
}

// nilOrLen writes 0 for a nil slice, else its length plus one.
func (e *encoder) nilOrLen(isNil bool, n int) {
	if isNil {
		e.uvarint(0)
		return
	}
	e.uvarint(uint64(n) + 1)
}

func (d *decoder) nilOrLen(what string) (int, bool) {
	v := d.uvarint()
	if v == 0 || d.err != nil {
		return 0, true
	}
	if v-1 > uint64(len(d.b)) {
		d.fail("%s: count %d is more than the frame holds", what, v-1)
		return 0, true
	}
	return int(v - 1), false
}

func (e *encoder) stringMap(m map[string]string) {
	e.uvarint(uint64(len(m)))
	for _, k := range sortedKeys(e, m) {
		e.str(k)
		e.str(m[k])
	}
}

func (d *decoder) stringMap() map[string]string {
	k := d.count("labels")
	if k == 0 {
		return nil
	}
	m := make(map[string]string, k)
	for range k {
		key := d.str()
		m[key] = d.str()
	}
	if len(m) != k && d.err == nil {
		d.fail("labels: a key appears twice")
	}
	return m
}

// sortedKeys returns m's keys in order, in the encoder's scratch slice:
// use them before the next call.
func sortedKeys[V any](e *encoder, m map[string]V) []string {
	e.keys = e.keys[:0]
	for k := range m {
		e.keys = append(e.keys, k)
	}
	slices.Sort(e.keys)
	return e.keys
}

// strs reads a string list written as nilOrLen and its strings (nil stays
// nil, empty stays empty).
func (d *decoder) strs(what string) []string {
	n, isNil := d.nilOrLen(what)
	if isNil {
		return nil
	}
	out := make([]string, n)
	for i := range out {
		out[i] = d.str()
	}
	return out
}
