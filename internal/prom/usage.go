package prom

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/gpuwise/gpuwise/internal/usage"
)

// holdKey is one pod on one GPU unit.
type holdKey struct{ pod, unit string }

// gpuSeries is the accumulated usage of one holding.
type gpuSeries struct {
	act, sm *usage.Activity
	fb      *usage.Gauge
}

// gpuUsage is every holding's usage: one gpuSeries per holding.
type gpuUsage struct {
	mu    sync.Mutex
	holds map[holdKey]*gpuSeries
	// hosts are the nodes that sent any DCGM series.
	hosts map[string]bool
	// With Builder.derive: the GPUs of the activity series read, and
	// whether any activity series came.
	inv  []gpuLabels
	seen bool
}

// ctrSeries is the accumulated usage of one container.
type ctrSeries struct {
	cpu, mem *usage.Gauge
	resets   int
}

type ctrUsage struct {
	mu   sync.Mutex
	ctrs map[string]*ctrSeries // namespace/pod/container
}

// field names which accumulator of a holding a query feeds.
type field int

const (
	activityField field = iota
	smField
	fbField
)

// readGPUUsage reads DCGM series at Step resolution, node shard by node
// shard and day by day. It needs the nodes and units (buildNodes); it
// sets b.gpuRead and fills b.gpus and nothing else of the builder.
func (b *builder) readGPUUsage(ctx context.Context) usageRun {
	var gpuNodes []string
	for _, n := range b.nodes {
		if n.HasGPUs() {
			gpuNodes = append(gpuNodes, n.Name)
		}
	}
	var tasks []Task
	step, lb := b.opts.Step, lookback(b.opts.Step)
	if b.metric != "" {
		scale := 1.0
		if b.metric == "DCGM_FI_DEV_GPU_UTIL" {
			scale = 0.01
		}
		if b.gpuRead = b.readMode(ctx, b.metric); b.gpuRead == ReadRaw || b.gpuRead == ReadRemote {
			tasks = append(tasks, b.rawGPUTasks(gpuNodes, scale)...)
		} else {
			for _, re := range shards(gpuNodes, b.opts.ShardSize) {
				for _, m := range b.dcgmMetrics(scale) {
					q := fmt.Sprintf(`avg_over_time(%[1]s{Hostname=~%[2]s}[%[3]s]) or avg_over_time(%[1]s{hostname=~%[2]s}[%[3]s])`, m.name, re, lb)
					f, sc := m.f, m.scale
					tasks = append(tasks, b.spanTasks(q, step, b.opts.MaxSteps, func() Batch { return b.newGPUBatch(f, sc) })...)
				}
			}
		}
	}
	return usageRun{queries: len(tasks), failed: b.c.Run(ctx, tasks)}
}

// readGPUUsageDerived reads DCGM series by remote read before the nodes
// are built: the inventory (b.inventory, b.metric) is taken from the
// activity series, free GPUs' included, rather than listed first. It needs
// the node facts and b.units.replicas (nodeGPULabels); units are looked up
// in the snapshot, where holdings of units the nodes lack are left out as
// before. Nodes are sharded as by readGPUUsage where their labels count
// GPUs; one more request per metric and host label reads every other host,
// so that a GPU node without GPU feature discovery's labels, or a host
// that is no node, is seen as a listing would see it. The activity metric
// is the first with any series (its fallbacks are read only when the
// first has none).
func (b *builder) readGPUUsageDerived(ctx context.Context, gpuNodes []string) usageRun {
	b.gpuRead = ReadRemote
	var run usageRun
	for i, m := range activityMetrics {
		scale := 1.0
		if m == "DCGM_FI_DEV_GPU_UTIL" {
			scale = 0.01
		}
		b.metric = m
		ms := []dcgmMetric{{m, activityField, scale}}
		if i == 0 {
			ms = b.dcgmMetrics(scale)
		}
		tasks := b.derivedGPUTasks(gpuNodes, ms)
		errs := b.c.Run(ctx, tasks)
		run.queries += len(tasks)
		run.failed = append(run.failed, errs...)
		if b.gpus.seen || len(errs) > 0 {
			b.inventory = b.gpus.inv
			return run
		}
	}
	// No activity metric: no DCGM usage at all, as when none is listed.
	b.metric, b.gpuRead = "", ""
	clear(b.gpus.holds)
	clear(b.gpus.hosts)
	return run
}

