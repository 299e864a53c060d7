package snapshot

import (
	"encoding/binary"

	"github.com/gpuwise/gpuwise/internal/cluster"
	"github.com/gpuwise/gpuwise/internal/usage"
)

func (e *encoder) pod(p *cluster.Pod) {
	for _, s := range []string{p.Namespace, p.Name, p.UID} {
		e.str(s)
	}
	e.stringMap(p.Labels)
	for _, s := range []string{p.Owner.Kind, p.Owner.Name, p.Node, p.Phase} {
		e.str(s)
	}
	e.time(p.Start)
	e.time(p.End)
	e.uvarint(uint64(len(p.Tolerations)))
	for _, t := range p.Tolerations {
		e.str(t.Key)
		e.str(t.Operator)
		e.str(t.Value)
		e.str(t.Effect)
	}
	e.uvarint(uint64(len(p.NodeSelector)))
	for _, k := range sortedKeys(e, p.NodeSelector) {
		e.str(k)
		e.nilOrLen(p.NodeSelector[k] == nil, len(p.NodeSelector[k]))
		for _, v := range p.NodeSelector[k] {
			e.str(v)
		}
	}
	e.nilOrLen(p.Containers == nil, len(p.Containers))
	for i := range p.Containers {
		e.container(&p.Containers[i])
	}
	e.uvarint(uint64(len(p.GPUs)))
	for i := range p.GPUs {
		e.holding(&p.GPUs[i])
	}
	e.varint(int64(p.OOMKills))
	e.str(p.EndReason) // version 3
	e.varint(p.CheckpointSeconds)
	e.nilOrLen(p.Claims == nil, len(p.Claims)) // version 5
	for _, c := range p.Claims {
		e.str(c)
	}
}

// podDecoder decodes a frame's pods with its scratch state and its
// worker's slabs.
type podDecoder struct {
	decoder
	slabs *slabs
	// labels, selectors, tolerations and gpuRequests hold the frame's
	// maps and lists by their encoded bytes (string references into the
	// frame's table), so that pods with equal labels, node selectors or
	// tolerations (a workload's replicas) share one, as the simulator's
	// do, and containers with equal GPU requests one map (a handful of
	// distinct ones in a cluster: a map each was 12 MiB of the 10k-GPU
	// snapshot's live heap, a toleration list each 3.6 MB). A snapshot is
	// read-only.
	labels      map[string]map[string]string
	selectors   map[string]map[string][]string
	tolerations map[string][]cluster.Toleration
	gpuRequests map[string]map[string]int64
}

func (d *podDecoder) pod(p *cluster.Pod) {
	p.Namespace, p.Name, p.UID = d.str(), d.str(), d.str()
	p.Labels = memoized(d, &d.labels, 2, d.stringMap)
	p.Owner = cluster.Owner{Kind: d.str(), Name: d.str()}
	p.Node, p.Phase = d.str(), d.str()
	p.Start, p.End = d.time(), d.time()
	p.Tolerations = memoized(d, &d.tolerations, 4, d.tolerationList)
	from := d.b
	selector := d.selector()
	p.NodeSelector = intern(&d.selectors, d.since(from), selector, d.err)
	if k, isNil := d.nilOrLen("containers"); !isNil {
		p.Containers = make([]cluster.Container, k)
		for i := range p.Containers {
			d.container(&p.Containers[i])
		}
	}
	if k := d.count("GPU holdings"); k > 0 {
		p.GPUs = make([]cluster.Holding, k)
		for i := range p.GPUs {
			d.holding(&p.GPUs[i])
		}
	}
	p.OOMKills = d.int()
	if d.version >= 3 {
		p.EndReason, p.CheckpointSeconds = d.str(), d.varint()
	}
	if d.version >= 5 {
		p.Claims = d.strs("resource claims")
	}
}

// since is the part of from the decoder has read since (from is an
// earlier d.b).
func (d *decoder) since(from []byte) []byte { return from[:len(from)-len(d.b)] }

// intern returns the map already decoded from the same bytes, or m,
// remembered. Nil maps and maps read with an error are not remembered.
func intern[M ~map[string]V, V any](memo *map[string]M, b []byte, m M, err error) M {
	if m == nil || err != nil {
		return m
	}
	if old, ok := (*memo)[string(b)]; ok {
		return old
	}
	if *memo == nil {
		*memo = map[string]M{}
	}
	(*memo)[string(b)] = m
	return m
}

// memoized reads what is encoded as a count k and per·k numbers (labels
// and GPU requests: per 2; tolerations: per 4): what an identical
// encoding earlier in the frame decoded to, found by its bytes before
// anything is decoded or allocated, or else what read decodes,
// remembered. Nothing is remembered for k = 0 (nil) or a read that fails.
func memoized[T any](d *podDecoder, memo *map[string]T, per uint64, read func() T) T {
	span := d.span(per)
	if len(span) > 0 && span[0] != 0 {
		if v, ok := (*memo)[string(span)]; ok {
			d.b = d.b[len(span):]
			return v
		}
	}
	from := d.b
	v := read()
	if d.err == nil && len(span) > 0 && span[0] != 0 {
		if *memo == nil {
			*memo = map[string]T{}
		}
		(*memo)[string(d.since(from))] = v
	}
	return v
}

