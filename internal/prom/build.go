package prom

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/gpuwise/gpuwise/internal/cluster"
	"github.com/gpuwise/gpuwise/internal/prom/api"
	"github.com/gpuwise/gpuwise/internal/prom/query"
	"github.com/gpuwise/gpuwise/internal/prom/wire"
)

// Build reads the window's history and returns the snapshot. When some
// data could not be read (usage requests that failed after their retries,
// kube-state-metrics series that are missing) it still returns the
// snapshot, marked partial (its Partial says what is missing), with a
// *PartialError; when nothing trustworthy can be built (the nodes or any
// kube-state-metrics metric could not be read, no pod series at all) it
// returns only the error. Options must pass Validate.
func Build(ctx context.Context, opts Options) (*cluster.Snapshot, error) {
	if err := opts.Validate(); err != nil {
		return nil, err
	}
	c, err := api.New(opts.Client)
	if err != nil {
		return nil, err
	}
	parent := ctx
	ctx, cancel := context.WithTimeout(ctx, opts.Deadline)
	defer cancel()
	s, err := newReader(ctx, c, opts).build(ctx, cancel)
	if ctx.Err() == context.DeadlineExceeded && parent.Err() == nil {
		return nil, &api.Error{Kind: api.Unreachable, URL: c.URL(), Query: "the whole read",
			Hint: "raise --prometheus-deadline, or read a shorter --window or fewer nodes at once",
			Err:  fmt.Errorf("reading the window took longer than the %s deadline (--prometheus-deadline): %w", opts.Deadline, context.DeadlineExceeded)}
	}
	return s, err
}

// reader reads one window from one Prometheus. Nothing in it changes
// during a build: each stage takes what it needs as arguments and returns
// what it read.
type reader struct {
	q    query.Runner
	opts Options
	w    cluster.Window
	url  string // the client's, as Display shows it
	// derive: the DCGM inventory is not listed but taken from the DCGM
	// activity series read by remote read (free GPUs' included), and the
	// nodes are built after them (see readGPUsDerived).
	derive bool
	// remoteOK is the remote-read probe, run once per build.
	remoteOK func() bool
	// clock places samples in the window's hours (hourly series).
	clock *hourClock
}

func newReader(ctx context.Context, c *api.Client, opts Options) *reader {
	r := &reader{q: query.Runner{Client: c, Limits: opts.Limits, Tally: &query.Tally{Report: opts.Progress}}, opts: opts, w: opts.Window, url: c.URL(),
		derive: opts.Read == ReadRemote, clock: newHourClock(opts.Window)}
	r.remoteOK = sync.OnceValue(func() bool { return r.remoteReadProbe(ctx) })
	return r
}

// async runs f on its own goroutine; the function it returns waits for
// f's result (call it once).
func async[T any](f func() T) func() T {
	ch := make(chan T, 1)
	go func() { ch <- f() }()
	return func() T { return <-ch }
}