// derivedGPUTasks are readGPUUsageDerived's requests for metrics ms.
func (b *builder) derivedGPUTasks(gpuNodes []string, ms []dcgmMetric) []Task {
	step := b.opts.Step
	spans := Split(b.w.Start, b.w.End, step, b.opts.MaxSteps)
	gpuNodes = slices.Sorted(slices.Values(gpuNodes))
	quoted := make([]string, len(gpuNodes))
	for i, n := range gpuNodes {
		quoted[i] = regexpQuote(n)
	}
	allRe := strings.Join(quoted, "|")
	var tasks []Task
	for _, m := range ms {
		f, sc := m.f, m.scale
		add := func(sel string, matchers []Matcher) {
			var group []Task
			for _, sp := range spans {
				from := sp.From.Add(-step)
				group = append(group, Task{Query: sel + b.rawRange(from, sp.To), From: from, To: sp.To, Step: step,
					Raw: true, Cap: step, Open: func() Batch { return b.newGPUBatch(f, sc) }})
			}
			tasks = append(tasks, b.remoteGroup(true, sel, matchers, group)...)
		}
		name := Matcher{MatchEqual, "__name__", m.name}
		for _, re := range shards(gpuNodes, b.opts.ShardSize) {
			add(m.name+"{Hostname=~"+re+"}", []Matcher{name, {MatchRegexp, "Hostname", unquote(re)}})
			add(m.name+"{hostname=~"+re+`,Hostname=""}`,
				[]Matcher{name, {MatchRegexp, "hostname", unquote(re)}, {MatchEqual, "Hostname", ""}})
		}
		add(m.name+`{Hostname!~<GPU nodes>,Hostname!=""}`,
			[]Matcher{name, {MatchNotRegexp, "Hostname", allRe}, {MatchNotEqual, "Hostname", ""}})
		add(m.name+`{hostname!~<GPU nodes>,hostname!="",Hostname=""}`,
			[]Matcher{name, {MatchNotRegexp, "hostname", allRe}, {MatchNotEqual, "hostname", ""}, {MatchEqual, "Hostname", ""}})
	}
	return tasks
}

// nodeGPULabels reads, from the node labels, each node's time-slicing
// replicas (more than one), as buildNodes does, and the nodes whose labels
// count GPUs.
func (b *builder) nodeGPULabels() (replicas map[string]int, gpuNodes []string) {
	labels := map[string]map[string]string{}
	b.nodeFacts["kube_node_labels"].each(func(f *fact) {
		if n := f.labels.get("node"); b.nodeInfo[n] != nil {
			labels[n] = objectLabelSet(f.labels)
		}
	})
	replicas = map[string]int{}
	for n, l := range labels {
		if r := atoi(l["nvidia.com/gpu.replicas"]); r > 1 {
			replicas[n] = r
		}
		if atoi(l["nvidia.com/gpu.count"]) > 0 {
			gpuNodes = append(gpuNodes, n)
		}
	}
	return replicas, gpuNodes
}

// nodeNames are the nodes listNodes found, as buildNodes names them.
func (b *builder) nodeNames() []string {
	all := make([]string, 0, len(b.nodeInfo))
	for n := range b.nodeInfo {
		all = append(all, n)
	}
	return all
}

// usageRun is what readGPUUsage or readCtrUsage did: its requests and
// their failures.
type usageRun struct {
	queries int
	failed  []error
}

// readCtrUsage reads cAdvisor series at Step resolution, node shard by
// node shard and day by day. It needs only the node names, so it runs
// alongside the facts and DCGM reads; it sets b.ctrRead and fills b.ctrs
// and nothing else of the builder.
func (b *builder) readCtrUsage(ctx context.Context, all []string) usageRun {
	var tasks []Task
	lb := lookback(b.opts.Step)
	ctrShards := shards(all, b.opts.ShardSize)
	if len(ctrShards) > 0 {
		b.ctrRead = b.readMode(ctx, fmt.Sprintf(`container_memory_working_set_bytes{container!="",container!="POD",node=~%s}`, ctrShards[0]))
	}
	for _, re := range ctrShards {
		sel := fmt.Sprintf(`{container!="",container!="POD",node=~%s}`, re)
		if b.ctrRead == ReadRaw || b.ctrRead == ReadRemote {
			tasks = append(tasks, b.rawCtrTasks(sel, re)...)
			continue
		}
		mem := fmt.Sprintf("avg_over_time(container_memory_working_set_bytes%s[%s])", sel, lb)
		tasks = append(tasks, b.spanTasks(mem, b.opts.Step, b.opts.MaxSteps, func() Batch { return b.newMemBatch() })...)
		cpu := fmt.Sprintf("last_over_time(container_cpu_usage_seconds_total%s[%s])", sel, lb)
		tasks = append(tasks, b.counterTasks(cpu)...)
	}
	// Half the client's requests at most: the rest are left to the
	// facts and the DCGM series, which wait on more (the inventory, the
	// node facts), so that all reads end about together.
	return usageRun{queries: len(tasks), failed: b.c.run(ctx, tasks, (b.c.cfg.Concurrency+1)/2)}
}

