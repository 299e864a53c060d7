package sim

import (
	"fmt"
	"strconv"

	"github.com/gpuwise/gpuwise/internal/cluster"
)

var (
	trainModels = []string{
		"llama3-8b-sft", "llama3-70b-lora", "mixtral-pretrain", "reward-model",
		"dpo-align", "vit-h-pretrain", "whisper-ft", "code-llm-sft",
	}
	trainTeams    = []string{"llm-platform", "ml-research"}
	researchRuns  = []string{"protein-fold", "diffusion-ablation", "moe-routing", "rl-sim", "graph-nn"}
	wastefulTasks = []string{"hparam-sweep", "tokenize-corpus", "eval-harness"}
)

// training runs the ml-training namespace: 2-node PyTorchJobs back to back
// on the on-demand pair of p5 nodes, and checkpointed single-node Jobs on
// the two spot p5 nodes, one of which is reclaimed mid-window.
func (c *cell) training(l layout) {
	t := -c.secs(0, 20*hour)
	for run := 1; t < c.window; run++ {
		dur := c.secs(10*hour, 40*hour)
		job := fmt.Sprintf("%s%s-r%d", c.pfx, c.pick(trainModels), run)
		team := c.pick(trainTeams)
		cv := curve{shape: bursty, lo: c.between(0.8, 0.85), hi: c.between(0.9, 0.95), rnd: c.noise()}
		failed := c.chance(0.15)
		for w, node := range l.train[:2] {
			role := "master-0"
			if w > 0 {
				role = fmt.Sprintf("worker-%d", w-1)
			}
			name := job + "-" + role
			c.claim("ml-training", name)
			s := c.trainPod("PyTorchJob", job, name, team, node, cv, t, t+dur)
			s.failed = failed
			s.labels["training.kubeflow.org/job-name"] = job
			s.labels["training.kubeflow.org/replica-type"] = role[:len(role)-2]
			s.labels[cluster.CheckpointHint] = "1h"
			c.addPod(s)
		}
		t += dur + c.secs(30*minute, 8*hour)
	}
	c.spotJobs(l.train[2], "spot-a", false)
	c.spotJobs(l.train[3], "spot-b", true)
}

// spotJobs runs single-node Jobs back to back over a spot node's life; a
// job cut off by the node's end fails (spot interruption). When wasteful,
// the first job in the window (and a fifth of the rest) holds 8 GPUs but
// computes on one.
func (c *cell) spotJobs(node *cluster.Node, lane string, wasteful bool) {
	from, to := c.nodeLife(node)
	t := max(from, -c.secs(0, 20*hour)) + c.secs(5*minute, 30*minute)
	wasted := false
	for run := 1; t < min(to, c.window); run++ {
		end := min(t+c.secs(6*hour, 30*hour), to)
		task := c.pick(trainModels)
		small := wasteful && ((!wasted && end > 0) || c.chance(0.2))
		if small {
			wasted = wasted || end > 0
			task = c.pick(wastefulTasks)
		}
		job := fmt.Sprintf("%s%s-%s-%d", c.pfx, task, lane, run)
		cv := curve{shape: bursty, lo: c.between(0.8, 0.85), hi: c.between(0.9, 0.95), rnd: c.noise()}
		s := c.trainPod("Job", job, c.generated("ml-training", job), c.pick(trainTeams), node, cv, t, end)
		s.failed = end == to && to < c.window
		s.selector["karpenter.sh/capacity-type"] = []string{cluster.Spot}
		s.labels[cluster.CheckpointHint] = "30m"
		if wasteful && run == evictedRun && end < c.window {
			// The kubelet evicted it under disk pressure (checkpoints
			// filled the node's ephemeral storage); the next run restarts it.
			s.failed, s.endReason = true, "Evicted"
		}
		if small {
			s.load.share = []float64{1, 0.01, 0.01, 0.01, 0.01, 0.01, 0.01, 0.01}
			s.load.fbBase = 0.1 * s.load.fbCap
		}
		c.addPod(s)
		t = end + c.secs(20*minute, 6*hour)
	}
}

