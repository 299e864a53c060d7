package prom

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/gpuwise/gpuwise/internal/cluster"
	"github.com/gpuwise/gpuwise/internal/prom/promtest"
	"github.com/gpuwise/gpuwise/internal/prom/wire"
)

// neuronCoreValue is core c's activity in trainiumCluster: per device
// 0.1 + 0.02 × device, its second core 0.01 above its first.
func neuronCoreValue(c int) float64 { return 0.1 + 0.02*float64(c/2) + 0.01*float64(c%2) }

// trainiumCluster is promtest.Cluster with gpu-1 a trn1.32xlarge (16
// Trainium devices, 32 NeuronCores, as kube-state-metrics names the
// resources) whose devices ml/train-0 holds all of (ml/idle-0 asks for
// none), and neuron-monitor's 32 core series for the whole window
// (neuronCoreValue), labelled as its Prometheus exporter writes them.
func trainiumCluster() []promtest.Series {
	return trainium(true, "aws_amazon_com_neuron", 16, 32)
}

// trainium is trainiumCluster's node, its allocatable NeuronCores
// advertised or not, ml/train-0 asking n of resource, and the first
// reporting cores sending series.
func trainium(advertiseCores bool, resource string, n float64, reporting int) []promtest.Series {
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
			l["label_node_kubernetes_io_instance_type"], l["label_topology_kubernetes_io_region"] = "trn1.32xlarge", "us-east-1"
		case l["resource"] == "nvidia_com_gpu" && l["pod"] == "idle-0":
			continue
		case l["resource"] == "nvidia_com_gpu":
			l["resource"] = resource
			for i := range s.Samples {
				s.Samples[i].V = n
			}
		}
		out = append(out, s)
	}
	alloc := map[string]float64{"aws_amazon_com_neuron": 16}
	if advertiseCores {
		alloc["aws_amazon_com_neuroncore"] = 32
	}
	for res, v := range alloc {
		s := promtest.Series{Labels: map[string]string{"__name__": "kube_node_status_allocatable", "node": "gpu-1", "resource": res}}
		for _, x := range out[0].Samples {
			s.Samples = append(s.Samples, wire.Sample{T: x.T, V: v})
		}
		out = append(out, s)
	}
	for c := range reporting {
		for name, v := range map[string]float64{neuronMetric: neuronCoreValue(c),
			"neuroncore_memory_usage_model_code": 100 << 20, "neuroncore_memory_usage_tensors": float64((c + 1) << 20),
			"neuroncore_memory_usage_constants": 0} {
			s := promtest.Series{Labels: map[string]string{"__name__": name, "availability_zone": "us-east-1a", "instance_id": "i-1",
				"instance_name": "", "instance_type": "trn1.32xlarge", "neuroncore": strconv.Itoa(c), "region": "us-east-1",
				"runtime_tag": "367", "subnet_id": "subnet-1"}}
			if name != neuronMetric {
				s.Labels["memory_location"] = "None"
			}
			for t := promtest.Window.Start; t.Before(promtest.Window.End); t = t.Add(5 * time.Minute) {
				s.Samples = append(s.Samples, wire.Sample{T: t.UnixMilli(), V: v})
			}
			out = append(out, s)
		}
	}
	return out
}

// neuronCoreMiB is core c's device memory in trainium's series: 100 MiB
// of model code and c+1 MiB of tensors (and 0 of constants).
func neuronCoreMiB(c int) float64 { return 100 + float64(c+1) }