// unquote turns a quoted shard regex back into the bare regex that a
// remote-read matcher takes.
func unquote(re string) string {
	s, err := strconv.Unquote(re)
	if err != nil {
		return re
	}
	return s
}

type dcgmMetric struct {
	name  string
	f     field
	scale float64
}

func (b *builder) dcgmMetrics(scale float64) []dcgmMetric {
	return []dcgmMetric{{b.metric, activityField, scale}, {"DCGM_FI_PROF_SM_ACTIVE", smField, 1}, {"DCGM_FI_DEV_FB_USED", fbField, 1}}
}

// Raw tasks read the same samples as query_range would: the span of
// evaluation points From…To of query_range reads the samples in
// (From−Step, To], so the task for it is an instant query at To of a range
// of To−From+Step−1ms (ranges are closed on the left before Prometheus 3).
// Counter spans reach one step further back for the sample that turns the
// first one into a rate. rawRange is the range selector of such a task.
func (b *builder) rawRange(from, to time.Time) string {
	return "[" + strconv.FormatInt(to.Sub(from).Milliseconds()-1, 10) + "ms]"
}

func (b *builder) rawGPUTasks(gpuNodes []string, scale float64) []Task {
	var tasks []Task
	step := b.opts.Step
	spans := Split(b.w.Start, b.w.End, step, b.opts.MaxSteps)
	// A range vector cannot be or-ed: one selector per host label the
	// inventory uses; a series with both is read through Hostname.
	var hostSels []string
	if b.invHostname {
		hostSels = append(hostSels, "Hostname")
	}
	if b.invLowerHostname {
		hostSels = append(hostSels, "hostname")
	}
	remote := b.gpuRead == ReadRemote
	for _, re := range shards(gpuNodes, b.opts.ShardSize) {
		for _, m := range b.dcgmMetrics(scale) {
			for _, hs := range hostSels {
				sel := m.name + "{Hostname=~" + re + "}"
				ms := []Matcher{{MatchEqual, "__name__", m.name}, {MatchRegexp, "Hostname", unquote(re)}}
				if hs == "hostname" {
					sel = m.name + "{hostname=~" + re + `,Hostname=""}`
					ms = []Matcher{{MatchEqual, "__name__", m.name}, {MatchRegexp, "hostname", unquote(re)}, {MatchEqual, "Hostname", ""}}
				}
				f, sc := m.f, m.scale
				var group []Task
				for _, sp := range spans {
					from := sp.From.Add(-step)
					group = append(group, Task{Query: sel + b.rawRange(from, sp.To), From: from, To: sp.To, Step: step,
						Raw: true, Cap: step, Open: func() Batch { return b.newGPUBatch(f, sc) }})
				}
				tasks = append(tasks, b.remoteGroup(remote, sel, ms, group)...)
			}
		}
	}
	return tasks
}

func (b *builder) rawCtrTasks(sel, re string) []Task {
	var tasks []Task
	step := b.opts.Step
	matchers := func(name string) []Matcher {
		return []Matcher{{MatchEqual, "__name__", name}, {MatchNotEqual, "container", ""},
			{MatchNotEqual, "container", "POD"}, {MatchRegexp, "node", unquote(re)}}
	}
	var mem, cpu []Task
	for i, sp := range Split(b.w.Start, b.w.End, step, b.opts.MaxSteps) {
		from := sp.From.Add(-step)
		mem = append(mem, Task{Query: "container_memory_working_set_bytes" + sel + b.rawRange(from, sp.To),
			From: from, To: sp.To, Step: step, Raw: true, Cap: step, Open: func() Batch { return b.newMemBatch() }})
		// query_range turns points after the window's start into rates,
		// and in later spans points after the previous span, seeded by
		// the last sample a step before.
		cut := b.w.Start
		if i > 0 {
			cut = sp.From.Add(-step)
		}
		from = cut.Add(-step)
		c := float64(cut.UnixMilli()+1) / 1000
		cpu = append(cpu, Task{Query: "container_cpu_usage_seconds_total" + sel + b.rawRange(from, sp.To),
			From: from, To: sp.To, Step: step, Raw: true, Open: func() Batch { return b.newCPUBatch(c) }})
	}
	remote := b.ctrRead == ReadRemote
	tasks = append(tasks, b.remoteGroup(remote, "container_memory_working_set_bytes"+sel, matchers("container_memory_working_set_bytes"), mem)...)
	return append(tasks, b.remoteGroup(remote, "container_cpu_usage_seconds_total"+sel, matchers("container_cpu_usage_seconds_total"), cpu)...)
}