// evictedRun is the run of the second spot lane that the kubelet evicts.
const evictedRun = 3

// trainPod is one 8-GPU training pod with round-number requests.
func (c *cell) trainPod(kind, job, name, team string, node *cluster.Node, cv curve, from, to int64) *podSpec {
	return &podSpec{
		ns: "ml-training", name: name, owner: cluster.Owner{Kind: kind, Name: job},
		labels: labels(team, "trainer"), node: node, from: from, to: to,
		units: wholeGPUs(node, 0, 8), resource: gpuResource,
		ctrs: []ctr{{
			name: "pytorch", cpuReq: 96000, memReq: 1024 * gi, memLim: 1024 * gi,
			cpu: use{6, 50, 0.1}, mem: use{280 * gi, 160 * gi, 0.02},
		}},
		load:     c.gpuLoad(cv, node, c.between(0.6, 0.75), 0.15),
		selector: map[string][]string{"node.kubernetes.io/instance-type": {node.InstanceType}},
	}
}

// research runs the on-prem DGX: two lanes of 4-GPU Jobs with gaps
// between them. The node has no catalog price.
func (c *cell) research(node *cluster.Node) {
	for lane := range 2 {
		t := -c.secs(0, 30*hour)
		for run := 1; t < c.window; run++ {
			end := t + c.secs(4*hour, 30*hour)
			job := fmt.Sprintf("%s%s-%d%c", c.pfx, c.pick(researchRuns), run, 'a'+lane)
			cv := curve{shape: bursty, lo: c.between(0.7, 0.8), hi: c.between(0.85, 0.95), rnd: c.noise()}
			c.addPod(&podSpec{
				ns: "research", name: c.generated("research", job), owner: cluster.Owner{Kind: "Job", Name: job},
				labels: labels("research", "experiment"), node: node, from: t, to: end, failed: c.chance(0.1),
				units: wholeGPUs(node, 4*lane, 4), resource: gpuResource,
				ctrs: []ctr{{
					name: "main", cpuReq: 32000, cpuLim: 64000, memReq: 256 * gi, memLim: 256 * gi,
					cpu: use{3, 20, 0.15}, mem: use{60 * gi, 80 * gi, 0.03},
				}},
				load: c.gpuLoad(cv, node, c.between(0.4, 0.8), 0.1),
			})
			t = end + c.secs(1*hour, 14*hour)
		}
	}
}

// cronJob is a CronJob in the batch namespace. Each run is a Job with one
// pod that holds the same GPUs; runs are shorter than the period, so they
// never overlap (concurrencyPolicy: Forbid).
type cronJob struct {
	name, team     string
	node           *cluster.Node
	first, gpus    int   // GPU indices [first, first+gpus)
	period, minute int64 // schedule: every period seconds, at minute offset
	minDur, maxDur int64
	shape          shape
	lo, hi         float64
	fb             float64 // framebuffer as a share of GPU memory
	// idle, when set, is why the job's GPU idles (issue 17 item 2).
	idle idleCause
}

// idleCause is a reason a GPU workload idles that the simulator builds in,
// so that the idle-cause engine's answer is known by construction.
type idleCause uint8

const (
	// noCause: the workload idles only for lack of work.
	noCause idleCause = iota
	// cpuStarved: the container is pinned at its CPU limit and throttled
	// in a third to two thirds of its CFS periods; the GPU waits.
	cpuStarved
	// inputBound: PCIe receive is busy (~17 GB/s per GPU) while the
	// kernels are tiny: the job streams features from host memory.
	inputBound
	// memoryPressured: the working set climbs to the memory limit and the
	// container is OOM-killed every 40 minutes; the GPU idles while it
	// restarts and reloads.
	memoryPressured
)

