package promtest

import (
	"math"
	"time"
)

// Window is the window of Cluster's history: two days from 2026-11-01.
var Window = struct{ Start, End time.Time }{
	Start: time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC),
	End:   time.Date(2026, 11, 3, 0, 0, 0, 0, time.UTC),
}

// Cluster is a small cluster's history over Window, one sample every 5
// minutes (kube-state-metrics' every 30): node gpu-1 (AWS p5.48xlarge, 2
// H100 GPUs, DCGM exporter up) and node cpu-1; pod ml/train-0 holding
// gpu-1's GPU 0 (measured, 40% busy), pod ml/idle-0 requesting one GPU on
// gpu-1 with no DCGM series (unmeasured, on the free GPU 1), and pod
// web/api-0 on cpu-1 without GPUs; requests, limits, owners, labels and
// cAdvisor usage for every container.
func Cluster() []Series {
	start, end := Window.Start, Window.End
	var out []Series
	add := func(labels map[string]string, step time.Duration, v func(time.Time) float64) {
		out = append(out, Series{Labels: labels, Samples: every(start, end, step, v)})
	}
	fact := func(name string, l map[string]string, v float64) {
		l["__name__"] = name
		add(l, 30*time.Minute, constant(v))
	}
	nodes(fact)
	pods(fact)
	busy := func(t time.Time) float64 { return 0.4 + 0.1*math.Sin(float64(t.Unix())/3600) }
	add(map[string]string{"__name__": "DCGM_FI_PROF_GR_ENGINE_ACTIVE", "Hostname": "gpu-1", "gpu": "0", "UUID": "GPU-0",
		"modelName": "NVIDIA H100 80GB HBM3", "pod": "train-0", "namespace": "ml", "container": "main"}, 5*time.Minute, busy)
	add(map[string]string{"__name__": "DCGM_FI_PROF_GR_ENGINE_ACTIVE", "Hostname": "gpu-1", "gpu": "1", "UUID": "GPU-1",
		"modelName": "NVIDIA H100 80GB HBM3"}, 5*time.Minute, constant(0))
	for _, c := range []struct{ node, ns, pod string }{{"gpu-1", "ml", "train-0"}, {"gpu-1", "ml", "idle-0"}, {"cpu-1", "web", "api-0"}} {
		l := map[string]string{"node": c.node, "namespace": c.ns, "pod": c.pod, "container": "main"}
		add(with(l, "__name__", "container_memory_working_set_bytes"), 5*time.Minute, constant(2<<30))
		add(with(l, "__name__", "container_cpu_usage_seconds_total"), 5*time.Minute,
			func(t time.Time) float64 { return 0.5 * t.Sub(start).Seconds() })
	}
	return out
}

func with(l map[string]string, k, v string) map[string]string {
	out := map[string]string{k: v}
	for a, b := range l {
		out[a] = b
	}
	return out
}

func nodes(fact func(string, map[string]string, float64)) {
	fact("kube_node_info", map[string]string{"node": "gpu-1", "provider_id": "aws:///us-east-1a/i-1"}, 1)
	fact("kube_node_info", map[string]string{"node": "cpu-1", "provider_id": "aws:///us-east-1a/i-2"}, 1)
	fact("kube_node_labels", map[string]string{"node": "gpu-1", "label_node_kubernetes_io_instance_type": "p5.48xlarge",
		"label_topology_kubernetes_io_region": "us-east-1", "label_nvidia_com_gpu_product": "NVIDIA-H100-80GB-HBM3",
		"label_nvidia_com_gpu_count": "2", "label_nvidia_com_gpu_memory": "81559"}, 1)
	fact("kube_node_labels", map[string]string{"node": "cpu-1", "label_node_kubernetes_io_instance_type": "m7i.4xlarge",
		"label_topology_kubernetes_io_region": "us-east-1"}, 1)
	for _, n := range []string{"gpu-1", "cpu-1"} {
		fact("kube_node_status_allocatable", map[string]string{"node": n, "resource": "cpu"}, 16)
		fact("kube_node_status_allocatable", map[string]string{"node": n, "resource": "memory"}, 64<<30)
		fact("kube_node_created", map[string]string{"node": n}, float64(Window.Start.Add(-24*time.Hour).Unix()))
	}
}

func pods(fact func(string, map[string]string, float64)) {
	for _, p := range []struct {
		node, ns, name, rs string
		gpus               float64
	}{{"gpu-1", "ml", "train-0", "train-6f9c", 1}, {"gpu-1", "ml", "idle-0", "idle-7a1b", 1}, {"cpu-1", "web", "api-0", "api-5d2e", 0}} {
		id := map[string]string{"namespace": p.ns, "pod": p.name}
		fact("kube_pod_info", with(with(id, "node", p.node), "uid", "uid-"+p.name), 1)
		fact("kube_pod_owner", with(with(id, "owner_kind", "ReplicaSet"), "owner_name", p.rs), 1)
		fact("kube_replicaset_owner", map[string]string{"namespace": p.ns, "replicaset": p.rs, "owner_kind": "Deployment", "owner_name": p.rs[:len(p.rs)-5]}, 1)
		fact("kube_pod_labels", with(id, "label_team", p.ns), 1)
		fact("kube_pod_start_time", id, float64(Window.Start.Add(-time.Hour).Unix()))
		ctr := with(id, "container", "main")
		fact("kube_pod_container_resource_requests", with(ctr, "resource", "cpu"), 2)
		fact("kube_pod_container_resource_requests", with(ctr, "resource", "memory"), 8<<30)
		fact("kube_pod_container_resource_limits", with(ctr, "resource", "memory"), 8<<30)
		if p.gpus > 0 {
			fact("kube_pod_container_resource_requests", with(ctr, "resource", "nvidia_com_gpu"), p.gpus)
			fact("kube_pod_container_resource_limits", with(ctr, "resource", "nvidia_com_gpu"), p.gpus)
		}
		fact("kube_pod_container_status_restarts_total", ctr, 0)
	}
}
