package sim

import (
	"slices"
	"strings"
	"testing"

	"github.com/gpuwise/gpuwise/internal/cluster"
)

// view indexes a snapshot for the archetype checks.
type view struct {
	s     *cluster.Snapshot
	nodes map[string]*cluster.Node
	units map[string]cluster.UnitRef
}

func newView(s *cluster.Snapshot) view {
	ix := cluster.NewIndex(s)
	return view{s: s, nodes: ix.Nodes, units: ix.Units}
}

// anyPod reports whether some pod satisfies f.
func (v view) anyPod(f func(p *cluster.Pod, n *cluster.Node) bool) bool {
	for i := range v.s.Pods {
		p := &v.s.Pods[i]
		if f(p, v.nodes[p.Node]) {
			return true
		}
	}
	return false
}

func (v view) anyNode(f func(n *cluster.Node) bool) bool {
	for i := range v.s.Nodes {
		if f(&v.s.Nodes[i]) {
			return true
		}
	}
	return false
}

// meanActivity is the mean over a pod's measured holdings, or -1.
func meanActivity(p *cluster.Pod) float64 {
	var active, secs float64
	for _, h := range p.GPUs {
		if h.Activity != nil {
			active += h.Activity.ActiveSeconds
			secs += h.Activity.Seconds
		}
	}
	if secs == 0 {
		return -1
	}
	return active / secs
}

func TestDemoHasEveryArchetype(t *testing.T) {
	t.Parallel()
	for _, seed := range []uint64{1, 2, 3, 4} {
		cfg := DefaultConfig()
		cfg.Seed = seed
		s, err := Generate(cfg)
		if err != nil {
			t.Fatal(err)
		}
		for _, name := range missingArchetypes(newView(s)) {
			t.Errorf("seed %d: demo cluster lacks %s", seed, name)
		}
	}
}

// missingArchetypes names the archetypes the snapshot lacks.
func missingArchetypes(v view) []string {
	w := v.s.Window
	var missing []string
	inWindow := func(p *cluster.Pod) bool { return p.Start.After(w.Start) && !p.End.IsZero() && p.End.Before(w.End) }
	for _, tc := range []struct {
		name string
		ok   bool
	}{
		{"bursty PyTorchJob pods holding 8 H100 on p5.48xlarge", v.anyPod(func(p *cluster.Pod, n *cluster.Node) bool {
			return p.Namespace == "ml-training" && p.Owner.Kind == "PyTorchJob" && len(p.GPUs) == 8 &&
				n.InstanceType == "p5.48xlarge" && p.GPUs[0].Activity.Max > 0.8 && meanActivity(p) < 0.7
		})},
		{"training Jobs on spot capacity", v.anyPod(func(p *cluster.Pod, n *cluster.Node) bool {
			return p.Namespace == "ml-training" && p.Owner.Kind == "Job" && n.Capacity == cluster.Spot
		})},
		{"a job holding 8 GPUs that computes on one", v.anyPod(func(p *cluster.Pod, _ *cluster.Node) bool {
			return len(p.GPUs) == 8 && p.GPUs[0].Activity.Max > 0.5 && p.GPUs[7].Activity.Max < 0.1
		})},
		{"diurnal inference Deployments on one GPU", v.anyPod(func(p *cluster.Pod, _ *cluster.Node) bool {
			m := meanActivity(p)
			return p.Namespace == "inference" && p.Owner.Kind == "Deployment" && len(p.GPUs) == 1 &&
				m > 0.1 && m < 0.45 && p.GPUs[0].Activity.Max > 0.45
		})},
		{"small inference holding a whole H100 at 3-8% in under 10 GiB", v.anyPod(func(p *cluster.Pod, n *cluster.Node) bool {
			m := meanActivity(p)
			return p.Namespace == "inference" && len(p.GPUs) == 1 && n.GPUModel == "H100-80GB" &&
				m >= 0.03 && m <= 0.08 && p.GPUs[0].FramebufferMiB.Max <= 10*1024
		})},
		{"idle notebook bare pods", v.anyPod(func(p *cluster.Pod, _ *cluster.Node) bool {
			return p.Namespace == "notebooks" && p.Owner.Kind == "Pod" && meanActivity(p) < 0.05
		})},
		{"idle notebook StatefulSets", v.anyPod(func(p *cluster.Pod, _ *cluster.Node) bool {
			return p.Namespace == "notebooks" && p.Owner.Kind == "StatefulSet" && meanActivity(p) < 0.05
		})},
		{"batch CronJob pods that start and end inside the window", v.anyPod(func(p *cluster.Pod, _ *cluster.Node) bool {
			return p.Namespace == "batch" && p.Owner.Kind == "CronJob" && inWindow(p) && len(p.GPUs) > 0
		})},
		{"non-GPU pods on GPU nodes", v.anyPod(func(p *cluster.Pod, n *cluster.Node) bool {
			return (p.Namespace == "web" || p.Namespace == "logging") && p.Owner.Kind == "Deployment" && !p.RequestsGPU() && n.HasGPUs()
		})},
		{"MIG mixed-strategy node", v.anyNode(func(n *cluster.Node) bool {
			return n.MIGStrategy == "mixed" && n.Labels["nvidia.com/mig.strategy"] == "mixed"
		})},
		{"pods requesting MIG profiles", v.anyPod(func(p *cluster.Pod, _ *cluster.Node) bool {
			return p.Containers[0].GPURequests["nvidia.com/mig-3g.40gb"] == 1
		})},
		{"time-sliced dev node with 4 replicas", v.anyNode(func(n *cluster.Node) bool {
			return n.HasGPUs() && n.GPUs[0].Sharing == cluster.TimeSlicing && n.GPUs[0].Replicas == 4 && n.Labels["nvidia.com/gpu.replicas"] == "4"
		})},
		{"dev pods on time-slice replicas", v.anyPod(func(p *cluster.Pod, _ *cluster.Node) bool {
			return p.Namespace == "dev" && len(p.GPUs) == 1 && v.units[p.GPUs[0].UnitID].Unit.Kind == cluster.TimeSlice
		})},
		{"on-prem node outside the catalog", v.anyNode(func(n *cluster.Node) bool { return n.HasGPUs() && n.Cloud == "" })},
		{"Azure nodes in eastus", v.anyNode(func(n *cluster.Node) bool { return n.Cloud == "azure" && n.Region == "eastus" })},
		{"spot GPU nodes", v.anyNode(func(n *cluster.Node) bool { return n.HasGPUs() && n.Capacity == cluster.Spot })},
		{"on-demand GPU nodes", v.anyNode(func(n *cluster.Node) bool { return n.HasGPUs() && n.Capacity == cluster.OnDemand })},
		{"tainted GPU nodes", v.anyNode(func(n *cluster.Node) bool { return n.HasGPUs() && len(n.Taints) > 0 })},
		{"untainted GPU nodes", v.anyNode(func(n *cluster.Node) bool { return n.HasGPUs() && len(n.Taints) == 0 })},
		{"a GPU node created and deleted mid-window", v.anyNode(func(n *cluster.Node) bool {
			return n.HasGPUs() && n.Created.After(w.Start) && n.Deleted.Before(w.End) && !n.Deleted.IsZero()
		})},
		{"unmeasured GPU pods", v.anyPod(func(p *cluster.Pod, _ *cluster.Node) bool { return len(p.GPUs) > 0 && p.GPUs[0].Activity == nil })},
		{"pods labelled with a team", v.anyPod(func(p *cluster.Pod, _ *cluster.Node) bool { return p.Labels["team"] != "" })},
		{"GPU pods without a team label", v.anyPod(func(p *cluster.Pod, _ *cluster.Node) bool { return p.RequestsGPU() && p.Labels["team"] == "" })},
		{"round-number requests of 4 CPU and 16Gi", v.anyPod(func(p *cluster.Pod, _ *cluster.Node) bool {
			return p.Containers[0].CPURequestMilli == 4000 && p.Containers[0].MemoryRequest == 16<<30
		})},
		{"OOM-killed pods", v.anyPod(func(p *cluster.Pod, _ *cluster.Node) bool { return p.OOMKills > 0 })},
	} {
		if !tc.ok {
			missing = append(missing, tc.name)
		}
	}
	return missing
}