// TestNeuronMonitorFromPrometheus (issue 28.4): a pod holding every
// Neuron device of its node is measured from neuron-monitor's core
// series, joined by the instance id of the node's providerID, over the
// whole window, raw and by remote read; no note calls the node
// unmeasured. Where the device plugin advertises NeuronCores each device
// is held as its 2 NeuronCore units, each measured by its own core
// (core c at neuronCoreValue(c)); where it advertises devices only, each
// of the 16 holdings gets its own device's two cores (device K at 0.105 +
// 0.02 K, the mean of its cores).
func TestNeuronMonitorFromPrometheus(t *testing.T) {
	t.Parallel()
	for _, cores := range []bool{true, false} {
		for _, read := range []string{ReadRemote, ReadRaw} {
			t.Run(fmt.Sprintf("%s/cores=%v", read, cores), func(t *testing.T) {
				t.Parallel()
				s, err := buildFrom(t, promtest.New(t, trainium(cores, "aws_amazon_com_neuron", 16, 32)), read)
				var pe *PartialError
				if s == nil || err != nil && !errors.As(err, &pe) {
					t.Fatalf("Build: %v", err)
				}
				want := 16
				if cores {
					want = 32
				}
				p := pod(s, "ml/train-0")
				if p == nil || len(p.GPUs) != want {
					t.Fatalf("ml/train-0: %+v; want %d Neuron units", p, want)
				}
				for _, h := range p.GPUs {
					var dev, core int
					var mean float64
					if cores {
						if _, err := fmt.Sscanf(h.UnitID, "gpu-1/gpu%d/nc%d", &dev, &core); err != nil || core/2 != dev {
							t.Fatalf("unit %q: %v", h.UnitID, err)
						}
						mean = neuronCoreValue(core)
					} else {
						if _, err := fmt.Sscanf(h.UnitID, "gpu-1/gpu%d", &dev); err != nil {
							t.Fatalf("unit %q: %v", h.UnitID, err)
						}
						mean = (neuronCoreValue(2*dev) + neuronCoreValue(2*dev+1)) / 2
					}
					if a := h.Activity; a == nil || math.Abs(a.Mean()-mean) > 1e-9 || a.Seconds < 47.9*3600 {
						t.Errorf("%s: activity %+v; want mean %.3f over the 48-hour window", h.UnitID, a, mean)
					}
					mib := neuronCoreMiB(core)
					if !cores {
						mib = neuronCoreMiB(2*dev) + neuronCoreMiB(2*dev+1)
					}
					if m := h.FramebufferMiB; m == nil || math.Abs(m.Max-mib) > 1e-9 || math.Abs(m.Mean()-mib) > 1e-9 || m.Seconds < 47.9*3600 {
						t.Errorf("%s: memory %+v; want %.0f MiB (its cores' kinds summed) over the window", h.UnitID, m, mib)
					}
				}
				if strings.Contains(strings.Join(s.Notes, "\n"), "Neuron") {
					t.Errorf("notes %q: none should call the Neuron node unmeasured", s.Notes)
				}
			})
		}
	}
}

// TestNeuronCoresOfALoneHolder: ml/train-0 asks 3 NeuronCores (or 2
// whole devices, 4 cores) and is the node's only Neuron holder, so the
// core series the node sends are its own: cores 0–2 report, at 0.10,
// 0.11 and 0.12. Which cores it was given is not in Prometheus, so each
// of its holdings gets the node's mean, 0.11, over the share of its
// cores that reported (3 of 3: the window; 3 of 4: ¾ of it). Its
// NeuronCores are half a device each: 1.5 devices held. The node's
// device memory (its cores' neuroncore_memory_usage_* summed) is split
// equally among the holdings.
func TestNeuronCoresOfALoneHolder(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		resource string
		n        float64
		units    int
		share    float64
	}{{"aws_amazon_com_neuroncore", 3, 3, 1}, {"aws_amazon_com_neuron", 2, 4, 0.75}} {
		t.Run(c.resource, func(t *testing.T) {
			t.Parallel()
			s, err := buildFrom(t, promtest.New(t, trainium(true, c.resource, c.n, 3)), ReadRaw)
			var pe *PartialError
			if s == nil || err != nil && !errors.As(err, &pe) {
				t.Fatalf("Build: %v", err)
			}
			p := pod(s, "ml/train-0")
			if p == nil || len(p.GPUs) != c.units {
				t.Fatalf("ml/train-0: %+v; want %d NeuronCore units", p, c.units)
			}
			for _, h := range p.GPUs {
				a := h.Activity
				if a == nil || math.Abs(a.Mean()-0.11) > 1e-9 || math.Abs(a.Seconds-c.share*48*3600) > 0.5*3600 {
					t.Errorf("%s: activity %+v; want mean 0.11 over %.0f%% of the 48-hour window", h.UnitID, a, 100*c.share)
				}
				// The node's 101 + 102 + 103 MiB, shared by its holdings.
				mib := (neuronCoreMiB(0) + neuronCoreMiB(1) + neuronCoreMiB(2)) / float64(c.units)
				if m := h.FramebufferMiB; m == nil || math.Abs(m.Mean()-mib) > 1e-9 {
					t.Errorf("%s: memory %+v; want %.2f MiB", h.UnitID, m, mib)
				}
			}
			if got := heldShare(t, s)["ml/train-0"]; math.Abs(got-float64(c.units)/2) > 1e-9 {
				t.Errorf("ml/train-0 holds %v devices; want %v", got, float64(c.units)/2)
			}
			if strings.Contains(strings.Join(s.Notes, "\n"), "Neuron") {
				t.Errorf("notes %q: none should call the lone holder unmeasured", s.Notes)
			}
		})
	}
}