// build runs the stages, overlapped so that Prometheus always has
// requests to answer while gpuwise decodes (the client's limit on
// requests in flight holds for all of them together): the node list (the
// reachability probe) with the DCGM inventory beside it; then cAdvisor
// series (which need only the node names), the node facts and the pod
// facts; DCGM series once the inventory and the node facts are in (not
// the pod facts); the inference servers' series and the pods once the pod
// facts are in, while the usage reads go on; the snapshot last.
func (r *reader) build(ctx context.Context, cancel context.CancelFunc) (*cluster.Snapshot, error) {
	listed := async(func() listing { return r.listInventory(ctx) })
	nodes, err := r.listNodes(ctx)
	if err != nil {
		cancel()
		listed()
		return nil, err
	}
	cu := newCtrUsage()
	cu.clock = r.clock
	ctrs := async(func() ctrRead { return r.readContainers(ctx, nodes.names(), cu) })
	podFacts := async(func() factSet { return r.readFacts(ctx, podFactMetrics) })
	nodeFacts := r.readFacts(ctx, nodeFactMetrics)
	inv := listed()
	gpus := async(func() gpuRead { return r.readGPUs(ctx, nodes, nodeFacts, inv) })
	neuron := async(func() *neuronRead { return r.readNeuron(ctx, nodes, nodeFacts) })
	gaudi := async(func() *gaudiRead { return r.readGaudi(ctx, nodeFacts) })
	pf := r.withGPULimits(ctx, podFacts())
	if err := r.usable(inv, nodeFacts, pf); err != nil {
		cancel()
		gpus()
		neuron()
		gaudi()
		ctrs()
		return nil, err
	}
	// The servers' series wait for the facts, as the DCGM reads do: the
	// facts keep half the client's requests (readContainers).
	serving := async(func() serveRead { return r.readServing(ctx) })
	hami := async(func() hamiSources {
		fs := r.readFacts(ctx, hamiMetricNames())
		h := hamiSources{facts: fs}
		if len(readHAMi(fs).gpus) > 0 { // the vGPU monitor only where HAMi shares GPUs
			h.usage = r.readHAMiUsage(ctx)
		}
		return h
	})
	pods := buildPods(pf.facts, r.w, r.opts.InfoStep, pf.gpuFromLimits)
	cu.onlyBin(gpuContainers(pods))
	g := gpus()
	if g.invErr != nil {
		cancel()
		ctrs()
		serving()
		hami()
		neuron()
		gaudi()
		return nil, g.invErr
	}
	return r.assemble(assembly{nodeFacts: nodeFacts, podFacts: pf, pods: pods, gpu: g, ctr: ctrs(), serve: serving(), hami: hami(),
		neuron: neuron(), gaudi: gaudi()})
}

// listNodes lists the nodes. It is also the reachability probe: its
// errors end the build.
func (r *reader) listNodes(ctx context.Context) (nodeList, error) {
	sets, err := r.probe(ctx, func(ctx context.Context) ([]wire.Labels, error) {
		return r.q.Series(ctx, r.w.Start, r.w.End, []string{"kube_node_info"})
	})
	if err != nil {
		return nil, fmt.Errorf("listing nodes: %w", err)
	}
	nodes := nodeList{}
	for _, l := range sets {
		if n := l.Get("node"); n != "" {
			nodes[n] = l.Get("provider_id")
		}
	}
	if len(nodes) == 0 {
		return nil, r.noSeries("kube_node_info", "kube-state-metrics node series",
			"is kube-state-metrics scraped by this Prometheus, and does the window hold data?")
	}
	return nodes, nil
}

// probe runs the read's first request, all its attempts within
// ProbeTimeout: a server that accepts connections and never answers ends
// the read then, as Unreachable, instead of after Timeout × attempts.
func (r *reader) probe(ctx context.Context, list func(context.Context) ([]wire.Labels, error)) ([]wire.Labels, error) {
	pctx, cancel := context.WithTimeout(ctx, r.opts.Client.ProbeTimeout)
	defer cancel()
	sets, err := list(pctx)
	if err != nil && pctx.Err() == context.DeadlineExceeded && ctx.Err() == nil {
		return nil, &api.Error{Kind: api.Unreachable, URL: r.url, Query: "kube_node_info",
			Hint: "Prometheus (or a proxy in front of it) accepts connections but sends no answer; raise --prometheus-probe-timeout if it is only slow",
			Err:  fmt.Errorf("no answer to the node listing within %s (--prometheus-probe-timeout): %w", r.opts.Client.ProbeTimeout, context.DeadlineExceeded)}
	}
	return sets, err
}

// noSeries is the error of a metric the report cannot do without.
func (r *reader) noSeries(metric, what, hint string) error {
	return &api.Error{Kind: api.Bad, URL: r.url, Query: metric, Hint: hint,
		Err: fmt.Errorf("no %s between %s and %s (none, or every value NaN)", what, r.w.Start.Format(time.RFC3339), r.w.End.Format(time.RFC3339))}
}

// listing is the DCGM inventory as /api/v1/series lists it: the series of
// the first activity metric that has any, and the host labels they use.
type listing struct {
	metric                  string
	gpus                    []gpuLabels
	hostname, lowerHostname bool
	err                     error // a failed listing ends the build
}

