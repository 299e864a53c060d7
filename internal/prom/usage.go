package prom

import (
	"strconv"
	"sync"
	"sync/atomic"

	"github.com/gpuwise/gpuwise/internal/cluster"
	"github.com/gpuwise/gpuwise/internal/prom/query"
	"github.com/gpuwise/gpuwise/internal/prom/wire"
	"github.com/gpuwise/gpuwise/internal/usage"
)

// holdKey is one pod on one GPU unit.
type holdKey struct{ pod, unit string }

// gpuSeries is the accumulated usage of one holding, and its hourly bins.
type gpuSeries struct {
	act, sm *usage.Activity
	fb      *usage.Gauge
	hours   *holdHours
}

// gpuUsage is every holding's usage, committed by the DCGM batches of a
// build under its lock. Its routing fields are set before the reads and
// only read during them.
type gpuUsage struct {
	step float64
	// derive: units are not known during the reads (the inventory comes
	// with the activity series); holdings are keyed by the unit ID built
	// from the labels. Otherwise units routes a series to its unit.
	derive   bool
	units    map[string]cluster.UnitRef
	replicas map[string]int // node → time-slicing replicas
	hint     atomic.Int64   // series of the last batch, to size the next
	// clock, when set, bins the activity and link series by hour.
	clock *hourClock

	mu    sync.Mutex
	holds map[holdKey]*gpuSeries
	// hosts are the nodes that sent any DCGM series.
	hosts map[string]bool
	// With derive: the GPUs of the activity series read, and whether any
	// activity series came.
	inv  []gpuLabels
	seen bool
	// ranges count, per field, the samples left out for being outside
	// what the field can hold (dcgmRange).
	ranges [nFields]query.Range
}

func newGPUUsage(step float64, derive bool, ix unitIndex) *gpuUsage {
	return &gpuUsage{step: step, derive: derive, units: ix.units, replicas: ix.replicas,
		holds: map[holdKey]*gpuSeries{}, hosts: map[string]bool{}}
}

// field names which accumulator of a holding a query feeds.
type field int

const (
	activityField field = iota
	smField
	fbField
	// pcieField and nvlinkField are receive rates (bytes/s) of whole GPUs,
	// read for the hourly series only.
	pcieField
	nvlinkField
	nFields
)

// gpuBatch collects one request's DCGM series per holding.
type gpuBatch struct {
	u      *gpuUsage
	f      field
	scale  float64
	series map[holdKey]*gpuSeries
	hosts  map[string]bool
	holds  slab[gpuSeries]
	acts   slab[usage.Activity]
	gauges slab[usage.Gauge]
	// capture: the batch's series make the inventory (activity series,
	// with derive); inv are their GPUs, seen whether any came.
	capture bool
	inv     []gpuLabels
	seen    bool
	// rng leaves out the samples the field cannot hold, counting them.
	rng query.Range
}

func (u *gpuUsage) batch(f field, scale float64) func() query.Batch {
	return func() query.Batch {
		return &gpuBatch{u: u, f: f, scale: scale, series: make(map[holdKey]*gpuSeries, u.hint.Load()),
			hosts: map[string]bool{}, capture: u.derive && f == activityField, rng: dcgmRange(f, scale)}
	}
}

// dcgmKeep says which labels of a DCGM series route it: what Series
// reads; UUID too when the series make the inventory.
func dcgmKeep(capture bool) func(name []byte) bool {
	return func(name []byte) bool {
		switch string(name) {
		case "Hostname", "hostname", "gpu", "gpu_id", "pod", "pod_name", "namespace", "pod_namespace",
			"vgpu", "GPU_I_PROFILE", "GPU_I_ID":
			return true
		case "UUID", "uuid":
			return capture
		}
		return false
	}
}

// Series routes a series to its holding's accumulator, created on first
// use; a zero Target skips it.
func (g *gpuBatch) Series(l wire.Labels) query.Target {
	g.seen = g.seen || g.capture
	host, idx, ok := hostAndIndexOf(l)
	if !ok {
		return query.Target{}
	}
	if g.capture {
		g.inv = append(g.inv, gpuLabels{host: host, idx: idx, uuid: l.First("UUID", "uuid"),
			prof: l.Get("GPU_I_PROFILE"), gid: l.Get("GPU_I_ID")})
	}
	if !g.hosts[host] {
		g.hosts[host] = true
	}
	pod, ns := l.First("pod", "pod_name"), l.First("namespace", "pod_namespace")
	if pod == "" || ns == "" {
		return query.Target{} // a device series with no pod: the unit was free
	}
	if (g.f == pcieField || g.f == nvlinkField) && (l.Get("vgpu") != "" || l.Get("GPU_I_PROFILE") != "" || g.u.clock == nil) {
		// dcgm-exporter reports links per device: a MIG instance's or a
		// time-slice replica's copy is not its own traffic.
		return query.Target{}
	}
	unit, ok := g.unit(host, idx, l)
	if !ok {
		return query.Target{}
	}
	scale := g.scale
	if r := g.u.replicas[host]; r > 1 && l.Get("vgpu") != "" && g.f != fbField {
		scale *= float64(r) // a share of the device, as a share of the replica
	}
	return query.Target{Acc: g.acc(holdKey{ns + "/" + pod, unit}, scale)}
}

