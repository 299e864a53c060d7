package prom

import (
	"errors"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/gpuwise/gpuwise/internal/prom/promtest"
	"github.com/gpuwise/gpuwise/internal/prom/wire"
)

// TestGaudiExporterFromPrometheus: a dl1.24xlarge (8 Gaudi) whose
// devices ml/train-0 and ml/idle-0 each hold one, and Intel's Gaudi
// exporter's series labelled as it writes them (Serial, UUID, device, id,
// fit, spi, driver, pod_namespace, pod_name; no node label): train-0's
// device (id 3) at 40 % with 2 GiB used, a free device (id 0, empty pod
// labels) at 90 %. train-0's holding gets 0.4 and 2,048 MiB, the free
// device's series goes to nobody, and idle-0, which no series names, is
// unmeasured with a note; raw and by remote read.
func TestGaudiExporterFromPrometheus(t *testing.T) {
	t.Parallel()
	device := func(name, id, ns, pod string, v float64) promtest.Series {
		s := promtest.Series{Labels: map[string]string{"__name__": name, "Serial": "AM" + id, "UUID": "01-" + id, "device": "AM" + id,
			"id": id, "fit": "1.2", "spi": "1.3", "driver": "1.19.0", "pod_namespace": ns, "pod_name": pod}}
		for t := promtest.Window.Start; t.Before(promtest.Window.End); t = t.Add(5 * time.Minute) {
			s.Samples = append(s.Samples, wire.Sample{T: t.UnixMilli(), V: v})
		}
		return s
	}
	series := vendorCluster(map[string]string{"label_node_kubernetes_io_instance_type": "dl1.24xlarge", "label_topology_kubernetes_io_region": "us-east-1"},
		"habana_ai_gaudi", 8, nil, device(gaudiActivity, "3", "ml", "train-0", 40))
	series = series[:len(series)-1] // vendorCluster's exporter series: set at 40 %, as device's
	series = append(series, device(gaudiActivity, "3", "ml", "train-0", 40), device(gaudiMemory, "3", "ml", "train-0", 2<<30),
		device(gaudiActivity, "0", "", "", 90), device(gaudiMemory, "0", "", "", 8<<30))
	for _, read := range []string{ReadRemote, ReadRaw} {
		t.Run(read, func(t *testing.T) {
			t.Parallel()
			s, err := buildFrom(t, promtest.New(t, series), read)
			var pe *PartialError
			if s == nil || err != nil && !errors.As(err, &pe) {
				t.Fatalf("Build: %v", err)
			}
			p := pod(s, "ml/train-0")
			if p == nil || len(p.GPUs) != 1 {
				t.Fatalf("ml/train-0: %+v; want one Gaudi", p)
			}
			h := p.GPUs[0]
			if a := h.Activity; a == nil || math.Abs(a.Mean()-0.4) > 1e-9 || a.Seconds < 47*3600 {
				t.Errorf("train-0: activity %+v; want 0.4 over the window", a)
			}
			if m := h.FramebufferMiB; m == nil || math.Abs(m.Mean()-2048) > 1e-9 {
				t.Errorf("train-0: memory %+v; want 2048 MiB", m)
			}
			if idle := pod(s, "ml/idle-0"); idle == nil || len(idle.GPUs) != 1 || idle.GPUs[0].Activity != nil {
				t.Errorf("ml/idle-0: %+v; want one unmeasured Gaudi", idle)
			}
			if !strings.Contains(strings.Join(s.Notes, "\n"), "1 Gaudi device holding(s) on 1 Gaudi node(s) (gpu-1) had no habanalabs_utilization series naming their pod") {
				t.Errorf("notes %q: want idle-0's holding named unmeasured", s.Notes)
			}
		})
	}
}
