package prom

import (
	"math"
	"strings"
	"testing"

	"github.com/gpuwise/gpuwise/internal/cluster"
	"github.com/gpuwise/gpuwise/internal/prom/promtest"
	"github.com/gpuwise/gpuwise/internal/prom/wire"
)

// hamiCluster is promtest.Cluster with gpu-1's two H100s (81559 MiB)
// shared by HAMi: the node advertises 20 vGPUs (split 10), and HAMi's
// scheduler exports its grants: train-0 30% of GPU 0's cores and 40779
// MiB of its memory (current metric names), idle-0 20% of GPU 1's cores
// and 8192 MiB (the legacy names of --legacy-metrics); HAMi's vGPU monitor
// says idle-0's container runs its vGPU at 60% SM utilization.
func hamiCluster() []promtest.Series {
	ss := promtest.Cluster()
	tmpl := ss[0].Samples
	fact := func(l map[string]string, v float64) promtest.Series {
		xs := make([]wire.Sample, len(tmpl))
		for i, x := range tmpl {
			xs[i] = wire.Sample{T: x.T, V: v}
		}
		return promtest.Series{Labels: l, Samples: xs}
	}
	const mib = 1 << 20
	return append(ss,
		fact(map[string]string{"__name__": "kube_node_status_allocatable", "node": "gpu-1", "resource": "nvidia_com_gpu"}, 20),
		fact(map[string]string{"__name__": "hami_gpu_memory_limit_bytes", "node": "gpu-1", "device_uuid": "GPU-0", "device_index": "0", "device_type": "NVIDIA"}, 81559*mib),
		fact(map[string]string{"__name__": "hami_gpu_memory_limit_bytes", "node": "gpu-1", "device_uuid": "GPU-1", "device_index": "1", "device_type": "NVIDIA"}, 81559*mib),
		fact(map[string]string{"__name__": "hami_vgpu_core_allocated_ratio", "namespace": "ml", "node": "gpu-1", "pod": "train-0", "container_index": "0", "device_uuid": "GPU-0"}, 30),
		fact(map[string]string{"__name__": "hami_vgpu_memory_allocated_bytes", "namespace": "ml", "node": "gpu-1", "pod": "train-0", "container_index": "0", "device_uuid": "GPU-0"}, 40779*mib),
		fact(map[string]string{"__name__": "vGPUCoreAllocated", "podnamespace": "ml", "nodename": "gpu-1", "podname": "idle-0", "containeridx": "0", "deviceuuid": "GPU-1"}, 20),
		fact(map[string]string{"__name__": "vGPUMemoryAllocated", "podnamespace": "ml", "nodename": "gpu-1", "podname": "idle-0", "containeridx": "0", "deviceuuid": "GPU-1"}, 8192*mib),
		// HAMi's vGPU monitor: idle-0's container at 60% SM utilization
		// of its vGPU (legacy name); train-0's at 90%, which DCGM's own
		// series for train-0 overrides.
		fact(map[string]string{"__name__": "Device_utilization_desc_of_container", "podnamespace": "ml", "podname": "idle-0", "ctrname": "main", "vdeviceid": "0", "deviceuuid": "GPU-1"}, 60),
		fact(map[string]string{"__name__": "hami_container_device_utilization_ratio", "namespace": "ml", "pod": "train-0", "container": "main", "vdevice_index": "0", "device_uuid": "GPU-0"}, 90),
	)
}

// TestHAMiSharesFromTheScheduler (issue 28 item 3): on the Prometheus
// path a HAMi node's GPUs are HAMi GPUs of 10 vGPUs each, and each pod
// holds the vGPU the scheduler granted it, on the GPU it names, priced as
// the snapshot path prices it (docs/dra.md). Hand-computed over the 48 h
// window: train-0 max(30%, 40779/81559) = 1/2 (to 1e-4) of GPU 0, 24
// GPU-hours, measured by DCGM as before (its vGPU monitor series is not
// read over DCGM's); idle-0 max(20%, 8192/81559) = 1/5 of GPU 1, 9.6
// GPU-hours, measured by the vGPU monitor only: 60% active.
func TestHAMiSharesFromTheScheduler(t *testing.T) {
	t.Parallel()
	for _, read := range []string{ReadRemote, ReadRaw, ReadRange} {
		t.Run(read, func(t *testing.T) {
			t.Parallel()
			s, err := buildFrom(t, promtest.New(t, hamiCluster()), read)
			if err != nil {
				t.Fatal(err)
			}
			p, err := cluster.Prepare(s)
			if err != nil {
				t.Fatal(err)
			}
			n := p.Index().Nodes["gpu-1"]
			if n == nil || len(n.GPUs) != 2 {
				t.Fatalf("gpu-1: %+v; want 2 HAMi GPUs", n)
			}
			for _, g := range n.GPUs {
				if g.Sharing != cluster.HAMi || g.Replicas != 10 || len(g.Units) != 10 || g.MemoryMiB != 81559 {
					t.Errorf("GPU %d: %s, %d replicas, %d units, %d MiB; want HAMi, 10, 10, 81559", g.Index, g.Sharing, g.Replicas, len(g.Units), g.MemoryMiB)
				}
			}
			for _, c := range []struct {
				pod, unit string
				share     float64
				measured  bool
				mean      float64
			}{{"ml/train-0", "gpu-1/gpu0/ts-0", 40779.0 / 81559, true, 0.4}, {"ml/idle-0", "gpu-1/gpu1/ts-0", 0.2, true, 0.6}} {
				pd := pod(p.View(), c.pod)
				if pd == nil || len(pd.GPUs) != 1 || pd.GPUs[0].UnitID != c.unit {
					t.Fatalf("%s holds %+v; want %s", c.pod, pd, c.unit)
				}
				ref := p.Index().Units[c.unit]
				if math.Abs(ref.Unit.Fraction-c.share) > 1e-9 || cluster.Mechanism(ref.GPU, ref.Unit) != cluster.ViaHAMi {
					t.Errorf("%s: %v of the GPU via %s; want %v via hami", c.pod, ref.Unit.Fraction, cluster.Mechanism(ref.GPU, ref.Unit), c.share)
				}
				// promtest answers raw samples, not avg_over_time: by range
				// reads nothing is measured (TestBuild).
				act := pd.GPUs[0].Activity
				if got := act != nil && act.Seconds > 0; got != (c.measured && read != ReadRange) {
					t.Errorf("%s: measured %v, want %v", c.pod, got, c.measured)
				} else if got && math.Abs(act.ActiveSeconds/act.Seconds-c.mean) > 0.02 {
					t.Errorf("%s: mean activity %.3f, want %.2f", c.pod, act.ActiveSeconds/act.Seconds, c.mean)
				}
			}
			// The other nine vGPUs of each GPU share what the grants leave.
			free := p.Index().Units["gpu-1/gpu1/ts-1"].Unit.Fraction
			if math.Abs(free-0.8/9) > 1e-9 {
				t.Errorf("a free vGPU of GPU 1: %v of it, want 0.8/9", free)
			}
			monitor := false
			for _, note := range s.Notes {
				switch {
				case strings.Contains(note, "measured by HAMi's vGPU monitor"):
					monitor = strings.HasPrefix(note, "1 HAMi vGPU(s)")
				case strings.Contains(note, "HAMi"):
					t.Errorf("note %q: every grant was placed", note)
				}
			}
			if monitor != (read != ReadRange) {
				t.Errorf("notes %q: want the one vGPU the monitor measured counted", s.Notes)
			}
		})
	}
}
