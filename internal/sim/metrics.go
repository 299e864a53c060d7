package sim

import (
	"bufio"
	"hash/fnv"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/gpuwise/gpuwise/internal/cluster"
)

// sampleSink receives the simulation's samples as they are generated.
type sampleSink interface {
	// gpu is one sample of holding i of p over [t, t+dt), t in Unix
	// seconds: activity, SM_ACTIVE, framebuffer MiB, PCIe and NVLink
	// receive bytes/s.
	gpu(p *cluster.Pod, i int, t, dt float64, g gpuSample)
	// container is one sample of container j of p over [t, t+dt): CPU
	// cores, working-set bytes and CFS periods.
	container(p *cluster.Pod, j int, t, dt float64, x ctrSample)
	// serve is one sample of p's inference server over [t, t+dt).
	serve(p *cluster.Pod, s *serveLoad, t, dt float64, x serveSample)
}

// unitInfo is what dcgm-exporter labels a unit's series with.
type unitInfo struct {
	host, gpu, uuid, model string
	profile, gi, vgpu      string
	replicas               float64
	// vendor is the node's accelerator vendor: an AMD GPU's series are
	// AMD's device-metrics-exporter's (amdLabels), a Neuron device's
	// neuron-monitor's (neuronLabels), not DCGM's.
	vendor string
	// A Neuron device's instance (the EC2 instance id of the node's
	// provider ID, its type, zone and region) and NeuronCores per device.
	instanceID, instanceType, zone, region string
	cores                                  int
}

// exporter writes a cell's samples as exposition-format lines, the way
// dcgm-exporter, cAdvisor and kube-state-metrics would have exposed them.
type exporter struct {
	w        *bufio.Writer
	c        *cell
	hostKey  string // "Hostname" or, in odd cells, "hostname" (dcgm-exporter main)
	units    map[string]unitInfo
	cpuTotal map[string]*ctrCounters // namespace/pod/container → cumulative counters
	servers  map[string]*serveCounters
	err      error
}

// ctrCounters are a container's cumulative cAdvisor counters.
type ctrCounters struct {
	cpu, periods, throttled float64
	oom                     int
	samples                 int
}

// serveCounters are an inference server's cumulative counters.
type serveCounters struct {
	requests, genTokens, promptTokens, queueUs, inferences float64
	// lat are the latency histogram's requests per bucket (not
	// cumulative), latSum their summed seconds.
	lat    []float64
	latSum float64
}

func newExporter(w *bufio.Writer, c *cell, k int) *exporter {
	e := &exporter{w: w, c: c, hostKey: "Hostname", cpuTotal: map[string]*ctrCounters{}, servers: map[string]*serveCounters{}}
	if k%2 == 1 {
		e.hostKey = "hostname"
	}
	return e
}

// indexUnits maps the cell's units to their labels; nodes exist before
// any pod is streamed.
func (e *exporter) indexUnits() {
	e.units = map[string]unitInfo{}
	for _, n := range e.c.nodes {
		model := strings.ReplaceAll(n.Labels["nvidia.com/gpu.product"], "-", " ")
		if n.Vendor() == cluster.VendorAMD {
			model = n.GPUModel
		}
		for _, g := range n.GPUs {
			for k, u := range g.Units {
				in := unitInfo{host: n.Name, gpu: strconv.Itoa(g.Index), uuid: g.UUID, model: model, replicas: 1, vendor: n.Vendor()}
				if in.vendor == cluster.VendorNeuron {
					in.instanceID, in.instanceType, in.zone, in.region = cluster.EC2InstanceID(providerID(n)), n.InstanceType, n.Zone, n.Region
					in.cores = cluster.NeuronCoresPerDevice(n.GPUModel)
				}
				switch u.Kind {
				case cluster.MIGSlice:
					in.profile, in.gi = u.Profile, strconv.Itoa(k)
				case cluster.TimeSlice:
					in.vgpu, in.replicas = strconv.Itoa(k), float64(g.Replicas)
				}
				e.units[u.ID] = in
			}
		}
	}
}