// span is the encoding of a count k and per·k numbers at the start of
// d.b, nil when it is malformed (decoding it then reports why).
func (d *decoder) span(per uint64) []byte {
	k, at := binary.Uvarint(d.b)
	if at <= 0 || k > uint64(len(d.b)) {
		return nil
	}
	for range per * k {
		_, n := binary.Uvarint(d.b[at:])
		if n <= 0 {
			return nil
		}
		at += n
	}
	return d.b[:at]
}

// tolerationList reads a pod's tolerations (nil when it has none).
func (d *podDecoder) tolerationList() []cluster.Toleration {
	k := d.count("tolerations")
	if k == 0 {
		return nil
	}
	ts := make([]cluster.Toleration, k)
	for i := range ts {
		ts[i] = cluster.Toleration{Key: d.str(), Operator: d.str(), Value: d.str(), Effect: d.str()}
	}
	return ts
}

func (d *podDecoder) selector() map[string][]string {
	k := d.count("node selector")
	if k == 0 {
		return nil
	}
	m := make(map[string][]string, k)
	for range k {
		key := d.str()
		n, isNil := d.nilOrLen("node selector values")
		var vs []string
		if !isNil {
			vs = make([]string, n)
			for i := range vs {
				vs[i] = d.str()
			}
		}
		m[key] = vs
	}
	if len(m) != k && d.err == nil {
		d.fail("node selector: a key appears twice")
	}
	return m
}

// Presence bits of a container's or holding's optional series.
const (
	hasCPU = 1 << iota
	hasMemory
	hasActivity
	hasSMActive
	hasFramebuffer
)

func (e *encoder) container(c *cluster.Container) {
	e.str(c.Name)
	e.varint(c.CPURequestMilli)
	e.varint(c.CPULimitMilli)
	e.varint(c.MemoryRequest)
	e.varint(c.MemoryLimit)
	e.uvarint(uint64(len(c.GPURequests)))
	for _, k := range sortedKeys(e, c.GPURequests) {
		e.str(k)
		e.varint(c.GPURequests[k])
	}
	e.byte(presence(c.CPU != nil, hasCPU) | presence(c.Memory != nil, hasMemory))
	if c.CPU != nil {
		e.gauge(c.CPU)
	}
	if c.Memory != nil {
		e.gauge(c.Memory)
	}
	// version 5: HAMi's fractional asks
	e.varint(c.GPUCores)
	e.varint(c.GPUMemoryMiB)
	e.varint(c.GPUMemoryPercent)
}

func (d *podDecoder) container(c *cluster.Container) {
	c.Name = d.str()
	c.CPURequestMilli, c.CPULimitMilli, c.MemoryRequest, c.MemoryLimit = d.varint(), d.varint(), d.varint(), d.varint()
	c.GPURequests = memoized(d, &d.gpuRequests, 2, d.requests)
	has := d.series(hasCPU | hasMemory)
	if has&hasCPU != 0 {
		c.CPU = d.gauge()
	}
	if has&hasMemory != 0 {
		c.Memory = d.gauge()
	}
	if d.version >= 5 {
		c.GPUCores, c.GPUMemoryMiB, c.GPUMemoryPercent = d.varint(), d.varint(), d.varint()
	}
}

// requests reads a container's GPU requests (nil when it has none).
func (d *podDecoder) requests() map[string]int64 {
	k := d.count("GPU requests")
	if k == 0 {
		return nil
	}
	m := make(map[string]int64, k)
	for range k {
		key := d.str()
		m[key] = d.varint()
	}
	if len(m) != k && d.err == nil {
		d.fail("GPU requests: a resource appears twice")
	}
	return m
}

func (e *encoder) holding(h *cluster.Holding) {
	e.str(h.UnitID)
	e.byte(presence(h.Activity != nil, hasActivity) | presence(h.SMActive != nil, hasSMActive) |
		presence(h.FramebufferMiB != nil, hasFramebuffer))
	if h.Activity != nil {
		e.activity(h.Activity)
	}
	if h.SMActive != nil {
		e.activity(h.SMActive)
	}
	if h.FramebufferMiB != nil {
		e.gauge(h.FramebufferMiB)
	}
}

func (d *podDecoder) holding(h *cluster.Holding) {
	h.UnitID = d.str()
	has := d.series(hasActivity | hasSMActive | hasFramebuffer)
	if has&hasActivity != 0 {
		h.Activity = d.activity(&d.slabs.gpuActivity)
	}
	if has&hasSMActive != 0 {
		h.SMActive = d.activity(&d.slabs.smActivity)
	}
	if has&hasFramebuffer != 0 {
		h.FramebufferMiB = d.gauge()
	}
}

func presence(ok bool, bit byte) byte {
	if ok {
		return bit
	}
	return 0
}

// series reads a presence byte that may only hold the bits of allowed,
// and counts the series present against MaxSeries.
func (d *podDecoder) series(allowed byte) byte {
	has := d.byte()
	if has&^allowed != 0 {
		d.fail("unknown series flags %#x", has)
		return 0
	}
	n := 0
	for b := has; b != 0; b &= b - 1 {
		n++
	}
	if err := d.budget.addSeries(n); err != nil && d.err == nil {
		d.err = err
		return 0
	}
	return has
}

// activity reads an activity series into sl, the slab of its kind.
func (d *podDecoder) activity(sl *seriesSlab[usage.Activity]) *usage.Activity {
	a := sl.next()
	d.decoder.activity(a, sl)
	return a
}

func (d *podDecoder) gauge() *usage.Gauge {
	g := d.slabs.gauges.next()
	d.decoder.gauge(g, &d.slabs.gauges)
	return g
}
