package packbench

import (
	"errors"
	"fmt"
)

// Config is one run: a policy on one seed's workload.
type Config struct {
	// Nodes are the cluster's GPU nodes; Pods the un-inflated trace, which
	// both the arrival sequence and FGD's typical pods come from.
	Nodes  []Node
	Pods   []Pod
	Policy string
	Seed   int64
	// Tune is the demand target as a multiple of GPU capacity (DefaultTune).
	Tune float64
}

// Validate returns every problem with the config.
func (c Config) Validate() error {
	var errs []error
	if len(c.Nodes) == 0 {
		errs = append(errs, errors.New("nodes: none"))
	}
	if len(c.Pods) == 0 {
		errs = append(errs, errors.New("pods: none"))
	}
	if _, err := newPolicy(c.Policy, nil, nil, nil); err != nil {
		errs = append(errs, fmt.Errorf("policy: %w", err))
	}
	if c.Tune <= 0 {
		errs = append(errs, fmt.Errorf("tune: %v is not positive", c.Tune))
	}
	for i, p := range c.Pods {
		if p.NumGPU > MaxGPUs {
			errs = append(errs, fmt.Errorf("pods[%d] (%s): %d GPUs, at most %d supported", i, p.Name, p.NumGPU, MaxGPUs))
		}
	}
	return errors.Join(errs...)
}

// Event is the cluster after one pod arrived, placed or dropped.
type Event struct {
	// Arrived is the GPU milli requested by all pods so far, dropped ones
	// included; Used the GPU milli allocated.
	Arrived, Used int64
	// Frag is the cluster's FGD fragmentation in GPU milli, rounded to two
	// decimals as the artifact logs it.
	Frag float64
}

// Result is one run's outcome.
type Result struct {
	Policy string
	Seed   int64
	// GPUs is the cluster's GPU count, the curves' denominator.
	GPUs           int
	Events         []Event
	Placed, Failed int
}

// Run replays cfg's workload through its policy.
func Run(cfg Config) (Result, error) {
	if err := cfg.Validate(); err != nil {
		return Result{}, err
	}
	res, _, err := run(cfg, func(c *cluster, typical []typicalPod) (policy, error) {
		return newPolicy(cfg.Policy, c, cfg.Pods, typical)
	})
	return res, err
}

// run replays cfg's workload through the policy mk makes, and returns the
// final cluster too.
func run(cfg Config, mk func(c *cluster, typical []typicalPod) (policy, error)) (Result, *cluster, error) {
	w := NewWorkload(cfg.Nodes, cfg.Pods, cfg.Seed, cfg.Tune)
	c, err := newCluster(cfg.Nodes, w.Prio)
	if err != nil {
		return Result{}, nil, err
	}
	typical := typicalPods(c, cfg.Pods, false)
	pol, err := mk(c, typical)
	if err != nil {
		return Result{}, nil, err
	}
	for i := range c.nodes {
		refreshFrag(&c.nodes[i], typical)
	}
	reqs, specs := c.requests(w.Arrivals)
	r := &runner{c: c, pol: pol, typical: typical, cache: make([][]cached, specs)}
	res := Result{Policy: cfg.Policy, Seed: cfg.Seed, GPUs: c.gpus, Events: make([]Event, 0, len(reqs))}
	var arrived, used int64
	for i := range reqs {
		q := &reqs[i]
		arrived += int64(q.num) * q.milli
		if r.place(q) {
			used += int64(q.num) * q.milli
			res.Placed++
		} else {
			res.Failed++
		}
		res.Events = append(res.Events, Event{Arrived: arrived, Used: used, Frag: roundLogged(c.frag())})
	}
	return res, c, nil
}

// requests converts pods, numbering distinct requests.
func (c *cluster) requests(pods []Pod) ([]request, int) {
	type key struct {
		cpu, mem, milli int64
		num             int
		models          uint64
	}
	ids := map[key]int{}
	reqs := make([]request, len(pods))
	for i, p := range pods {
		q := request{cpu: p.CPU, mem: p.Mem, num: p.NumGPU, milli: p.Milli, models: c.modelSet(p.Models)}
		k := key{q.cpu, q.mem, q.milli, q.num, q.models}
		id, ok := ids[k]
		if !ok {
			id = len(ids)
			ids[k] = id
		}
		q.spec = id
		reqs[i] = q
	}
	return reqs, len(ids)
}

// frag is the cluster's fragmentation, summed bin by bin over the nodes.
func (c *cluster) frag() float64 {
	var bins fragBins
	for i := range c.nodes {
		bins.add(&c.nodes[i].bins)
	}
	return bins.total()
}

func refreshFrag(n *Node, typical []typicalPod) {
	n.bins = fragOf(typical, n.model, n.CPU, n.Mem, n.Free[:n.GPUs])
	n.frag = n.bins.total()
}

// cached is a node's score for one request spec, valid while the node's
// version is version-1 (the zero value is never valid).
type cached struct {
	version int
	ok      bool
	gpu     int
	s       score
}

type runner struct {
	c       *cluster
	pol     policy
	typical []typicalPod
	cache   [][]cached
}

// place puts q on the best-scoring node that fits it, if any.
func (r *runner) place(q *request) bool {
	nodes := r.c.nodes
	cache := r.cache[q.spec]
	if cache == nil {
		cache = make([]cached, len(nodes))
		r.cache[q.spec] = cache
	}
	best := -1
	for i := range nodes {
		n := &nodes[i]
		e := &cache[i]
		if e.version != n.version+1 {
			e.version, e.ok, e.gpu, e.s = n.version+1, fits(n, q), -1, score{}
			if e.ok {
				e.s, e.gpu = r.pol.score(n, q)
			}
		}
		if !e.ok {
			continue
		}
		if best < 0 || cache[best].s.less(e.s) || (e.s == cache[best].s && n.Prio < nodes[best].Prio) {
			best = i
		}
	}
	if best < 0 {
		return false
	}
	n := &nodes[best]
	bind(n, q, cache[best].gpu)
	refreshFrag(n, r.typical)
	return true
}
