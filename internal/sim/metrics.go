package sim

import (
	"bufio"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/gpuwise/gpuwise/internal/cluster"
)

// sampleSink receives the simulation's samples as they are generated.
type sampleSink interface {
	// gpu is one sample of holding i of p over [t, t+dt), t in Unix
	// seconds: activity, SM_ACTIVE and framebuffer MiB.
	gpu(p *cluster.Pod, i int, t, dt, v, sm, fb float64)
	// container is one sample of container j of p over [t, t+dt): CPU
	// cores and working-set bytes.
	container(p *cluster.Pod, j int, t, dt, cpu, mem float64)
}

// unitInfo is what dcgm-exporter labels a unit's series with.
type unitInfo struct {
	host, gpu, uuid, model string
	profile, gi, vgpu      string
	replicas               float64
}

// exporter writes a cell's samples as exposition-format lines, the way
// dcgm-exporter, cAdvisor and kube-state-metrics would have exposed them.
type exporter struct {
	w        *bufio.Writer
	c        *cell
	hostKey  string // "Hostname" or, in odd cells, "hostname" (dcgm-exporter main)
	units    map[string]unitInfo
	cpuTotal map[string]float64 // namespace/pod/container → cumulative CPU seconds
	err      error
}

func newExporter(w *bufio.Writer, c *cell, k int) *exporter {
	e := &exporter{w: w, c: c, hostKey: "Hostname", cpuTotal: map[string]float64{}}
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
		for _, g := range n.GPUs {
			for k, u := range g.Units {
				in := unitInfo{host: n.Name, gpu: strconv.Itoa(g.Index), uuid: g.UUID, model: model, replicas: 1}
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

func (e *exporter) gpu(p *cluster.Pod, i int, t, _, v, sm, fb float64) {
	if e.units == nil {
		e.indexUnits()
	}
	in := e.units[p.GPUs[i].UnitID]
	l := e.dcgmLabels(in, p)
	// On a time-sliced GPU a replica's activity is a share of the device.
	e.line("DCGM_FI_PROF_GR_ENGINE_ACTIVE", l, v/in.replicas, t)
	e.line("DCGM_FI_PROF_SM_ACTIVE", l, sm/in.replicas, t)
	e.line("DCGM_FI_DEV_FB_USED", l, fb, t)
}

func (e *exporter) container(p *cluster.Pod, j int, t, dt, cpu, mem float64) {
	name := p.Containers[j].Name
	l := []string{"namespace", p.Namespace, "pod", p.Name, "container", name, "node", p.Node}
	k := p.Namespace + "/" + p.Name + "/" + name
	total, seen := e.cpuTotal[k]
	if !seen {
		e.line("container_cpu_usage_seconds_total", l, 0, t)
	}
	total += cpu * dt
	e.cpuTotal[k] = total
	e.line("container_cpu_usage_seconds_total", l, total, t+dt)
	e.line("container_memory_working_set_bytes", l, mem, t)
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