// listInventory lists the DCGM series of the first activity metric that
// has any (not with derive: the DCGM reads bring the inventory).
func (r *reader) listInventory(ctx context.Context) listing {
	if r.derive {
		return listing{}
	}
	for _, m := range activityMetrics {
		sets, err := r.q.Series(ctx, r.w.Start, r.w.End, []string{m})
		if err != nil {
			return listing{err: fmt.Errorf("listing DCGM series: %w", err)}
		}
		if len(sets) == 0 {
			continue
		}
		inv := listing{metric: m}
		for _, l := range sets {
			inv.hostname = inv.hostname || l.Get("Hostname") != ""
			inv.lowerHostname = inv.lowerHostname || l.Get("Hostname") == "" && l.Get("hostname") != ""
			if g, ok := gpuLabelsOf(l); ok {
				inv.gpus = append(inv.gpus, g)
			}
		}
		return inv
	}
	return listing{}
}

// factSet is what the requests for some kube-state-metrics metrics read.
type factSet struct {
	facts   map[string]*facts // by metric
	queries int
	failed  []query.Failure
	remote  bool // read by remote read
	// gpuFromLimits: no request series, so GPU requests come from the
	// GPU limits (gpuLimitsFacts).
	gpuFromLimits bool
}

// readFacts reads metrics' facts: by remote read with --prometheus-read
// remote, or auto when the server passes the remote-read probe; over the
// JSON API otherwise.
func (r *reader) readFacts(ctx context.Context, metrics []string) factSet {
	fs := factSet{facts: map[string]*facts{}}
	fs.remote = r.opts.Read == ReadRemote || r.opts.Read == ReadAuto && r.remoteOK()
	var tasks []query.Task
	for _, m := range metrics {
		f := &facts{}
		fs.facts[m] = f
		tasks = append(tasks, r.factTasks(m, f, fs.remote)...)
	}
	fs.queries, fs.failed = len(tasks), r.q.Run(ctx, tasks, 0)
	return fs
}

// withGPULimits reads the GPU limits when the pod facts hold no request
// series at all: for extended resources a limit equals the request, so
// GPU pods without DCGM data can still be placed on their GPUs.
func (r *reader) withGPULimits(ctx context.Context, pf factSet) factSet {
	if len(pf.failed) > 0 || pf.facts["kube_pod_container_resource_requests"].len() > 0 {
		return pf
	}
	f := &facts{}
	pf.facts[gpuLimitsFacts] = f
	tasks := r.factTasks(gpuLimitsFacts, f, pf.remote)
	pf.queries += len(tasks)
	pf.failed = append(pf.failed, r.q.Run(ctx, tasks, 0)...)
	pf.gpuFromLimits = f.len() > 0
	return pf
}

// usable returns why nothing trustworthy can be built, or nil: a failed
// DCGM listing, a kube-state-metrics metric that could not be read (every
// figure rests on them: a report without pods or node labels would be a
// confident falsehood), or no pod series at all.
func (r *reader) usable(inv listing, nf, pf factSet) error {
	if inv.err != nil {
		return inv.err // the inventory is part of the reachability probe
	}
	for _, fs := range []factSet{nf, pf} {
		for _, f := range fs.failed {
			if optionalFact(f.Task.Metric) {
				continue // unknown, and said so (scheduling.go)
			}
			return fmt.Errorf("reading kube-state-metrics' %s (no report without it): %w", f.Task.Metric, f.Err)
		}
	}
	if pf.facts["kube_pod_info"].len() == 0 {
		return r.noSeries("kube_pod_info", "kube_pod_info series (kube-state-metrics' pods)",
			"kube-state-metrics' pod metrics are not scraped, or are dropped by a relabelling or --metric-denylist; without them there are no pods to report on")
	}
	return nil
}

// gpuRead is what the DCGM reads left: the nodes (built before the reads
// from the listed inventory, or after them from the derived one), their
// units and the holdings' usage.
type gpuRead struct {
	nodes   []cluster.Node
	units   unitIndex
	usage   *gpuUsage
	metric  string // activity metric in use
	mode    string // how DCGM series were read
	queries int
	failed  []query.Failure
	// invErr: the derived inventory has gaps that change allocation (see
	// completeInventory); the build ends with it.
	invErr error
}