// unit is a unit's labels, indexing the cell's units again when it is
// not indexed yet (the accelerator nodes are added after the first GPU
// pods have streamed).
func (e *exporter) unit(id string) unitInfo {
	in, ok := e.units[id]
	if !ok {
		e.indexUnits()
		in = e.units[id]
	}
	return in
}

// dcgmLabels are a unit's series labels, with the pod's when held.
func (e *exporter) dcgmLabels(in unitInfo, p *cluster.Pod) []string {
	l := []string{"gpu", in.gpu, "UUID", in.uuid, "device", "nvidia" + in.gpu, "modelName", in.model}
	if in.profile != "" {
		l = append(l, "GPU_I_PROFILE", in.profile, "GPU_I_ID", in.gi)
	}
	l = append(l, e.hostKey, in.host)
	if in.vgpu != "" && p != nil {
		l = append(l, "vgpu", in.vgpu)
	}
	if p != nil {
		l = append(l, "container", p.Containers[0].Name, "namespace", p.Namespace, "pod", p.Name)
	}
	return l
}

// amdLabels are an AMD GPU's series labels as the device-metrics-exporter
// writes them (docs/accelerators.md), with the pod's when held (the
// exporter's pod labels are empty on a free GPU).
func amdLabels(in unitInfo, p *cluster.Pod) []string {
	pod, ns, ctr := "", "", ""
	if p != nil {
		pod, ns, ctr = p.Name, p.Namespace, p.Containers[0].Name
	}
	return []string{"gpu_id", in.gpu, "hostname", in.host, "card_model", in.model, "serial_number", in.uuid,
		"gpu_partition_id", "0", "container", ctr, "namespace", ns, "pod", pod}
}

// neuronLabels are one NeuronCore's series labels as neuron-monitor's
// Prometheus exporter (neuron-monitor-prometheus.py) writes them
// (docs/accelerators.md): the instance's, the core's index on the
// instance and the runtime's tag; no pod or node label.
func neuronLabels(in unitInfo, core int, runtime string) []string {
	return []string{"availability_zone", in.zone, "instance_id", in.instanceID, "instance_name", "", "instance_type", in.instanceType,
		"neuroncore", strconv.Itoa(core), "region", in.region, "runtime_tag", runtime, "subnet_id", "subnet-sim"}
}

// runtimeTag stands for the Neuron runtime's tag (its process id) of a
// pod: a number from the pod's UID.
func runtimeTag(p *cluster.Pod) string {
	h := fnv.New32a()
	h.Write([]byte(p.UID))
	return strconv.FormatUint(uint64(h.Sum32()%4000000+100), 10)
}

func (e *exporter) gpu(p *cluster.Pod, i int, t, _ float64, g gpuSample) {
	in := e.unit(p.GPUs[i].UnitID)
	if in.vendor == cluster.VendorNeuron {
		// Every core of the device at the device's activity, and its
		// share of the device's memory in bytes, a quarter model code and
		// three quarters tensors (neuron-monitor's per-core kinds, in
		// memory_location "None" as its exporter writes them): the
		// simulation draws one value per device.
		dev, _ := strconv.Atoi(in.gpu)
		tag := runtimeTag(p)
		perCore := g.fb * (1 << 20) / float64(in.cores)
		for c := range in.cores {
			l := neuronLabels(in, dev*in.cores+c, tag)
			e.line("neuroncore_utilization_ratio", l, g.v, t)
			ml := append(l[:len(l):len(l)], "memory_location", "None")
			e.line("neuroncore_memory_usage_model_code", ml, perCore/4, t)
			e.line("neuroncore_memory_usage_tensors", ml, perCore*3/4, t)
		}
		return
	}
	if in.vendor == cluster.VendorAMD {
		l := amdLabels(in, p)
		e.line("gpu_gfx_activity", l, 100*g.v, t) // percent
		e.line("gpu_used_vram", l, g.fb, t)
		return
	}
	l := e.dcgmLabels(in, p)
	// On a time-sliced GPU a replica's activity is a share of the device.
	e.line("DCGM_FI_PROF_GR_ENGINE_ACTIVE", l, g.v/in.replicas, t)
	e.line("DCGM_FI_PROF_SM_ACTIVE", l, g.sm/in.replicas, t)
	e.line("DCGM_FI_DEV_FB_USED", l, g.fb, t)
	if !math.IsNaN(g.pcie) {
		e.line("DCGM_FI_PROF_PCIE_RX_BYTES", l, g.pcie, t)
	}
	if !math.IsNaN(g.nvlink) {
		e.line("DCGM_FI_PROF_NVLINK_RX_BYTES", l, g.nvlink, t)
	}
}

