// driver creates compliant bench pods one at a time for -dur and prints
// creates, wall per create and the API server's CPU per create.
package main

import (
	"bufio"
	"context"
	"flag"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"
	"k8s.io/client-go/util/flowcontrol"
)

func cpu(ctx context.Context, cs *kubernetes.Clientset) float64 {
	body, err := cs.CoreV1().RESTClient().Get().AbsPath("/metrics").DoRaw(ctx)
	if err != nil {
		panic(err)
	}
	sc := bufio.NewScanner(strings.NewReader(string(body)))
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), "process_cpu_seconds_total "); ok {
			f, _ := strconv.ParseFloat(v, 64)
			return f
		}
	}
	return 0
}

func main() {
	dur := flag.Duration("dur", 20*time.Second, "")
	kind := flag.String("kind", "gpu", "")
	prefix := flag.String("prefix", "p", "")
	flag.Parse()
	cfg, err := clientcmd.BuildConfigFromFlags("", os.Getenv("KUBECONFIG"))
	if err != nil {
		panic(err)
	}
	cfg.RateLimiter = flowcontrol.NewFakeAlwaysRateLimiter()
	cs := kubernetes.NewForConfigOrDie(cfg)
	ctx := context.Background()
	c0 := cpu(ctx, cs)
	start := time.Now()
	n := 0
	for time.Since(start) < *dur {
		p := pod(*kind, fmt.Sprintf("%s-%06d", *prefix, n))
		if _, err := cs.CoreV1().Pods("bench-adm").Create(ctx, p, metav1.CreateOptions{}); err != nil {
			panic(err)
		}
		n++
	}
	wall := time.Since(start)
	c1 := cpu(ctx, cs)
	fmt.Printf("creates %d wall/create %.3f ms apiserver cpu/create %.3f ms\n", n, float64(wall.Microseconds())/1000/float64(n), (c1-c0)*1000/float64(n))
}

func pod(kind, name string) *corev1.Pod {
	mq := resource.MustParse
	lim := corev1.ResourceList{"nvidia.com/gpu": mq("1"), "cpu": mq("1"), "memory": mq("1Gi")}
	tol := []corev1.Toleration{{Key: "nvidia.com/gpu", Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoSchedule}}
	if kind == "cpu" {
		delete(lim, "nvidia.com/gpu")
		tol = nil
	}
	no := false
	return &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "bench-adm", Labels: map[string]string{"team": "ml"}},
		Spec: corev1.PodSpec{AutomountServiceAccountToken: &no, SchedulerName: "gpuwise-bench-none", Tolerations: tol,
			Containers: []corev1.Container{{Name: "main", Image: "registry.invalid/app:1", Resources: corev1.ResourceRequirements{Limits: lim}}}}}
}
