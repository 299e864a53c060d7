package sim

import (
	"bufio"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/gpuwise/gpuwise/internal/cluster"
)

// WriteOpenMetrics generates the cluster like Generate and writes its whole
// history as OpenMetrics text for `promtool tsdb create-blocks-from
// openmetrics`: dcgm-exporter series per GPU unit (pod-labelled while
// held, device-only while free; none from nodes whose exporter is down),
// cAdvisor CPU counters and working sets per container, and
// kube-state-metrics node and pod series every 6 steps. It returns the
// snapshot, which is the ground truth for what the history holds. Cells are
// generated one after another so that memory stays flat.
func WriteOpenMetrics(cfg Config, w io.Writer) (*cluster.Snapshot, error) {
	cfg = cfg.withDefaults()
	if err := cfg.Validate(); err != nil {
		return nil, fmt.Errorf("simulation config: %w", err)
	}
	bw := bufio.NewWriterSize(w, 1<<20)
	cells := make([]built, cfg.Scale)
	for k := range cells {
		c := newCell(cfg, k)
		e := newExporter(bw, c, k)
		c.sink = e
		cells[k] = c.build()
		e.history(cells[k])
		if e.err != nil {
			return nil, fmt.Errorf("writing openmetrics: %w", e.err)
		}
	}
	bw.WriteString("# EOF\n")
	if err := bw.Flush(); err != nil {
		return nil, fmt.Errorf("writing openmetrics: %w", err)
	}
	return assemble(cfg, cells)
}

// infoEvery is how many steps apart kube-state-metrics samples are written.
const infoEvery = 6

// history writes the series that are not per-sample usage: free GPU units,
// nodes, pods and their owners.
func (e *exporter) history(b built) {
	if e.units == nil {
		e.indexUnits()
	}
	owners := map[string]*ownerSeries{}
	for i := range b.pods {
		e.pod(&b.pods[i], owners)
	}
	for _, k := range sortedKeys(owners) {
		o := owners[k]
		e.every(o.from, o.to, func(t float64, _ bool) { e.line(o.metric, o.labels, 1, t) })
	}
	for i := range b.nodes {
		e.node(&b.nodes[i], b)
	}
}

// ksmPodReasons are the pod status reasons kube-state-metrics exports as
// kube_pod_status_reason.
var ksmPodReasons = []string{"Evicted", "NodeAffinity", "NodeLost", "Shutdown", "UnexpectedAdmissionError"}

// ownerSeries is a ReplicaSet's or Job's owner series, alive while any of
// its pods is.
type ownerSeries struct {
	metric   string
	labels   []string
	from, to int64
}

// life is a span's part inside the window, in seconds from its start.
func (e *exporter) life(start, end time.Time) (int64, int64) {
	from, to := int64(0), e.c.window
	if !start.IsZero() {
		from = max(int64(start.Sub(e.c.cfg.Start).Seconds()), 0)
	}
	if !end.IsZero() {
		to = min(int64(math.Ceil(end.Sub(e.c.cfg.Start).Seconds())), e.c.window)
	}
	return from, to
}

// every calls fn at the sample times of a life (one per step from its
// start), every infoEvery-th and the last; last tells the final call.
func (e *exporter) every(from, to int64, fn func(t float64, last bool)) {
	n := int64(math.Ceil(float64(to-from) / e.c.step))
	for k := int64(0); k < n; k++ {
		if k%infoEvery == 0 || k == n-1 {
			fn(e.c.unix0+float64(from)+float64(k)*e.c.step, k == n-1)
		}
	}
}

func (e *exporter) pod(p *cluster.Pod, owners map[string]*ownerSeries) {
	from, to := e.life(p.Start, p.End)
	if to <= from {
		return
	}
	id := []string{"namespace", p.Namespace, "pod", p.Name, "uid", p.UID}
	kind, name := e.owner(p, from, to, owners)
	info := append(append([]string(nil), id...), "node", p.Node, "created_by_kind", kind, "created_by_name", name)
	owner := append(append([]string(nil), id...), "owner_kind", kind, "owner_name", name, "owner_is_controller", "true")
	podLabels := kvLabels(p.Labels, id...)
	tolerations, selectors := schedulingSeries(p, id)
	start := float64(p.Start.Unix())
	e.every(from, to, func(t float64, last bool) {
		e.line("kube_pod_info", info, 1, t)
		e.line("kube_pod_owner", owner, 1, t)
		e.line("kube_pod_labels", podLabels, 1, t)
		for _, tl := range tolerations {
			e.line("kube_pod_tolerations", tl, 1, t)
		}
		e.line("kube_pod_nodeselectors", selectors, 1, t)
		e.line("kube_pod_start_time", id, start, t)
		if last && !p.End.IsZero() {
			e.line("kube_pod_completion_time", id, float64(p.End.Unix()), t)
		}
		if last && slicesContains(ksmPodReasons, p.EndReason) {
			e.line("kube_pod_status_reason", append(append([]string(nil), id...), "reason", p.EndReason), 1, t)
		}
		for j := range p.Containers {
			e.resources(p, j, t, last)
		}
	})
}