func TestAgentsRunOnEveryGPUNode(t *testing.T) {
	t.Parallel()
	v := newView(demoSnapshot(t))
	agents := map[string]int{}
	for _, p := range v.s.Pods {
		if p.Namespace == "gpu-operator" && p.Owner.Kind == "DaemonSet" && !p.RequestsGPU() {
			agents[p.Node]++
		}
	}
	for _, n := range v.s.Nodes {
		// The NVIDIA GPU operator's agents (on a DRA node its DRA kubelet
		// plugin in place of the device plugin; on a HAMi node only
		// dcgm-exporter, HAMi's device plugin being HAMi's); the AMD and
		// Neuron nodes run none of them.
		nvidia := n.HasGPUs() && n.Vendor() == cluster.VendorNVIDIA
		want := map[bool]int{true: 2}[nvidia]
		if nvidia && n.GPUs[0].Sharing == cluster.HAMi {
			want = 1
		}
		if got := agents[n.Name]; got != want {
			t.Errorf("node %s runs %d gpu-operator agents, want %d", n.Name, got, want)
		}
	}
}

func TestPodsHoldWhatTheyRequest(t *testing.T) {
	t.Parallel()
	v := newView(demoSnapshot(t))
	for _, p := range v.s.Pods {
		var want int64
		var resource string
		for _, c := range p.Containers {
			for r, n := range c.GPURequests {
				want, resource = want+n, r
			}
		}
		if len(p.Claims) > 0 {
			want = int64(len(p.GPUs)) // a DRA pod requests no extended resource
			if resource != "" {
				t.Errorf("pod %s holds its GPUs through claims %v but requests %s", p.Key(), p.Claims, resource)
			}
		}
		if int64(len(p.GPUs)) != want {
			t.Errorf("pod %s requests %d GPU units but holds %d", p.Key(), want, len(p.GPUs))
		}
		for _, h := range p.GPUs {
			u := v.units[h.UnitID].Unit
			ok := false
			switch {
			case len(p.Claims) > 0: // DRA: held through the claim, nothing requested
				ok = v.units[h.UnitID].GPU.Allocator == cluster.DRA && slices.Contains(p.Claims, u.Claim)
			case resource == gpuResource && v.units[h.UnitID].GPU.Sharing == cluster.HAMi:
				ok = u.Kind == cluster.TimeSlice // a HAMi vGPU, counted as nvidia.com/gpu
			case resource == gpuResource:
				ok = u.Kind == cluster.WholeGPU
			case resource == sharedResource:
				ok = u.Kind == cluster.TimeSlice
			case resource == cluster.ResAMDGPU || resource == cluster.ResNeuron:
				ok = u.Kind == cluster.WholeGPU && cluster.ResourceVendor(resource) == cluster.ModelVendor(v.units[h.UnitID].GPU.Model)
			case strings.HasPrefix(resource, "nvidia.com/mig-"):
				ok = u.Kind == cluster.MIGSlice && "nvidia.com/mig-"+u.Profile == resource
			}
			if !ok {
				t.Errorf("pod %s requests %s but holds %s unit %s", p.Key(), resource, u.Kind, u.ID)
			}
		}
	}
}
