package kube

import (
	"context"
	"fmt"
	"os"
	"runtime"
	"runtime/pprof"
	"strconv"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes/fake"
)

// benchPods is the pod count of BenchmarkWatcher
// (GPUWISE_WATCH_BENCH_PODS, default 5,000; make bench-serve: 50,000 on
// 1,250 8-GPU nodes).
func benchPods() int {
	if n, err := strconv.Atoi(os.Getenv("GPUWISE_WATCH_BENCH_PODS")); err == nil && n > 0 {
		return n
	}
	return 5000
}

// realisticPod carries what real pods carry and the snapshot does not
// read: env, volumes, annotations, managed fields, conditions, images.
func realisticPod(i, nodes int) *corev1.Pod {
	p := pod(fmt.Sprintf("ns-%d", i%50), fmt.Sprintf("pod-%d", i), fmt.Sprintf("node-%d", i%nodes), t0, "cpu", "4", "memory", "16Gi")
	if i%4 == 0 {
		p.Spec.Containers[0].Resources.Limits["nvidia.com/gpu"] = p.Spec.Containers[0].Resources.Limits["cpu"]
	}
	p.UID = types.UID(fmt.Sprintf("uid-%08d", i))
	p.Labels = map[string]string{"app": fmt.Sprintf("app-%d", i%500), "team": "ml", "pod-template-hash": "7d9f8c6b5"}
	p.Annotations = map[string]string{"kubectl.kubernetes.io/restartedAt": "2026-11-01T00:00:00Z", "prometheus.io/scrape": "true"}
	p.ManagedFields = []metav1.ManagedFieldsEntry{{Manager: "kube-controller-manager", Operation: "Update", FieldsV1: &metav1.FieldsV1{Raw: make([]byte, 1200)}}}
	c := &p.Spec.Containers[0]
	c.Image = "registry.example.com/team/train:2026.11.01"
	for k := range 12 {
		c.Env = append(c.Env, corev1.EnvVar{Name: fmt.Sprintf("ENV_VAR_%d", k), Value: "some-configuration-value"})
	}
	c.VolumeMounts = []corev1.VolumeMount{{Name: "data", MountPath: "/data"}, {Name: "kube-api-access", MountPath: "/var/run/secrets"}}
	p.Spec.Volumes = []corev1.Volume{{Name: "data"}, {Name: "kube-api-access"}}
	p.Status.Conditions = []corev1.PodCondition{{Type: corev1.PodReady, Status: corev1.ConditionTrue}, {Type: corev1.PodScheduled, Status: corev1.ConditionTrue}}
	p.Status.ContainerStatuses = []corev1.ContainerStatus{{Name: "main", Ready: true, Image: c.Image, ImageID: "sha256:0123456789abcdef"}}
	return p
}

func heapMiB() float64 {
	runtime.GC()
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return float64(ms.HeapInuse) / (1 << 20)
}

// BenchmarkWatcher: the informers' caches of a large cluster (stripped
// objects) and one snapshot from them. Reported: the heap the watcher
// adds over the fake API server's own objects, and a snapshot's time.
func BenchmarkWatcher(b *testing.B) {
	pods, nodes := benchPods(), max(benchPods()/40, 1)
	cs := fake.NewClientset()
	for i := range nodes {
		n := node(fmt.Sprintf("node-%d", i), map[string]string{lblProduct: "NVIDIA-H100-80GB-HBM3", lblCount: "8"},
			"cpu", "192", "memory", "2Ti", "nvidia.com/gpu", "8")
		cs.Tracker().Create(schema.GroupVersionResource{Version: "v1", Resource: "nodes"}, n, "")
	}
	for i := range pods {
		p := realisticPod(i, nodes)
		cs.Tracker().Create(schema.GroupVersionResource{Version: "v1", Resource: "pods"}, p, p.Namespace)
	}
	base := heapMiB()
	clk := &clock{}
	clk.set(t0.Add(24 * time.Hour))
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	w, err := (&Client{Interface: cs, Server: "fake", Source: "bench"}).Watch(ctx, clk.now)
	if err != nil {
		b.Fatal(err)
	}
	defer w.Stop()
	cached := heapMiB() - base
	if p := os.Getenv("GPUWISE_WATCH_HEAP_PROFILE"); p != "" {
		if f, err := os.Create(p); err == nil {
			pprof.WriteHeapProfile(f)
			f.Close()
		}
	}
	b.ResetTimer()
	for range b.N {
		if _, err := w.Snapshot(clk.now(), 24*time.Hour); err != nil {
			b.Fatal(err)
		}
	}
	b.StopTimer()
	b.ReportMetric(float64(pods), "pods")
	b.ReportMetric(cached, "cache-MiB")
}
