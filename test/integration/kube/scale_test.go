//go:build integration && kubescale

package kube

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/gpuwise/gpuwise/internal/snapshot"
)

// TestCollectScale times `gpuwise collect` (the built binary, under
// /usr/bin/time) on GPUWISE_KUBE_SCALE="NODESxPODS" KWOK GPU nodes and
// pods (default 1000x20000). It is a benchmark, built only with the
// kubescale tag: `make bench-kube` runs it, the integration tier does not.
// Pods are bound by spec.nodeName: this measures reading, not scheduling.
func TestCollectScale(t *testing.T) {
	spec := os.Getenv("GPUWISE_KUBE_SCALE")
	if spec == "" {
		spec = "1000x20000"
	}
	nNodes, nPods := parseScale(t, spec)
	cs, _ := admin(t)
	ctx := context.Background()
	if _, err := cs.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "scale"}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	began := time.Now()
	parallel(t, nNodes, func(i int) error {
		n := kwokNode(fmt.Sprintf("gpu-%04d", i), awsLabels("p5.48xlarge", "on-demand",
			"nvidia.com/gpu.product", "NVIDIA-H100-80GB-HBM3", "nvidia.com/gpu.count", "8"),
			[]corev1.Taint{gpuTaint}, fmt.Sprintf("aws:///us-east-1a/i-%04d", i),
			"cpu", "192", "memory", "2048Gi", "nvidia.com/gpu", "8")
		_, err := cs.CoreV1().Nodes().Create(ctx, n, metav1.CreateOptions{})
		return err
	})
	t.Logf("%d nodes created in %.1fs", nNodes, time.Since(began).Seconds())
	began = time.Now()
	parallel(t, nPods, func(i int) error { return createScalePod(ctx, cs, i, nNodes) })
	t.Logf("%d pods created in %.1fs", nPods, time.Since(began).Seconds())

	bin := filepath.Join(t.TempDir(), "gpuwise")
	if out, err := exec.Command("go", "build", "-o", bin, "../../../cmd/gpuwise").CombinedOutput(); err != nil {
		t.Fatalf("building gpuwise: %v\n%s", err, out)
	}
	snap := filepath.Join(t.TempDir(), "snap.json.gz")
	cmd := exec.Command("/usr/bin/time", "-f", "wall=%e maxrss_kb=%M", bin, "collect",
		"--kubeconfig", os.Getenv("GPUWISE_TEST_KUBECONFIG"), "-o", snap)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("collect: %v\n%s", err, stderr.String())
	}
	t.Logf("collect of %d nodes, %d pods: %s", nNodes, nPods, strings.TrimSpace(stderr.String()))
	s, err := snapshot.ReadFile(snap)
	if err != nil {
		t.Fatal(err)
	}
	st, _ := os.Stat(snap)
	held := 0
	for _, p := range s.Pods {
		held += len(p.GPUs)
	}
	t.Logf("snapshot: %d nodes, %d pods, %d GPU units held, %d bytes gzip", len(s.Nodes), len(s.Pods), held, st.Size())
	if len(s.Nodes) != nNodes || len(s.Pods) != nPods {
		t.Errorf("snapshot has %d nodes and %d pods, want %d and %d", len(s.Nodes), len(s.Pods), nNodes, nPods)
	}
}

func parseScale(t *testing.T, spec string) (int, int) {
	a, b, ok := strings.Cut(spec, "x")
	n, err1 := strconv.Atoi(a)
	p, err2 := strconv.Atoi(b)
	if !ok || err1 != nil || err2 != nil || n < 1 || p < 0 {
		t.Fatalf("GPUWISE_KUBE_SCALE=%q: want NODESxPODS, e.g. 1000x20000", spec)
	}
	return n, p
}

// createScalePod binds pod i to node i mod nodes. Pods of the first 6 of
// every 20 rounds take one GPU (at most 6 of a node's 8 GPUs at 20 pods
// per node), the rest are CPU-only of the same shape.
func createScalePod(ctx context.Context, cs *kubernetes.Clientset, i, nodes int) error {
	no := false
	limits := corev1.ResourceList{"cpu": resource.MustParse("2"), "memory": resource.MustParse("8Gi")}
	if (i/nodes)%20 < 6 {
		limits["nvidia.com/gpu"] = resource.MustParse("1")
	}
	p := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "scale", Name: fmt.Sprintf("p-%05d", i)},
		Spec: corev1.PodSpec{NodeName: fmt.Sprintf("gpu-%04d", i%nodes), AutomountServiceAccountToken: &no,
			Tolerations: []corev1.Toleration{{Key: "nvidia.com/gpu", Operator: corev1.TolerationOpExists}},
			Containers: []corev1.Container{{Name: "main", Image: "registry.invalid/app:1",
				Resources: corev1.ResourceRequirements{Limits: limits, Requests: limits}}}}}
	_, err := cs.CoreV1().Pods("scale").Create(ctx, p, metav1.CreateOptions{})
	return err
}

// parallel runs fn(0..n-1) on 16 workers and fails on the first error.
func parallel(t *testing.T, n int, fn func(int) error) {
	t.Helper()
	var wg sync.WaitGroup
	var once sync.Once
	var firstErr error
	next := make(chan int)
	for range 16 {
		wg.Go(func() {
			for i := range next {
				if err := fn(i); err != nil {
					once.Do(func() { firstErr = err })
				}
			}
		})
	}
	for i := range n {
		next <- i
	}
	close(next)
	wg.Wait()
	if firstErr != nil {
		t.Fatal(firstErr)
	}
}
