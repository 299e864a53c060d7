package rightsize

import (
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/gpuwise/gpuwise/internal/cluster"
)

// Repeated jobs (docs/recommendations.md "Repeated jobs"): the runs of one
// template are sized from the union of their usage, so that a short run
// with under a day of data of its own gets a recommendation when many
// runs of the same work exist.
//
// The template rule: a CronJob's runs are one workload already (the
// owner chain resolves each Job to its CronJob). Pods owned by a Job or a
// PyTorchJob belong to one template when they share
//   - the namespace and the owner kind,
//   - the owner's name with its run suffix dropped (the last
//     dash-separated part when it holds a digit: "rl-sim-3b" → "rl-sim",
//     "reward-model-r4" → "reward-model", "sft-spot-a-7" → "sft-spot-a"),
//   - and the same containers with the same CPU, memory and GPU requests
//     and limits (the same pod template as far as sizing reads it).
//
// A workload whose template has no other run keeps its own data. A
// CronJob's runs are its pods.
var templateKinds = map[string]bool{"Job": true, "PyTorchJob": true}

// templates gives every workload its evidence pods: the union of its
// template's runs where it has company, its own pods otherwise.
func templates(ws []*workload) {
	groups := map[string][]*workload{}
	var keys []string
	for _, w := range ws {
		w.runs, w.runSeconds, w.nRuns = w.pods, w.seconds, 1
		if w.kind == "CronJob" {
			w.nRuns = len(w.pods) // one pod a run (a retried run counts twice)
		}
		k, ok := templateKey(w)
		if !ok {
			continue
		}
		if groups[k] == nil {
			keys = append(keys, k)
		}
		groups[k] = append(groups[k], w)
	}
	sort.Strings(keys)
	for _, k := range keys {
		g := groups[k]
		if len(g) < 2 {
			continue
		}
		var pods []*cluster.Pod
		var secs []float64
		for _, w := range g {
			pods = append(pods, w.pods...)
			secs = append(secs, w.seconds...)
		}
		name := g[0].namespace + "/" + g[0].kind + "/" + stem(g[0].name) + "-*"
		for _, w := range g {
			w.runs, w.runSeconds, w.nRuns, w.template = pods, secs, len(g), name
		}
	}
}

// templateKey is a Job-like workload's template, false for other kinds or
// a name with no run suffix.
func templateKey(w *workload) (string, bool) {
	if !templateKinds[w.kind] {
		return "", false
	}
	s := stem(w.name)
	if s == w.name {
		return "", false
	}
	return w.namespace + "/" + w.kind + "/" + s + "\x00" + specSignature(w.latest()), true
}

// stem drops a name's run suffix: its last dash-separated part when that
// part holds a digit and is not the whole name.
func stem(name string) string {
	i := strings.LastIndexByte(name, '-')
	if i <= 0 || !strings.ContainsAny(name[i+1:], "0123456789") {
		return name
	}
	return name[:i]
}

// specSignature is the part of a pod's spec sizing reads: each container's
// name, requests and limits, GPU requests included, in a fixed order.
func specSignature(p *cluster.Pod) string {
	var b strings.Builder
	for _, c := range p.Containers {
		fmt.Fprintf(&b, "%s:%d/%d/%d/%d", c.Name, c.CPURequestMilli, c.CPULimitMilli, c.MemoryRequest, c.MemoryLimit)
		names := make([]string, 0, len(c.GPURequests))
		for n := range c.GPURequests {
			names = append(names, n)
		}
		sort.Strings(names)
		for _, n := range names {
			fmt.Fprintf(&b, ",%s=%d", n, c.GPURequests[n])
		}
		b.WriteByte(';')
	}
	return b.String()
}

// interval is a pod's running time clipped to the window.
type interval struct{ from, to time.Time }

// spanOf is the wall-clock time the pods ran in the window, overlaps
// counted once: the time a workload's (or template's) data can cover.
func (e *engine) spanOf(pods []*cluster.Pod) time.Duration {
	w := e.s.Window()
	var ivs []interval
	for _, p := range pods {
		from, to := p.Start, p.End
		if from.Before(w.Start) || from.IsZero() {
			from = w.Start
		}
		if to.IsZero() || to.After(w.End) {
			to = w.End
		}
		if to.After(from) {
			ivs = append(ivs, interval{from, to})
		}
	}
	sort.Slice(ivs, func(i, j int) bool { return ivs[i].from.Before(ivs[j].from) })
	var total time.Duration
	var cur interval
	for i, iv := range ivs {
		switch {
		case i == 0:
			cur = iv
		case !iv.from.After(cur.to):
			if iv.to.After(cur.to) {
				cur.to = iv.to
			}
		default:
			total += cur.to.Sub(cur.from)
			cur = iv
		}
	}
	if len(ivs) > 0 {
		total += cur.to.Sub(cur.from)
	}
	return total
}

// interrupted counts the pods that did not end on their own: failed, or
// ended by the kubelet or a disruption (evicted, preempted, node lost).
// Their usage stops early, so it may miss the run's later peaks. The
// snapshot holds no container restart counts; a pod's OOM kills are
// counted apart.
func interrupted(pods []*cluster.Pod) int {
	n := 0
	for _, p := range pods {
		if p.Phase == "Failed" || p.EndReason != "" {
			n++
		}
	}
	return n
}