// owner is the pod's direct owner as kube-state-metrics shows it, noting
// the ReplicaSet or Job in between.
func (e *exporter) owner(p *cluster.Pod, from, to int64, owners map[string]*ownerSeries) (string, string) {
	parent := p.Name
	if i := strings.LastIndexByte(parent, '-'); i > 0 {
		parent = parent[:i]
	}
	var kind, metric, key string
	switch p.Owner.Kind {
	case "Pod":
		return "<none>", "<none>"
	case "Deployment":
		kind, metric, key = "ReplicaSet", "kube_replicaset_owner", "replicaset"
	case "CronJob":
		kind, metric, key = "Job", "kube_job_owner", "job_name"
	default:
		return p.Owner.Kind, p.Owner.Name
	}
	k := p.Namespace + "/" + parent
	o := owners[k]
	if o == nil {
		o = &ownerSeries{metric: metric, from: from, to: to,
			labels: []string{"namespace", p.Namespace, key, parent, "owner_kind", p.Owner.Kind, "owner_name", p.Owner.Name, "owner_is_controller", "true"}}
		owners[k] = o
	}
	o.from, o.to = min(o.from, from), max(o.to, to)
	return kind, parent
}

func (e *exporter) resources(p *cluster.Pod, j int, t float64, last bool) {
	c := &p.Containers[j]
	base := []string{"namespace", p.Namespace, "pod", p.Name, "uid", p.UID, "container", c.Name, "node", p.Node}
	res := func(metric, resource, unit string, v float64) {
		if v > 0 {
			e.line(metric, append(append([]string(nil), base...), "resource", resource, "unit", unit), v, t)
		}
	}
	res("kube_pod_container_resource_requests", "cpu", "core", float64(c.CPURequestMilli)/1000)
	res("kube_pod_container_resource_requests", "memory", "byte", float64(c.MemoryRequest))
	res("kube_pod_container_resource_limits", "cpu", "core", float64(c.CPULimitMilli)/1000)
	res("kube_pod_container_resource_limits", "memory", "byte", float64(c.MemoryLimit))
	for _, r := range sortedKeys(c.GPURequests) {
		res("kube_pod_container_resource_requests", sanitizeLabel(r)[len("label_"):], "integer", float64(c.GPURequests[r]))
		res("kube_pod_container_resource_limits", sanitizeLabel(r)[len("label_"):], "integer", float64(c.GPURequests[r]))
	}
	if last && j == 0 && p.OOMKills > 0 {
		e.line("kube_pod_container_status_restarts_total", base, float64(p.OOMKills), t)
		e.line("kube_pod_container_status_last_terminated_reason", append(append([]string(nil), base...), "reason", "OOMKilled"), 1, t)
	}
}

func (e *exporter) node(n *cluster.Node, b built) {
	from, to := e.life(n.Created, n.Deleted)
	if to <= from {
		return
	}
	id := []string{"node", n.Name}
	info := append(append([]string(nil), id...), "provider_id", providerID(n))
	nodeLabels := kvLabels(n.Labels, id...)
	e.every(from, to, func(t float64, last bool) {
		e.line("kube_node_info", info, 1, t)
		e.line("kube_node_labels", nodeLabels, 1, t)
		e.line("kube_node_created", id, float64(n.Created.Unix()), t)
		for _, m := range []string{"kube_node_status_capacity", "kube_node_status_allocatable"} {
			e.line(m, append(append([]string(nil), id...), "resource", "cpu", "unit", "core"), n.CPUCores(), t)
			e.line(m, append(append([]string(nil), id...), "resource", "memory", "unit", "byte"), float64(n.MemoryBytes), t)
			if v := n.Vendor(); n.HasGPUs() && v != cluster.VendorNVIDIA {
				// The device plugin's resource (the NVIDIA nodes' GPUs come
				// from GPU feature discovery's labels and DCGM).
				e.line(m, append(append([]string(nil), id...), "resource", sanitizeLabel(cluster.WholeResource(v))[len("label_"):], "unit", "integer"),
					float64(len(n.GPUs)), t)
			}
		}
		for _, tn := range n.Taints {
			e.line("kube_node_spec_taint", append(append([]string(nil), id...), "key", tn.Key, "value", tn.Value, "effect", tn.Effect), 1, t)
		}
		if last && !n.Deleted.IsZero() && n.Deleted.Before(e.c.cfg.Start.Add(e.c.cfg.Window)) {
			e.line("kube_node_deletion_timestamp", id, float64(n.Deleted.Unix()), t)
		}
	})
	if !slicesContains(b.blind, n.Name) {
		e.freeUnits(n, from, to, b)
	}
}

