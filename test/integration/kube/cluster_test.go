//go:build integration

package kube

import (
	"context"
	"fmt"
	"os"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
)

// admin connects with the control plane's admin kubeconfig.
func admin(t *testing.T) (*kubernetes.Clientset, *rest.Config) {
	t.Helper()
	path := os.Getenv("GPUWISE_TEST_KUBECONFIG")
	if path == "" {
		t.Fatal("GPUWISE_TEST_KUBECONFIG is unset: run `make integration-kube`, which starts the control plane")
	}
	cfg, err := clientcmd.BuildConfigFromFlags("", path)
	if err != nil {
		t.Fatal(err)
	}
	cfg.QPS, cfg.Burst = 200, 400
	cs, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return cs, cfg
}

var gpuTaint = corev1.Taint{Key: "nvidia.com/gpu", Value: "present", Effect: corev1.TaintEffectNoSchedule}

// kwokNode is a fake node KWOK keeps Ready, with labels, taints and
// allocatable resources as "name", "quantity" pairs.
func kwokNode(name string, labels map[string]string, taints []corev1.Taint, providerID string, res ...string) *corev1.Node {
	labels["kubernetes.io/hostname"] = name
	labels["type"] = "kwok"
	n := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: labels,
		Annotations: map[string]string{"kwok.x-k8s.io/node": "fake"}}}
	n.Spec.Taints, n.Spec.ProviderID = taints, providerID
	l := corev1.ResourceList{"pods": resource.MustParse("110")}
	for i := 0; i+1 < len(res); i += 2 {
		l[corev1.ResourceName(res[i])] = resource.MustParse(res[i+1])
	}
	n.Status.Capacity, n.Status.Allocatable = l, l
	return n
}

func awsLabels(instance, capacity string, extra ...string) map[string]string {
	l := map[string]string{"topology.kubernetes.io/region": "us-east-1", "topology.kubernetes.io/zone": "us-east-1a",
		"node.kubernetes.io/instance-type": instance, "karpenter.sh/capacity-type": capacity}
	for i := 0; i+1 < len(extra); i += 2 {
		l[extra[i]] = extra[i+1]
	}
	return l
}

func nodes() []*corev1.Node {
	var ns []*corev1.Node
	for i := range 2 {
		name := fmt.Sprintf("h100-%d", i)
		ns = append(ns, kwokNode(name, awsLabels("p5.48xlarge", "on-demand",
			"nvidia.com/gpu.product", "NVIDIA-H100-80GB-HBM3", "nvidia.com/gpu.memory", "81559", "nvidia.com/gpu.count", "8"),
			[]corev1.Taint{gpuTaint}, "aws:///us-east-1a/i-"+name,
			"cpu", "192", "memory", "2048Gi", "nvidia.com/gpu", "8"))
	}
	ns = append(ns, kwokNode("a100-mig", awsLabels("p4de.24xlarge", "spot",
		"nvidia.com/gpu.product", "NVIDIA-A100-SXM4-80GB", "nvidia.com/gpu.memory", "81920", "nvidia.com/gpu.count", "2",
		"nvidia.com/mig.strategy", "mixed", "nvidia.com/mig.config", "custom-a100", "nvidia.com/mig.config.state", "failed"),
		[]corev1.Taint{gpuTaint}, "aws:///us-east-1a/i-a100",
		"cpu", "96", "memory", "1152Gi", "nvidia.com/mig-3g.40gb", "2", "nvidia.com/mig-1g.10gb", "7"))
	// Time-sliced L4 without a taint, in a pool web pods also select.
	ns = append(ns, kwokNode("l4-ts", awsLabels("g6.xlarge", "on-demand", "pool", "shared",
		"nvidia.com/gpu.product", "NVIDIA-L4", "nvidia.com/gpu.memory", "23034", "nvidia.com/gpu.count", "1",
		"nvidia.com/gpu.replicas", "4", "nvidia.com/gpu.sharing-strategy", "time-slicing"),
		nil, "aws:///us-east-1a/i-l4ts", "cpu", "4", "memory", "16Gi", "nvidia.com/gpu.shared", "4"))
	// Time-slicing switched on with one replica: shares nothing.
	ns = append(ns, kwokNode("l4-one", awsLabels("g6.xlarge", "on-demand",
		"nvidia.com/gpu.product", "NVIDIA-L4", "nvidia.com/gpu.count", "1",
		"nvidia.com/gpu.replicas", "1", "nvidia.com/gpu.sharing-strategy", "time-slicing"),
		[]corev1.Taint{gpuTaint}, "aws:///us-east-1a/i-l4one", "cpu", "4", "memory", "16Gi", "nvidia.com/gpu", "1"))
	for i := range 2 {
		ns = append(ns, kwokNode(fmt.Sprintf("cpu-%d", i), awsLabels("m5.4xlarge", "on-demand"), nil,
			fmt.Sprintf("aws:///us-east-1a/i-cpu%d", i), "cpu", "16", "memory", "64Gi"))
	}
	return ns
}