func (e *exporter) container(p *cluster.Pod, j int, t, dt float64, x ctrSample) {
	name := p.Containers[j].Name
	l := []string{"namespace", p.Namespace, "pod", p.Name, "container", name, "node", p.Node}
	k := p.Namespace + "/" + p.Name + "/" + name
	c := e.cpuTotal[k]
	if c == nil {
		c = &ctrCounters{}
		e.cpuTotal[k] = c
		e.line("container_cpu_usage_seconds_total", l, 0, t)
		if x.periods > 0 {
			e.line("container_cpu_cfs_periods_total", l, 0, t)
			e.line("container_cpu_cfs_throttled_periods_total", l, 0, t)
		}
	}
	c.cpu += x.cpu * dt
	e.line("container_cpu_usage_seconds_total", l, c.cpu, t+dt)
	e.line("container_memory_working_set_bytes", l, x.mem, t)
	if x.periods > 0 {
		c.periods += x.periods
		c.throttled += x.throttled
		e.line("container_cpu_cfs_periods_total", l, c.periods, t+dt)
		e.line("container_cpu_cfs_throttled_periods_total", l, c.throttled, t+dt)
	}
	if len(p.GPUs) > 0 {
		e.oomEvents(l, c, t, x)
	}
	c.samples++
}

// oomEvents writes cAdvisor's OOM counter of a GPU pod's container every
// infoEvery samples and whenever it moves, at the kill.
func (e *exporter) oomEvents(l []string, c *ctrCounters, t float64, x ctrSample) {
	periodic := c.samples%infoEvery == 0
	if periodic && (x.kills == 0 || x.killAt > t) {
		e.line("container_oom_events_total", l, float64(c.oom), t)
	}
	if x.kills > 0 {
		c.oom += x.kills
		e.line("container_oom_events_total", l, float64(c.oom), x.killAt)
	}
}

// serve writes an inference server's counters as vLLM or Triton expose
// them, with the namespace, pod and container labels Prometheus' pod
// discovery adds.
func (e *exporter) serve(p *cluster.Pod, s *serveLoad, t, dt float64, x serveSample) {
	k := p.Namespace + "/" + p.Name
	c := e.servers[k]
	first := c == nil
	if first {
		c = &serveCounters{}
		e.servers[k] = c
	}
	base := []string{"namespace", p.Namespace, "pod", p.Name, "container", p.Containers[0].Name}
	switch s.server {
	case cluster.ServerVLLM:
		l := append(base, "engine", "0", "model_name", s.model)
		if first {
			e.vllmCounters(l, c, t)
		}
		c.requests += x.requests
		c.genTokens += x.genTokens
		c.promptTokens += x.promptTokens
		e.vllmCounters(l, c, t+dt)
		e.line("vllm:num_requests_waiting", l, math.Round(x.waiting), t)
		if s.latShares != nil {
			if first {
				c.lat = make([]float64, len(s.latShares))
				e.latency(l, c, t)
			}
			for j, f := range s.latShares {
				c.lat[j] += x.requests * f
			}
			c.latSum += x.requests * latencyMean(s.latencyMedian())
			e.latency(l, c, t+dt)
		}
	case cluster.ServerTriton:
		l := append(base, "model", s.model, "version", "1")
		if first {
			e.tritonCounters(l, c, t)
		}
		c.requests += x.requests
		c.inferences += x.requests * s.batch
		c.queueUs += x.waiting * dt * 1e6 // Little's law: waiting requests × time
		e.tritonCounters(l, c, t+dt)
	}
}