// freeUnits writes the device-only series of units while no pod holds
// them: dcgm-exporter reports every GPU and MIG instance.
func (e *exporter) freeUnits(n *cluster.Node, from, to int64, b built) {
	held := map[string][][2]int64{}
	for i := range b.pods {
		p := &b.pods[i]
		if p.Node != n.Name {
			continue
		}
		pf, pt := e.life(p.Start, p.End)
		for _, h := range p.GPUs {
			held[h.UnitID] = append(held[h.UnitID], [2]int64{pf, pt})
		}
	}
	if n.Vendor() == cluster.VendorNeuron {
		return // neuron-monitor reports the cores of running Neuron runtimes only
	}
	for _, g := range n.GPUs {
		if g.Sharing == cluster.TimeSlicing {
			// One device series for all replicas, while none is held.
			var all [][2]int64
			for _, u := range g.Units {
				all = append(all, held[u.ID]...)
			}
			e.freeSeries(e.unit(g.Units[0].ID), all, from, to)
			continue
		}
		for _, u := range g.Units {
			e.freeSeries(e.unit(u.ID), held[u.ID], from, to)
		}
	}
}

func (e *exporter) freeSeries(in unitInfo, held [][2]int64, from, to int64) {
	step := int64(e.c.step)
	metric, l := "DCGM_FI_PROF_GR_ENGINE_ACTIVE", e.dcgmLabels(in, nil)
	if in.vendor == cluster.VendorAMD {
		metric, l = "gpu_gfx_activity", amdLabels(in, nil)
	}
	for t := (from + step - 1) / step * step; t < to; t += step {
		if !heldAt(held, t) {
			e.line(metric, l, 0, e.c.unix0+float64(t))
		}
	}
}

func heldAt(ivs [][2]int64, t int64) bool {
	for _, iv := range ivs {
		if t >= iv[0] && t < iv[1] {
			return true
		}
	}
	return false
}

// providerID is the node's spec.providerID as the cloud sets it.
func providerID(n *cluster.Node) string {
	if n.ProviderID != "" {
		return n.ProviderID
	}
	switch n.Cloud {
	case "aws":
		return "aws:///" + n.Zone + "/i-" + strconv.FormatUint(uint64(len(n.Name))*0x9e3779b9, 16)
	case "azure":
		return "azure:///subscriptions/sim/resourceGroups/sim/providers/Microsoft.Compute/virtualMachines/" + n.Name
	}
	return ""
}

// schedulingSeries are the labels of a pod's kube_pod_tolerations series
// (one per toleration) and of its kube_pod_nodeselectors series (one,
// opt-in in kube-state-metrics, with a nodeselector_ label per
// single-valued selector term: a term with several values is required
// node affinity, which kube-state-metrics does not export).
func schedulingSeries(p *cluster.Pod, id []string) (tolerations [][]string, selectors []string) {
	for _, t := range p.Tolerations {
		l := append([]string(nil), id...)
		for _, kv := range [][2]string{{"key", t.Key}, {"operator", t.Operator}, {"value", t.Value}, {"effect", t.Effect}} {
			if kv[1] != "" {
				l = append(l, kv[0], kv[1])
			}
		}
		tolerations = append(tolerations, l)
	}
	selectors = append([]string(nil), id...)
	for _, k := range sortedKeys(p.NodeSelector) {
		if vs := p.NodeSelector[k]; len(vs) == 1 {
			selectors = append(selectors, "nodeselector_"+sanitizeLabel(k)[len("label_"):], vs[0])
		}
	}
	return tolerations, selectors
}