// TestNeuronSeriesInPodLife: the points of a device a pod held in
// [1000, 2000) s go to it, not those of the holders before and after:
// raw samples by their time; query_range points (at T, standing for the
// step before T) by the samples they average, (T − lookback, T], so that
// the point after the pod's last sample (T = 2100) is its, and the point
// at 900, which averages the previous holder's sample at 800, is not.
func TestNeuronSeriesInPodLife(t *testing.T) {
	const step, lookback = 300.0, 300 - 0.001
	raw := []neuronPoint{{800, 0.9, step}, {1000, 0.5, step}, {1300, 0.5, step}, {1600, 0.5, step}, {1900, 0.5, step}, {2200, 0.9, step}}
	var ranged []neuronPoint
	for _, T := range []float64{900, 1200, 1500, 1800, 2100, 2400} {
		v := 0.5
		if T == 900 || T == 2400 {
			v = 0.9
		}
		ranged = append(ranged, neuronPoint{T - step, v, step})
	}
	for _, c := range []struct {
		name     string
		ps       []neuronPoint
		lookback float64
	}{{"raw", raw, 0}, {"range", ranged, lookback}} {
		s := neuronSeries(c.ps, 1000, 2000, c.lookback, nil)
		if s == nil || s.act.Samples != 4 || s.act.Seconds != 4*step || math.Abs(s.act.Mean()-0.5) > 1e-12 {
			t.Errorf("%s: %+v; want the pod's 4 points at 0.5", c.name, s)
		}
	}
	if s := neuronSeries(raw, 3000, 4000, 0, nil); s != nil {
		t.Errorf("a life with no point: %+v; want nil", s.act)
	}
}

// TestNeuronCoresPerDevice: the device plugin's counts where the node
// advertises both resources (a trn2 under LNC=1: 128 cores on 16
// devices), else the model's.
func TestNeuronCoresPerDevice(t *testing.T) {
	trn2 := &cluster.Node{GPUModel: "Trainium2"}
	for _, c := range []struct {
		n     *cluster.Node
		alloc map[string]int
		want  int
	}{
		{trn2, map[string]int{cluster.ResNeuron: 16, cluster.ResNeuronCore: 128}, 8},
		{trn2, map[string]int{cluster.ResNeuron: 16}, 4},
		{&cluster.Node{GPUModel: "Trainium"}, map[string]int{cluster.ResNeuronDevice: 16}, 2},
		{&cluster.Node{GPUModel: "Inferentia2"}, nil, 2},
		{&cluster.Node{GPUModel: "H100"}, nil, 0},
	} {
		if got := coresPerDevice(c.n, c.alloc); got != c.want {
			t.Errorf("%s %v: %d cores per device, want %d", c.n.GPUModel, c.alloc, got, c.want)
		}
	}
	if id := cluster.EC2InstanceID("aws:///us-east-1a/i-0abc"); id != "i-0abc" {
		t.Errorf("instance id %q", id)
	}
	if id := cluster.EC2InstanceID("azure:///subscriptions/x/vm"); id != "" {
		t.Errorf("azure instance id %q, want none", id)
	}
}