// unit is the ID of the unit a series measures, looked up from bytes and
// taken from the index so that routing a series allocates no ID. With
// derive the units are not known yet: the ID is kept, and the snapshot
// leaves out holdings of units the nodes lack.
func (g *gpuBatch) unit(host string, idx int, l wire.Labels) (string, bool) {
	var arr [128]byte
	id := appendUnitID(arr[:0], host, idx, l)
	if g.u.derive {
		return string(id), true
	}
	ref, ok := g.u.units[string(id)]
	if !ok {
		return "", false
	}
	return ref.Unit.ID, true
}

// acc is the holding's accumulator for the batch's field.
func (g *gpuBatch) acc(k holdKey, scale float64) query.Acc {
	s := g.series[k]
	if s == nil {
		s = g.holds.new()
		g.series[k] = s
	}
	if g.u.clock != nil && s.hours == nil && g.f != smField && g.f != fbField {
		s.hours = &holdHours{}
	}
	switch g.f {
	case activityField:
		if s.act == nil {
			s.act = g.acts.new()
		}
		acc := query.Acc{Activity: s.act, Scale: scale, Check: &g.rng}
		if s.hours != nil {
			acc.Timed = s.hours.activity(g.u.clock)
		}
		return acc
	case pcieField:
		return query.Acc{Timed: s.hours.link(g.u.clock, &s.hours.pcie, &s.hours.pcieSec, &s.hours.pcieLast, &s.hours.pcieCur), Check: &g.rng}
	case nvlinkField:
		return query.Acc{Timed: s.hours.link(g.u.clock, &s.hours.nvlink, &s.hours.nvlinkSec, &s.hours.nvLast, &s.hours.nvCur), Check: &g.rng}
	case smField:
		if s.sm == nil {
			s.sm = g.acts.new()
		}
		return query.Acc{Activity: s.sm, Scale: scale, Check: &g.rng}
	}
	if s.fb == nil {
		s.fb = g.gauges.new()
	}
	return query.Acc{Gauge: s.fb, Check: &g.rng}
}

func (g *gpuBatch) Commit() {
	u := g.u
	u.hint.Store(int64(len(g.series)))
	u.mu.Lock()
	defer u.mu.Unlock()
	for h := range g.hosts {
		u.hosts[h] = true
	}
	u.seen = u.seen || g.seen
	u.ranges[g.f].Add(&g.rng)
	u.inv = append(u.inv, g.inv...)
	for k, s := range g.series {
		act, sm, fb, hours := s.act, s.sm, s.fb, s.hours
		have := u.holds[k]
		if have == nil { // the batch's own, merged into by later ones
			have = s
			u.holds[k] = s
			// Empty accumulators are left out, as merging drops them.
			s.act, s.sm, s.fb, s.hours = nil, nil, nil, nil
		}
		have.act = mergeActivity(have.act, act)
		have.sm = mergeActivity(have.sm, sm)
		have.fb = mergeGauge(have.fb, fb)
		have.hours = mergeHours(have.hours, hours)
	}
}

func mergeHours(into, from *holdHours) *holdHours {
	switch {
	case from == nil:
		return into
	case into == nil:
		return from
	}
	into.merge(from)
	return into
}

func mergeActivity(into, from *usage.Activity) *usage.Activity {
	switch {
	case from == nil || from.Samples == 0:
		return into
	case into == nil:
		return from
	}
	into.Merge(from)
	return into
}

func mergeGauge(into, from *usage.Gauge) *usage.Gauge {
	switch {
	case from == nil || from.Samples == 0:
		return into
	case into == nil:
		return from
	}
	into.Merge(from)
	return into
}

// appendUnitID appends the ID of the unit a DCGM series measures, as
// buildGPUs names it (host/gpuN, then /ts-V or /mig-PROFILE-ID), to b.
func appendUnitID(b []byte, host string, idx int, l wire.Labels) []byte {
	b = append(b, host...)
	b = append(b, "/gpu"...)
	b = strconv.AppendInt(b, int64(idx), 10)
	if v := l.Get("vgpu"); v != "" {
		b = append(b, "/ts-"...)
		return append(b, v...)
	}
	if prof := l.Get("GPU_I_PROFILE"); prof != "" {
		b = append(b, "/mig-"...)
		b = append(b, prof...)
		b = append(b, '-')
		return strconv.AppendInt(b, int64(atoi(l.Get("GPU_I_ID"))), 10)
	}
	return b
}

// slab hands out Ts carved from arrays of slabSize: accumulators are made
// per series and all live until the snapshot, so one allocation serves
// many.
type slab[T any] struct{ free []T }

const slabSize = 64

func (s *slab[T]) new() *T {
	if len(s.free) == 0 {
		s.free = make([]T, slabSize)
	}
	p := &s.free[0]
	s.free = s.free[1:]
	return p
}