// readGPUs reads DCGM series at Step resolution, node shard by node shard
// (and day by day, except by remote read). It needs the inventory and the
// node facts.
func (r *reader) readGPUs(ctx context.Context, nodes nodeList, nf factSet, inv listing) gpuRead {
	if inv.err != nil || len(nf.failed) > 0 {
		return gpuRead{} // the build ends (usable)
	}
	labels := nodeLabels(nodes, nf.facts["kube_node_labels"])
	if r.derive {
		return r.readGPUsDerived(ctx, nodes, nf, labels)
	}
	g := gpuRead{metric: inv.metric}
	g.nodes, g.units = buildNodes(nodes, nf.facts, labels, inv.gpus)
	g.usage = newGPUUsage(r.opts.Step.Seconds(), false, g.units)
	g.usage.clock = r.clock
	if inv.metric == "" && !hasAMD(g.nodes) {
		return g
	}
	var gpuNodes []string
	for _, n := range g.nodes {
		if n.HasGPUs() {
			gpuNodes = append(gpuNodes, n.Name)
		}
	}
	shards := query.Shards(gpuNodes, r.opts.ShardSize)
	var tasks []query.Task
	probe := inv.metric
	if probe == "" {
		probe = amdActivity
	}
	if g.mode = r.readMode(ctx, probe); g.mode == ReadRange {
		tasks = r.rangeGPUTasks(shards, inv.metric, g.usage)
	} else {
		tasks = r.rawGPUTasks(shards, inv, g.usage, g.mode == ReadRemote)
	}
	g.queries, g.failed = len(tasks), r.q.Run(ctx, tasks, 0)
	return g
}

// readGPUsDerived reads DCGM series by remote read before the nodes are
// built: the inventory is taken from the activity series, free GPUs'
// included, rather than listed first. Units are looked up in the
// snapshot, where holdings of units the nodes lack are left out. Nodes
// are sharded where their labels count GPUs; one more request per metric
// and host label reads every other host, so that a GPU node without GPU
// feature discovery's labels, or a host that is no node, is seen as a
// listing would see it. The activity metric is the first with any series
// (its fallbacks are read only when the first has none).
func (r *reader) readGPUsDerived(ctx context.Context, nodes nodeList, nf factSet, labels map[string]map[string]string) gpuRead {
	replicas, gpuNodes := gpuNodeLabels(labels)
	u := newGPUUsage(r.opts.Step.Seconds(), true, unitIndex{replicas: replicas})
	u.clock = r.clock
	g := gpuRead{usage: u, mode: ReadRemote}
	for i, m := range activityMetrics {
		ms := []dcgmMetric{{m, activityField, activityScale(m)}}
		if i == 0 {
			ms = dcgmMetrics(m)
		}
		tasks, others := r.derivedGPUTasks(gpuNodes, ms, u)
		failed := r.q.Run(ctx, tasks, 0)
		g.queries, g.failed = g.queries+len(tasks), append(g.failed, failed...)
		if len(others) > 0 && otherHostsRead(gpuNodes, u.inv, failed) {
			failed := r.q.Run(ctx, others, 0)
			g.queries, g.failed = g.queries+len(others), append(g.failed, failed...)
		}
		if u.seen || len(failed) > 0 {
			g.metric = m
			break
		}
	}
	if g.metric == "" { // no activity metric: no DCGM usage at all, as when none is listed
		g.mode = ""
		clear(u.holds)
		clear(u.hosts)
	}
	g.invErr = r.completeInventory(ctx, &g, labels)
	g.nodes, g.units = buildNodes(nodes, nf.facts, labels, u.inv)
	return g
}