func (e *exporter) vllmCounters(l []string, c *serveCounters, t float64) {
	e.line("vllm:request_success_total", append(append([]string(nil), l...), "finished_reason", "stop"), c.requests, t)
	e.line("vllm:generation_tokens_total", l, c.genTokens, t)
	e.line("vllm:prompt_tokens_total", l, c.promptTokens, t)
}

// latency writes vLLM's e2e latency histogram as its client library
// exposes it: cumulative _bucket counters by le (+Inf last), _sum, _count.
func (e *exporter) latency(l []string, c *serveCounters, t float64) {
	bl := append(append([]string(nil), l...), "le", "")
	cum := 0.0
	for j, n := range c.lat {
		cum += n
		bl[len(bl)-1] = "+Inf"
		if j < len(VLLMLatencyBounds) {
			bl[len(bl)-1] = leLabel(VLLMLatencyBounds[j])
		}
		e.line(VLLMLatencyMetric+"_bucket", bl, cum, t)
	}
	e.line(VLLMLatencyMetric+"_sum", l, c.latSum, t)
	e.line(VLLMLatencyMetric+"_count", l, cum, t)
}

// leLabel writes a bucket bound as the Python client does (1.0, not 1).
func leLabel(b float64) string {
	s := strconv.FormatFloat(b, 'g', -1, 64)
	if !strings.ContainsAny(s, ".e") {
		s += ".0"
	}
	return s
}

func (e *exporter) tritonCounters(l []string, c *serveCounters, t float64) {
	e.line("nv_inference_request_success", l, c.requests, t)
	e.line("nv_inference_count", l, c.inferences, t)
	e.line("nv_inference_queue_duration_us", l, c.queueUs, t)
}

// line writes one sample; labels are name, value pairs.
func (e *exporter) line(metric string, labels []string, v, t float64) {
	if e.err != nil {
		return
	}
	w := e.w
	w.WriteString(metric)
	w.WriteByte('{')
	for i := 0; i+1 < len(labels); i += 2 {
		if i > 0 {
			w.WriteByte(',')
		}
		w.WriteString(labels[i])
		w.WriteString(`="`)
		w.WriteString(escapeLabel(labels[i+1]))
		w.WriteByte('"')
	}
	w.WriteString("} ")
	w.WriteString(formatFloat(v))
	if !math.IsNaN(t) {
		w.WriteByte(' ')
		w.WriteString(strconv.FormatFloat(t, 'f', -1, 64))
	}
	_, e.err = w.WriteString("\n")
}

func formatFloat(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }

var labelEscaper = strings.NewReplacer(`\`, `\\`, `"`, `\"`, "\n", `\n`)

func escapeLabel(s string) string {
	if !strings.ContainsAny(s, "\\\"\n") {
		return s
	}
	return labelEscaper.Replace(s)
}

// sanitizeLabel is kube-state-metrics' label name: label_ and the key with
// every character outside [a-zA-Z0-9_] turned into _.
func sanitizeLabel(k string) string {
	b := []byte(k)
	for i, c := range b {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_') {
			b[i] = '_'
		}
	}
	return "label_" + string(b)
}

func kvLabels(m map[string]string, base ...string) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		base = append(base, sanitizeLabel(k), m[k])
	}
	return base
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

func slicesContains(xs []string, x string) bool { return slices.Contains(xs, x) }