// remoteGroup returns raw tasks, one a day, as they are, or, to read by
// remote read, as one task over the whole window: days are contiguous
// ((From, To] of one ends where the next begins), so the first day's
// batch, with its weighting cap and its CPU seed, reads on to the window's
// end and each series gets one accumulator. A sample is weighed by the
// time to the series' next one even across a day's end, where a day read
// alone weighs its last sample by the gap before it: with one sample a
// step the two are equal, and the report matches the raw one to float
// rounding (the sums are taken in another order).
func (b *builder) remoteGroup(remote bool, sel string, ms []Matcher, days []Task) []Task {
	if !remote || len(days) == 0 {
		return days
	}
	first := days[0]
	return []Task{{Query: sel + " (remote read)", From: first.From, To: days[len(days)-1].To, Step: b.opts.Step,
		Raw: true, Cap: first.Cap, Open: first.Open, Remote: true, Matchers: ms}}
}

// gpuBatch collects one request's DCGM points per holding.
type gpuBatch struct {
	b      *builder
	f      field
	scale  float64
	step   float64
	series map[holdKey]*gpuSeries
	hosts  map[string]bool
	holds  slab[gpuSeries]
	acts   slab[usage.Activity]
	gauges slab[usage.Gauge]
	// capture: the batch's series make the inventory (activity series,
	// with builder.derive); inv are their GPUs, seen whether any came.
	capture bool
	inv     []gpuLabels
	seen    bool
}

func (b *builder) newGPUBatch(f field, scale float64) Batch {
	return &gpuBatch{b: b, f: f, scale: scale, step: b.opts.Step.Seconds(),
		series: make(map[holdKey]*gpuSeries, b.gpuHint.Load()), hosts: map[string]bool{},
		capture: b.derive && f == activityField}
}

func (*gpuBatch) transientLabels() {}

// routedBy: what accumulator reads.
func (g *gpuBatch) routedBy(name []byte) bool {
	switch string(name) {
	case "Hostname", "hostname", "gpu", "pod", "pod_name", "namespace", "pod_namespace",
		"vgpu", "GPU_I_PROFILE", "GPU_I_ID":
		return true
	case "UUID", "uuid":
		return g.capture
	}
	return false
}

// ctrLabel says whether a cAdvisor series' label routes it (ctrKey).
func ctrLabel(name []byte) bool {
	switch string(name) {
	case "namespace", "pod", "container":
		return true
	}
	return false
}

func (g *gpuBatch) Series(l map[string]string) PointFunc {
	add := g.Weighted(l)
	if add == nil {
		return nil
	}
	dt := g.step
	return func(_, v float64) { add(v, dt) }
}

// Weighted returns where a series' points go, each standing for dt seconds.
func (g *gpuBatch) Weighted(l map[string]string) func(v, dt float64) {
	acc, ok := g.accumulator(mapLabels(l))
	if !ok {
		return nil
	}
	return acc.add
}

// accumulator is the series' accumulator in the batch, created on first
// use; false skips the series.
func (g *gpuBatch) accumulator(l seriesLabels) (accumulator, bool) {
	g.seen = g.seen || g.capture
	host, idx, ok := hostAndIndexOf(l)
	if !ok {
		return accumulator{}, false
	}
	if g.capture {
		g.inv = append(g.inv, gpuLabels{host: host, idx: idx, uuid: l.first("UUID", "uuid"),
			prof: l.get("GPU_I_PROFILE"), gid: l.get("GPU_I_ID")})
	}
	if !g.hosts[host] {
		g.hosts[host] = true
	}
	pod, ns := l.first("pod", "pod_name"), l.first("namespace", "pod_namespace")
	if pod == "" || ns == "" {
		return accumulator{}, false // a device series with no pod: the unit was free
	}
	// The unit's ID is looked up from bytes and taken from the index, so
	// that routing a series allocates no ID.
	// With builder.derive the units are not known yet: the ID is kept,
	// and the snapshot leaves out holdings of units the nodes lack.
	var arr [128]byte
	id := appendUnitID(arr[:0], host, idx, l)
	var unit string
	if g.b.derive {
		unit = string(id)
	} else {
		ref, ok := g.b.units.units[string(id)]
		if !ok {
			return accumulator{}, false
		}
		unit = ref.Unit.ID
	}
	scale := g.scale
	if r := g.b.units.replicas[host]; r > 1 && l.get("vgpu") != "" && g.f != fbField {
		scale *= float64(r) // a share of the device, as a share of the replica
	}
	k := holdKey{ns + "/" + pod, unit}
	s := g.series[k]
	if s == nil {
		s = g.holds.new()
		g.series[k] = s
	}
	switch g.f {
	case activityField:
		if s.act == nil {
			s.act = g.acts.new()
		}
		return accumulator{a: s.act, scale: scale}, true
	case smField:
		if s.sm == nil {
			s.sm = g.acts.new()
		}
		return accumulator{a: s.sm, scale: scale}, true
	}
	if s.fb == nil {
		s.fb = g.gauges.new()
	}
	return accumulator{g: s.fb}, true
}