// otherHostsRead reports whether the activity reads of the hosts outside
// gpuNodes found one (a GPU in inv on such a host) or failed: then the
// other DCGM metrics are read for those hosts too (derivedGPUTasks).
func otherHostsRead(gpuNodes []string, inv []gpuLabels, failed []query.Failure) bool {
	for _, f := range failed {
		if f.Task.Nodes == nil {
			return true
		}
	}
	labelled := make(map[string]bool, len(gpuNodes))
	for _, n := range gpuNodes {
		labelled[n] = true
	}
	for _, gl := range inv {
		if !labelled[gl.host] {
			return true
		}
	}
	return false
}

// completeInventory fills the inventory where reading the activity
// series failed, by listing them (/api/v1/series) as the other read
// modes do. When that fails too, it returns why the build must end if the
// gaps change allocation: a node whose labels say MIG (its layout comes
// only from DCGM) or a host outside the GPU-labelled nodes (its GPUs come
// only from DCGM). Other nodes' GPUs are laid out from their labels.
func (r *reader) completeInventory(ctx context.Context, g *gpuRead, labels map[string]map[string]string) error {
	lost, others := map[string]bool{}, false
	for _, f := range g.failed {
		if f.Task.Metric != g.metric {
			continue
		}
		for _, n := range f.Task.Nodes {
			lost[n] = true
		}
		others = others || f.Task.Nodes == nil
	}
	if len(lost) == 0 && !others {
		return nil
	}
	sets, err := r.q.Series(ctx, r.w.Start, r.w.End, []string{g.metric})
	if err == nil {
		for _, l := range sets {
			if gl, ok := gpuLabelsOf(l); ok {
				g.usage.inv = append(g.usage.inv, gl)
			}
		}
		return nil
	}
	var mig []string
	for n := range lost {
		if s := labels[n]["nvidia.com/mig.strategy"]; s == "mixed" || s == "single" {
			mig = append(mig, n)
		}
	}
	if len(mig) == 0 && !others {
		return nil
	}
	return fmt.Errorf("reading the DCGM GPU inventory (%s) failed, and so did listing it: the GPUs or MIG layouts of %s are unknown, "+
		"and every allocation figure would change (no report): %w", g.metric, unknownGPUs(mig, others), err)
}

func unknownGPUs(mig []string, others bool) string {
	var where []string
	if len(mig) > 0 {
		set := map[string]bool{}
		for _, n := range mig {
			set[n] = true
		}
		where = append(where, fmt.Sprintf("%d MIG node(s) (%s)", len(mig), list(set)))
	}
	if others {
		where = append(where, "hosts whose labels count no GPUs")
	}
	return strings.Join(where, " and ")
}

// gpuContainers are the keys (namespace/pod/container) of the containers
// with GPU requests: the ones whose hourly bins hourlyOf folds.
func gpuContainers(pods []*podFacts) map[string]struct{} {
	ks := map[string]struct{}{}
	for _, p := range pods {
		for _, c := range p.pod.Containers {
			if len(c.GPURequests) > 0 {
				ks[p.pod.Key()+"/"+c.Name] = struct{}{}
			}
		}
	}
	return ks
}

// ctrRead is what the cAdvisor reads left.
type ctrRead struct {
	usage   *ctrUsage
	mode    string
	queries int
	failed  []query.Failure
}

// readContainers reads cAdvisor series at Step resolution, node shard by
// node shard. It needs only the node names, so it runs alongside the
// facts and DCGM reads.
func (r *reader) readContainers(ctx context.Context, names []string, u *ctrUsage) ctrRead {
	c := ctrRead{usage: u}
	shards := query.Shards(names, r.opts.ShardSize)
	if len(shards) == 0 {
		return c
	}
	c.mode = r.readMode(ctx, fmt.Sprintf(`container_memory_working_set_bytes{container!="",container!="POD",node=~%s}`, shards[0].Quoted()))
	var tasks []query.Task
	for _, sh := range shards {
		tasks = append(tasks, r.ctrTasks(sh, c.mode, c.usage)...)
	}
	// Half the client's requests at most: the rest are left to the
	// facts and the DCGM series, which wait on more (the inventory, the
	// node facts), so that all reads end about together.
	c.queries, c.failed = len(tasks), r.q.Run(ctx, tasks, (r.opts.Client.Concurrency+1)/2)
	return c
}
