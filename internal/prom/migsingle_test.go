package prom

import (
	"errors"
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/gpuwise/gpuwise/internal/cluster"
	"github.com/gpuwise/gpuwise/internal/prom/promtest"
	"github.com/gpuwise/gpuwise/internal/prom/wire"
)

// singleMIGCluster is promtest.Cluster with gpu-1 made a p4d.24xlarge
// (8 × A100-SXM4-40GB) of the MIG "single" strategy, every GPU cut
// into seven 1g.5gb devices: the device plugin advertises the 56 devices
// as nvidia.com/gpu, GPU feature discovery labels the product
// NVIDIA-A100-SXM4-40GB-MIG-1g.5gb with gpu.count 56 and gpu.memory
// 4864 (one device's MiB) and nvidia.com/mig.strategy=single
// (../shared/reference/gpu-formats.md §1, §2.3). dcgm-exporter shows one
// series per MIG instance (GPU_I_PROFILE, GPU_I_ID 7-13 on each GPU);
// train-0 (one nvidia.com/gpu) runs on GPU 0's instance 7, idle-0 (one
// nvidia.com/gpu) has no DCGM series.
func singleMIGCluster() []promtest.Series {
	ss := promtest.Cluster()
	out := ss[:0]
	var tmpl promtest.Series
	for _, s := range ss {
		l := s.Labels
		switch {
		case strings.HasPrefix(l["__name__"], "DCGM_"):
			tmpl = s
			continue // replaced below
		case l["__name__"] == "kube_node_labels" && l["node"] == "gpu-1":
			l["label_node_kubernetes_io_instance_type"] = "p4d.24xlarge"
			l["label_nvidia_com_gpu_product"] = "NVIDIA-A100-SXM4-40GB-MIG-1g.5gb"
			l["label_nvidia_com_gpu_count"] = "56"
			l["label_nvidia_com_gpu_memory"] = "4864"
			l["label_nvidia_com_mig_strategy"] = "single"
		}
		out = append(out, s)
	}
	alloc := promtest.Series{Labels: map[string]string{"__name__": "kube_node_status_allocatable", "node": "gpu-1", "resource": "nvidia_com_gpu"}}
	for _, x := range out[0].Samples {
		alloc.Samples = append(alloc.Samples, wire.Sample{T: x.T, V: 56})
	}
	out = append(out, alloc)
	for gpu := range 8 {
		for gi := 7; gi <= 13; gi++ {
			l := map[string]string{"__name__": "DCGM_FI_PROF_GR_ENGINE_ACTIVE", "Hostname": "gpu-1", "gpu": fmt.Sprint(gpu),
				"UUID": fmt.Sprintf("GPU-%d", gpu), "modelName": "NVIDIA A100-SXM4-40GB", "GPU_I_PROFILE": "1g.5gb", "GPU_I_ID": fmt.Sprint(gi)}
			xs := make([]wire.Sample, len(tmpl.Samples))
			for i, x := range tmpl.Samples {
				xs[i] = wire.Sample{T: x.T, V: 0}
			}
			if gpu == 0 && gi == 7 {
				l["pod"], l["namespace"], l["container"] = "train-0", "ml", "main"
				copy(xs, tmpl.Samples) // train-0's activity, 0.4 ± 0.1
			}
			out = append(out, promtest.Series{Labels: l, Samples: xs})
		}
	}
	return out
}

// TestMIGSingleStrategy (issue 31): a node of the MIG single strategy is
// 8 A100-40GB GPUs of seven 1g.5gb slices each, with DCGM (its layout)
// and without it (laid out from the inventory: 56 devices advertised as
// nvidia.com/gpu fill 8 GPUs), never 56 whole GPUs; each pod's one
// nvidia.com/gpu is one slice: max(1/7 compute, 1/8 memory) = 1/7 of a
// GPU, billed as such. Hand-computed over the 48-hour window: the node
// has 8 × 48 = 384 GPU-hours, the two pods hold 2 × 48/7 = 96/7 of them
// (before, 56 whole GPUs: 2,688 GPU-hours, 96 held).
func TestMIGSingleStrategy(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name    string
		edit    func([]promtest.Series) []promtest.Series
		partial bool
	}{{"with DCGM", nil, false}, {"without DCGM", dropPrefix("DCGM_"), true}} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			srv := promtest.New(t, singleMIGCluster())
			if c.edit != nil {
				srv.Edit(c.edit)
			}
			s, err := buildFrom(t, srv, ReadRemote)
			var pe *PartialError
			if c.partial != (errors.As(err, &pe) && s != nil) || !c.partial && err != nil {
				t.Fatalf("Build: %v; partial %v wanted", err, c.partial)
			}
			var node *cluster.Node
			for i := range s.Nodes {
				if s.Nodes[i].Name == "gpu-1" {
					node = &s.Nodes[i]
				}
			}
			if node == nil {
				t.Fatal("no node gpu-1")
			}
			if node.MIGStrategy != "single" || node.GPUModel != "A100-40GB" || len(node.GPUs) != 8 {
				t.Fatalf("gpu-1: %d %s GPU(s), MIG strategy %q; want 8 A100-40GB GPUs, single", len(node.GPUs), node.GPUModel, node.MIGStrategy)
			}
			for _, g := range node.GPUs {
				if g.Sharing != cluster.MIG || g.MemoryMiB != 40960 || len(g.Units) != 7 {
					t.Fatalf("GPU %d: %s, %d MiB, %d units; want MIG, 40960 MiB, 7 slices", g.Index, g.Sharing, g.MemoryMiB, len(g.Units))
				}
				for _, u := range g.Units {
					if u.Kind != cluster.MIGSlice || u.Profile != "1g.5gb" || u.ComputeSlices != 1 || u.MemorySlices != 1 {
						t.Errorf("GPU %d unit %+v; want a 1g.5gb slice", g.Index, u)
					}
				}
			}
			share := heldShare(t, s)
			for _, k := range []string{"ml/train-0", "ml/idle-0"} {
				if math.Abs(share[k]-1.0/7) > 1e-12 {
					t.Errorf("%s holds %.4f of a GPU; want one 1g.5gb slice, 1/7", k, share[k])
				}
			}
			p, err := cluster.Prepare(s)
			if err != nil {
				t.Fatal(err)
			}
			hours := promtest.Window.End.Sub(promtest.Window.Start).Hours()
			var gpuHours, held float64
			for _, n := range p.Nodes() {
				if n.Name == "gpu-1" {
					gpuHours = float64(len(n.GPUs)) * hours
				}
			}
			for _, pod := range p.Pods() {
				for _, h := range pod.GPUs {
					held += p.Index().Units[h.UnitID].Unit.Fraction * hours
				}
			}
			if hours != 48 || gpuHours != 384 || math.Abs(held-96.0/7) > 1e-9 {
				t.Errorf("%.0f h: %.2f GPU-hours, %.4f held; want 48 h, 384 and 96/7", hours, gpuHours, held)
			}
			train := pod(s, "ml/train-0")
			measured := len(train.GPUs) == 1 && train.GPUs[0].Activity != nil && train.GPUs[0].Activity.Seconds > 0
			if measured != !c.partial || len(train.GPUs) == 1 && train.GPUs[0].UnitID != "gpu-1/gpu0/mig-1g.5gb-7" && !c.partial {
				t.Errorf("train-0 holds %+v; want gpu-1/gpu0/mig-1g.5gb-7, measured only with DCGM", train.GPUs)
			}
		})
	}
}