func (g *gpuBatch) Commit() {
	g.b.gpuHint.Store(int64(len(g.series)))
	u := g.b.gpus
	u.mu.Lock()
	defer u.mu.Unlock()
	for h := range g.hosts {
		u.hosts[h] = true
	}
	u.seen = u.seen || g.seen
	u.inv = append(u.inv, g.inv...)
	for k, s := range g.series {
		act, sm, fb := s.act, s.sm, s.fb
		have := u.holds[k]
		if have == nil { // the batch's own, merged into by later ones
			have = s
			u.holds[k] = s
			// Empty accumulators are left out, as merging drops them.
			s.act, s.sm, s.fb = nil, nil, nil
		}
		have.act = mergeActivity(have.act, act)
		have.sm = mergeActivity(have.sm, sm)
		have.fb = mergeGauge(have.fb, fb)
	}
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

// unitID names the unit a DCGM series measures, as buildGPUs names it.
func unitID(host string, idx int, l map[string]string) string {
	return string(appendUnitID(nil, host, idx, mapLabels(l)))
}

// appendUnitID appends unitID's ID (host/gpuN, then /ts-V or
// /mig-PROFILE-ID) to b.
func appendUnitID(b []byte, host string, idx int, l seriesLabels) []byte {
	b = append(b, host...)
	b = append(b, "/gpu"...)
	b = strconv.AppendInt(b, int64(idx), 10)
	if v := l.get("vgpu"); v != "" {
		b = append(b, "/ts-"...)
		return append(b, v...)
	}
	if prof := l.get("GPU_I_PROFILE"); prof != "" {
		b = append(b, "/mig-"...)
		b = append(b, prof...)
		b = append(b, '-')
		return strconv.AppendInt(b, int64(atoi(l.get("GPU_I_ID"))), 10)
	}
	return b
}

func ctrKey(l seriesLabels) string {
	ns, pod, ctr := l.get("namespace"), l.get("pod"), l.get("container")
	return ns + "/" + pod + "/" + ctr
}

// memBatch collects working-set points per container.
type memBatch struct {
	b      *builder
	series map[string]*usage.Gauge
	gauges slab[usage.Gauge]
}

func (b *builder) newMemBatch() Batch {
	return &memBatch{b: b, series: make(map[string]*usage.Gauge, b.memHint.Load())}
}

func (*memBatch) transientLabels() {}

func (*memBatch) routedBy(name []byte) bool { return ctrLabel(name) }

func (m *memBatch) Series(l map[string]string) PointFunc {
	add := m.Weighted(l)
	dt := m.b.opts.Step.Seconds()
	return func(_, v float64) { add(v, dt) }
}

// Weighted returns where a series' points go, each standing for dt seconds.
func (m *memBatch) Weighted(l map[string]string) func(v, dt float64) {
	acc, _ := m.accumulator(mapLabels(l))
	return acc.g.Add
}

// accumulator is the container's gauge in the batch, created on first use.
func (m *memBatch) accumulator(l seriesLabels) (accumulator, bool) {
	k := ctrKey(l)
	g := m.series[k]
	if g == nil { // a restarted container is a new series of the same container
		g = m.gauges.new()
		m.series[k] = g
	}
	return accumulator{g: g}, true
}

func (m *memBatch) Commit() {
	m.b.memHint.Store(int64(len(m.series)))
	m.b.ctrs.commit(func(c map[string]*ctrSeries) {
		for k, g := range m.series {
			s := c[k]
			s.mem = mergeGauge(s.mem, g)
		}
	}, keys(m.series))
}

func (u *ctrUsage) commit(fn func(map[string]*ctrSeries), ks []string) {
	u.mu.Lock()
	defer u.mu.Unlock()
	for _, k := range ks {
		if u.ctrs[k] == nil {
			u.ctrs[k] = &ctrSeries{}
		}
	}
	fn(u.ctrs)
}

func keys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	return out
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
