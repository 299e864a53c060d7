package prom

import (
	"context"
	"sort"
	"strconv"
	"sync"

	"github.com/gpuwise/gpuwise/internal/cluster"
	"github.com/gpuwise/gpuwise/internal/prom/query"
	"github.com/gpuwise/gpuwise/internal/prom/wire"
)

// Intel Gaudi activity and memory from Intel's Prometheus Metric
// Exporter (docs/accelerators.md): habanalabs_utilization (percent) and
// habanalabs_memory_used_bytes, one series per device, labelled with the
// device (Serial, UUID, id, …) and, from the kubelet's pod-resources API,
// the pod_namespace and pod_name of the pod the device plugin gave it
// (empty for a free device); no node label. A series is joined to its
// pod's Gaudi holdings by the pod, device by device in id order.

const (
	gaudiActivity = "habanalabs_utilization"
	gaudiMemory   = "habanalabs_memory_used_bytes"
)

// gaudiDevice is one device's series of a pod: the pod's key and the
// device's id label.
type gaudiDevice struct {
	pod string
	id  int
}

// gaudiRead is what the exporter's reads left: each device's activity
// (0–1) and memory (bytes) points, and their look-back (as neuronRead's).
type gaudiRead struct {
	mu       sync.Mutex
	act, mem map[gaudiDevice][]neuronPoint
	lookback float64
	queries  int
	failed   []query.Failure
}

// hasGaudi says whether a node advertises Gaudi devices.
func hasGaudi(nf factSet) bool {
	for _, res := range gpuResources(nf.facts) {
		if res[cluster.ResGaudi] > 0 {
			return true
		}
	}
	return false
}

// readGaudi reads the exporter's series of devices a pod holds, by
// query_range, raw samples or remote read as the other usage reads are.
func (r *reader) readGaudi(ctx context.Context, nf factSet) *gaudiRead {
	gr := &gaudiRead{act: map[gaudiDevice][]neuronPoint{}, mem: map[gaudiDevice][]neuronPoint{}}
	if len(nf.failed) > 0 || !hasGaudi(nf) {
		return gr
	}
	mode := r.readMode(ctx, gaudiActivity+`{pod_name!=""}`)
	var tasks []query.Task
	for _, metric := range []string{gaudiActivity, gaudiMemory} {
		mem := metric == gaudiMemory
		open := func() query.Batch { return &gaudiBatch{r: gr, mem: mem, series: map[gaudiDevice][]neuronPoint{}} }
		sel := metric + `{pod_name!=""}`
		if mode == ReadRange {
			gr.lookback = r.opts.Step.Seconds() - 0.001 // query.Lookback
			tasks = append(tasks, r.spanTasks("avg_over_time("+sel+"["+query.Lookback(r.opts.Step)+"])", open, nil)...)
			continue
		}
		ms := []wire.Matcher{{Type: wire.MatchEqual, Name: "__name__", Value: metric}, {Type: wire.MatchNotEqual, Name: "pod_name", Value: ""}}
		tasks = append(tasks, rawOrRemote(mode == ReadRemote, sel, ms, gaudiKeep, r.rawDays(sel, open, nil))...)
	}
	gr.queries, gr.failed = len(tasks), r.q.Run(ctx, tasks, 0)
	return gr
}

// gaudiKeep says which labels of an exporter series route it.
func gaudiKeep(name []byte) bool {
	s := string(name)
	return s == "pod_namespace" || s == "pod_name" || s == "id"
}

// gaudiBatch collects one request's device points.
type gaudiBatch struct {
	r      *gaudiRead
	mem    bool
	series map[gaudiDevice][]neuronPoint
}

func (b *gaudiBatch) Series(l wire.Labels) query.Target {
	ns, name := l.Get("pod_namespace"), l.Get("pod_name")
	id, err := strconv.Atoi(l.Get("id"))
	if ns == "" || name == "" || err != nil || id < 0 {
		return query.Target{}
	}
	return pointsOf(b.series, gaudiDevice{ns + "/" + name, id}, b.mem, 100) // utilization in percent
}

func (b *gaudiBatch) Commit() {
	to := b.r.act
	if b.mem {
		to = b.r.mem
	}
	commitPoints(&b.r.mu, to, b.series)
}

// measureGaudi gives each pod's Gaudi holdings (placed from its requests)
// the activity and memory of the devices the exporter names the pod on:
// its devices in id order to its holdings in order (which device gpuwise
// placed it on is not the exporter's). It returns the Gaudi holdings left
// unmeasured (no series named their pod in its life).
func measureGaudi(pods []*podFacts, g gpuRead, gr *gaudiRead, w cluster.Window) (measured, unmeasured int) {
	if gr == nil || g.usage == nil {
		return 0, 0
	}
	gaudi := map[string]bool{}
	for i := range g.nodes {
		n := &g.nodes[i]
		if n.HasGPUs() && n.Vendor() == cluster.VendorGaudi {
			for _, gpu := range n.GPUs {
				for _, u := range gpu.Units {
					gaudi[u.ID] = true
				}
			}
		}
	}
	ids := map[string][]int{} // device ids per pod, ascending
	for k := range gr.act {
		ids[k.pod] = append(ids[k.pod], k.id)
	}
	for _, v := range ids {
		sort.Ints(v)
	}
	for _, p := range pods {
		k, iv := 0, p.interval(w)
		from, to := float64(iv.from.UnixMilli())/1000, float64(iv.to.UnixMilli())/1000
		for i := range p.pod.GPUs {
			h := &p.pod.GPUs[i]
			if !gaudi[h.UnitID] || h.Activity != nil {
				continue
			}
			devs := ids[p.pod.Key()]
			if k >= len(devs) {
				unmeasured++
				continue
			}
			d := gaudiDevice{p.pod.Key(), devs[k]}
			k++
			s := neuronSeries(deviceMeans(gr.act[d], 1), from, to, gr.lookback, g.usage.clock)
			if s == nil {
				unmeasured++
				continue
			}
			h.FramebufferMiB = neuronGauge(memSums(gr.mem[d]), from, to, gr.lookback)
			s.fb, h.Activity = h.FramebufferMiB, s.act
			g.usage.holds[holdKey{p.pod.Key(), h.UnitID}] = s
			measured++
		}
	}
	return measured, unmeasured
}