// batchJobs runs the CronJobs of the two batch nodes. One runs small
// scoring on a whole A100 (3–8% busy); GPU 3 of the A10G node stays free.
func (c *cell) batchJobs(l layout) {
	a100, a10g := l.batchA100, l.batch
	for _, cj := range []cronJob{
		{"embed-refresh", "data-eng", a100, 0, 2, hour, 5 * minute, 15 * minute, 50 * minute, steady, 0.55, 0.85, 0.5, noCause},
		{"feature-backfill", "data-eng", a100, 2, 1, 3 * hour, 30 * minute, 20 * minute, 100 * minute, steady, 0.03, 0.09, 0.4, inputBound},
		{"risk-score", "risk", a100, 3, 1, 4 * hour, 15 * minute, 30 * minute, 180 * minute, steady, 0.03, 0.08, 0.15, cpuStarved},
		{"eval-nightly", "ml-research", a100, 4, 4, day, 60 * minute, 2 * hour, 5 * hour, bursty, 0.75, 0.92, 0.7, noCause},
		{"thumbnail-render", "media", a10g, 0, 1, 3 * hour, 10 * minute, 10 * minute, 60 * minute, steady, 0.5, 0.9, 0.3, noCause},
		{"ocr-batch", "docs", a10g, 1, 2, 6 * hour, 45 * minute, 1 * hour, 4 * hour, steady, 0.02, 0.08, 0.45, memoryPressured},
	} {
		c.cronRuns(cj)
	}
}

// cronRuns adds every run of cj scheduled from one period before the
// window (it may still be running) to the window's end.
func (c *cell) cronRuns(cj cronJob) {
	name := c.pfx + cj.name
	u0 := c.cfg.Start.Unix()
	sched := floorDiv(u0-cj.period-cj.minute, cj.period)*cj.period + cj.minute
	for ; sched-u0 < c.window; sched += cj.period {
		from := sched - u0 + c.secs(2, 40) // controller and image-pull delay
		to := from + c.secs(cj.minDur, min(cj.maxDur, cj.period-minute))
		failed := c.chance(0.05)
		if failed {
			to = from + (to-from)/4
		}
		job := name + "-" + strconv.FormatInt(sched/60, 10)
		cv := curve{shape: cj.shape, lo: cj.lo, hi: cj.hi, rnd: c.noise()}
		s := &podSpec{
			ns: "batch", name: c.generated("batch", job), owner: cluster.Owner{Kind: "CronJob", Name: name},
			labels: labels(cj.team, cj.name, "batch.kubernetes.io/job-name", job),
			node:   cj.node, from: from, to: to, failed: failed,
			units: wholeGPUs(cj.node, cj.first, cj.gpus), resource: gpuResource,
			ctrs: []ctr{{
				name: "job", cpuReq: 8000, memReq: 32 * gi, memLim: 32 * gi,
				cpu: use{0.8, 4, 0.15}, mem: use{5 * gi, 10 * gi, 0.03},
			}},
			load: c.gpuLoad(cv, cj.node, cj.fb, 0.1),
			selector: map[string][]string{
				"nvidia.com/gpu.product": {cj.node.Labels["nvidia.com/gpu.product"]},
			},
		}
		cj.idle.apply(s)
		c.addPod(s)
	}
}

// apply builds the cause into a pod spec.
func (ic idleCause) apply(s *podSpec) {
	k := &s.ctrs[0]
	switch ic {
	case cpuStarved:
		k.cpuLim = k.cpuReq
		k.cpu = use{float64(k.cpuReq) / 1000, 0.5, 0.03}
	case inputBound:
		s.load.link = linkLoad{pcieBase: 17 * gbps, pcieSwing: 1 * gbps}
	case memoryPressured:
		s.load.oom.every = 40 * minute
	}
}

// floorDiv is a/b rounded toward minus infinity.
func floorDiv(a, b int64) int64 {
	q := a / b
	if a%b != 0 && (a < 0) != (b < 0) {
		q--
	}
	return q
}
