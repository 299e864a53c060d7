package prom

import (
	"errors"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/gpuwise/gpuwise/internal/cluster"
	"github.com/gpuwise/gpuwise/internal/prom/promtest"
	"github.com/gpuwise/gpuwise/internal/prom/wire"
)

// vendorCluster is promtest.Cluster with gpu-1 made another vendor's
// node: its labels, allocatable resource and the pods' requests renamed as
// kube-state-metrics names them (amd_com_gpu, aws_amazon_com_neuron), and
// DCGM's series replaced by the vendor exporter's (docs/accelerators.md)
// for train-0's device, at 40 (percent for AMD's gpu_gfx_activity).
func vendorCluster(labels map[string]string, resource string, devices float64, extra map[string]float64, exporter promtest.Series) []promtest.Series {
	v := 40.0
	if exporter.Labels["__name__"] == neuronMetric {
		v = 0.4 // a ratio
	}
	ss := promtest.Cluster()
	out := ss[:0]
	for _, s := range ss {
		l := s.Labels
		switch {
		case strings.HasPrefix(l["__name__"], "DCGM_"):
			continue
		case l["__name__"] == "kube_node_labels" && l["node"] == "gpu-1":
			for k := range l {
				if strings.HasPrefix(k, "label_") {
					delete(l, k)
				}
			}
			for k, v := range labels {
				l[k] = v
			}
		case l["resource"] == "nvidia_com_gpu":
			l["resource"] = resource
		}
		out = append(out, s)
	}
	fact := func(res string, v float64) {
		s := promtest.Series{Labels: map[string]string{"__name__": "kube_node_status_allocatable", "node": "gpu-1", "resource": res}}
		for _, x := range out[0].Samples {
			s.Samples = append(s.Samples, wire.Sample{T: x.T, V: v})
		}
		out = append(out, s)
	}
	fact(resource, devices)
	for r, v := range extra {
		fact(r, v)
	}
	for t := promtest.Window.Start; t.Before(promtest.Window.End); t = t.Add(5 * time.Minute) {
		exporter.Samples = append(exporter.Samples, wire.Sample{T: t.UnixMilli(), V: v})
	}
	return append(out, exporter)
}

// TestAcceleratorsFromKubeStateMetrics: an AMD MI300X node and a Trainium
// node: the devices from kube-state-metrics as whole units, the model
// from AMD's node labeller or the instance type's catalog row, each GPU
// pod holding one device for the 48-hour window (2 × 48 = 96
// device-hours of 8 × 48 = 384, or 16 × 48 = 768). train-0's AMD GPU is
// measured from gpu_gfx_activity (40% → 0.4, raw and by remote read).
// On the Trainium node neuron-monitor reports core 0 at 0.4, but each pod
// holds 1 of the 16 devices and which one is not in Prometheus (no pod
// label): both stay unmeasured, and a note says why.
func TestAcceleratorsFromKubeStateMetrics(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name, model string
		gpus, units int
		memMiB      int64
		measured    bool
		series      []promtest.Series
	}{
		{"AMD MI300X", "MI300X", 8, 1, 192 * 1024, true, vendorCluster(map[string]string{
			"label_node_kubernetes_io_instance_type": "Standard_ND96isr_MI300X_v5", "label_topology_kubernetes_io_region": "eastus2",
			"label_amd_com_gpu_product_name": "AMD_Instinct_MI300X", "label_amd_com_gpu_vram": "192G"}, "amd_com_gpu", 8, nil,
			promtest.Series{Labels: map[string]string{"__name__": "gpu_gfx_activity", "hostname": "gpu-1", "gpu_id": "0",
				"pod": "train-0", "namespace": "ml", "container": "main", "card_model": "MI300X"}})},
		{"Trainium", "Trainium", 16, 2, 0, false, vendorCluster(map[string]string{
			"label_node_kubernetes_io_instance_type": "trn1.32xlarge", "label_topology_kubernetes_io_region": "us-east-1"},
			"aws_amazon_com_neuron", 16, map[string]float64{"aws_amazon_com_neuroncore": 32},
			promtest.Series{Labels: map[string]string{"__name__": "neuroncore_utilization_ratio", "instance_id": "i-1",
				"instance_type": "trn1.32xlarge", "neuroncore": "0"}})},
	} {
		// (query_range's avg_over_time is the real Prometheus tier's: the
		// fake answers last_over_time and count_over_time only.)
		for _, read := range []string{ReadRemote, ReadRaw} {
			t.Run(c.name+"/"+read, func(t *testing.T) {
				t.Parallel()
				s, err := buildFrom(t, promtest.New(t, c.series), read)
				var pe *PartialError
				if s == nil || err != nil && !errors.As(err, &pe) {
					t.Fatalf("Build: %v", err)
				}
				var node *cluster.Node
				for i := range s.Nodes {
					if s.Nodes[i].Name == "gpu-1" {
						node = &s.Nodes[i]
					}
				}
				if node == nil || node.GPUModel != c.model || len(node.GPUs) != c.gpus || node.GPUs[0].MemoryMiB != c.memMiB {
					t.Fatalf("gpu-1: %+v; want %d %s devices of %d MiB", node, c.gpus, c.model, c.memMiB)
				}
				share := heldShare(t, s)
				for _, k := range []string{"ml/train-0", "ml/idle-0"} {
					if share[k] != 1 {
						t.Errorf("%s holds %v devices; want 1", k, share[k])
					}
					p := pod(s, k)
					measured := c.measured && k == "ml/train-0"
					// Trainium's device plugin advertises 32 NeuronCores beside
					// its 16 devices: a device is held as its 2 NeuronCore units.
					if len(p.GPUs) != c.units || (p.GPUs[0].Activity != nil) != measured {
						t.Fatalf("%s holds %+v; want one device as %d units, measured %v", k, p.GPUs, c.units, measured)
					}
					if a := p.GPUs[0].Activity; measured && (math.Abs(a.Mean()-0.4) > 1e-9 || a.Seconds < 47*3600) {
						t.Errorf("%s: activity %.4f over %.0f s; want 0.4 over the window", k, a.Mean(), a.Seconds)
					}
				}
				p, err := cluster.Prepare(s)
				if err != nil {
					t.Fatal(err)
				}
				var held float64
				for _, pod := range p.Pods() {
					for _, h := range pod.GPUs {
						held += p.Index().Units[h.UnitID].Unit.Fraction * 48
					}
				}
				if math.Abs(held-96) > 1e-9 {
					t.Errorf("%.2f device-hours held; want 96", held)
				}
				if named := strings.Contains(strings.Join(s.Notes, "\n"), "4 Neuron device or NeuronCore holding(s) of pods that shared their node's Neuron devices with other pods at the same time are unmeasured"); named == c.measured {
					t.Errorf("notes %q: want the unattributed Neuron holdings named for Neuron only", s.Notes)
				}
			})
		}
	}
}