// podSpec is one container with requests and limits ("name", "qty" pairs;
// limits nil means none).
func podSpec(requests, limits []string, sel map[string]string, tolerate bool) corev1.PodSpec {
	list := func(pairs []string) corev1.ResourceList {
		if pairs == nil {
			return nil
		}
		l := corev1.ResourceList{}
		for i := 0; i+1 < len(pairs); i += 2 {
			l[corev1.ResourceName(pairs[i])] = resource.MustParse(pairs[i+1])
		}
		return l
	}
	no := false
	s := corev1.PodSpec{NodeSelector: sel, AutomountServiceAccountToken: &no,
		Containers: []corev1.Container{{Name: "main", Image: "registry.invalid/app:1",
			Resources: corev1.ResourceRequirements{Requests: list(requests), Limits: list(limits)}}}}
	if tolerate {
		s.Tolerations = []corev1.Toleration{{Key: "nvidia.com/gpu", Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoSchedule}}
	}
	return s
}

func deployment(ns, name string, replicas int32, spec corev1.PodSpec) *appsv1.Deployment {
	labels := map[string]string{"app": name}
	return &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name},
		Spec: appsv1.DeploymentSpec{Replicas: &replicas, Selector: &metav1.LabelSelector{MatchLabels: labels},
			Template: corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: labels}, Spec: spec}}}
}

func job(ns, name string, spec corev1.PodSpec) *batchv1.Job {
	spec.RestartPolicy = corev1.RestartPolicyNever
	return &batchv1.Job{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name},
		Spec: batchv1.JobSpec{Template: corev1.PodTemplateSpec{Spec: spec}}}
}

var (
	h100Sel = map[string]string{"nvidia.com/gpu.product": "NVIDIA-H100-80GB-HBM3"}
	l4Sel   = map[string]string{"nvidia.com/gpu.product": "NVIDIA-L4"}
)

// workloads: what a real GPU cluster accumulates, one fault each.
func workloads() ([]*appsv1.Deployment, []*batchv1.Job) {
	guaranteed := func(gpuRes, gpus string) ([]string, []string) {
		r := []string{"cpu", "8", "memory", "64Gi", gpuRes, gpus}
		return r, r
	}
	trainReq, trainLim := guaranteed("nvidia.com/gpu", "4")
	nbReq, nbLim := []string{"cpu", "1500m", "memory", "6000Mi", "nvidia.com/gpu", "1"}, []string{"cpu", "1500m", "memory", "6000Mi", "nvidia.com/gpu", "1"}
	deps := []*appsv1.Deployment{
		// Round 8 CPU / 64Gi requests: info.
		deployment("ml", "train", 2, podSpec(trainReq, trainLim, h100Sel, true)),
		// No toleration: stays Pending on the tainted H100 pool.
		deployment("ml", "no-toleration", 1, podSpec([]string{"cpu", "1500m", "memory", "3000Mi", "nvidia.com/gpu", "1"},
			[]string{"cpu", "1500m", "memory", "3000Mi", "nvidia.com/gpu", "1"}, h100Sel, false)),
		// MIG slice, no CPU/memory limits, no model selector.
		deployment("ml", "serve", 1, podSpec([]string{"cpu", "1500m", "memory", "6000Mi"},
			[]string{"nvidia.com/mig-3g.40gb", "1"}, nil, true)),
		// A whole H100 for a notebook.
		deployment("team-notebooks", "nb", 1, podSpec(nbReq, nbLim, h100Sel, true)),
		// A web app pinned to the shared pool, i.e. onto the L4 GPU node.
		deployment("shop", "web", 1, podSpec([]string{"cpu", "1", "memory", "2Gi"}, nil, map[string]string{"pool": "shared"}, false)),
	}
	jobs := []*batchv1.Job{
		job("ml", "eval", podSpec([]string{"cpu", "500m", "memory", "1500Mi"},
			[]string{"cpu", "500m", "memory", "1500Mi", "nvidia.com/gpu.shared", "1"}, l4Sel, true)),
	}
	return deps, jobs
}

func create(ctx context.Context, t *testing.T, cs *kubernetes.Clientset) {
	t.Helper()
	for _, ns := range []string{"ml", "team-notebooks", "shop", "gpuwise"} {
		if _, err := cs.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}, metav1.CreateOptions{}); err != nil {
			t.Fatalf("creating namespace %s: %v", ns, err)
		}
	}
	for _, n := range nodes() {
		if _, err := cs.CoreV1().Nodes().Create(ctx, n, metav1.CreateOptions{}); err != nil {
			t.Fatalf("creating node %s: %v", n.Name, err)
		}
	}
	deps, jobs := workloads()
	for _, d := range deps {
		if _, err := cs.AppsV1().Deployments(d.Namespace).Create(ctx, d, metav1.CreateOptions{}); err != nil {
			t.Fatalf("creating deployment %s: %v", d.Name, err)
		}
	}
	for _, j := range jobs {
		if _, err := cs.BatchV1().Jobs(j.Namespace).Create(ctx, j, metav1.CreateOptions{}); err != nil {
			t.Fatalf("creating job %s: %v", j.Name, err)
		}
	}
}

// waitFor polls cond every 200 ms until it holds or the deadline passes.
func waitFor(t *testing.T, what string, timeout time.Duration, cond func() (bool, string)) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	var last string
	for time.Now().Before(deadline) {
		ok, state := cond()
		if ok {
			return
		}
		last = state
		time.Sleep(200 * time.Millisecond)
	}
	t.Fatalf("timed out after %s waiting for %s; last state: %s", timeout, what, last)
}
