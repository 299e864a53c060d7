//go:build integration

package kube

import (
	"context"
	"encoding/json"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/gpuwise/gpuwise/internal/cli"
	"github.com/gpuwise/gpuwise/internal/inventory"
)

// invNodes are KWOK GPU nodes of every kind the inventory tells apart:
// whole GPUs with the device plugin's pod, GPU nodes advertising nothing
// (labelled, labelled with a device plugin pod that registers nothing,
// or only sold as one by their instance type), MIG mixed with a whole GPU
// beside, time-slicing, and an on-prem node nobody prices.
func invNodes() []*corev1.Node {
	h100 := func(extra ...string) map[string]string {
		return awsLabels("p5.48xlarge", "on-demand", append([]string{"nvidia.com/gpu.product", "NVIDIA-H100-80GB-HBM3",
			"nvidia.com/gpu.memory", "81559", "nvidia.com/gpu.count", "8"}, extra...)...)
	}
	onprem := h100()
	delete(onprem, "topology.kubernetes.io/region")
	delete(onprem, "topology.kubernetes.io/zone")
	onprem["node.kubernetes.io/instance-type"] = "dgx-h100"
	// The taint keeps the other tests' pods (one stays Pending for want
	// of a toleration) off these nodes.
	only := []corev1.Taint{invTaint}
	return []*corev1.Node{
		kwokNode("inv-h100", h100("inventory-test", "dp"), only, "aws:///us-east-1a/i-invh100",
			"cpu", "192", "memory", "2048Gi", "nvidia.com/gpu", "8"),
		kwokNode("inv-bare", h100(), only, "aws:///us-east-1a/i-invbare", "cpu", "192", "memory", "2048Gi"),
		kwokNode("inv-silent", h100("inventory-test", "dp"), only, "aws:///us-east-1a/i-invsilent", "cpu", "192", "memory", "2048Gi"),
		kwokNode("inv-p5", awsLabels("p5.48xlarge", "spot"), only, "aws:///us-east-1a/i-invp5", "cpu", "192", "memory", "2048Gi"),
		kwokNode("inv-mig", awsLabels("p4de.24xlarge", "spot", "nvidia.com/gpu.product", "NVIDIA-A100-SXM4-80GB",
			"nvidia.com/gpu.memory", "81920", "nvidia.com/mig.strategy", "mixed", "nvidia.com/mig.config", "all-balanced",
			"nvidia.com/mig.config.state", "success"), only, "aws:///us-east-1a/i-invmig",
			"cpu", "96", "memory", "1152Gi", "nvidia.com/mig-1g.10gb", "7", "nvidia.com/mig-3g.40gb", "2", "nvidia.com/gpu", "1"),
		kwokNode("inv-ts", awsLabels("g6.12xlarge", "on-demand", "nvidia.com/gpu.product", "NVIDIA-L4", "nvidia.com/gpu.memory", "23034",
			"nvidia.com/gpu.count", "4", "nvidia.com/gpu.replicas", "4", "nvidia.com/gpu.sharing-strategy", "time-slicing"), only,
			"aws:///us-east-1a/i-invts", "cpu", "48", "memory", "192Gi", "nvidia.com/gpu.shared", "16"),
		kwokNode("inv-onprem", onprem, only, "", "cpu", "224", "memory", "2048Gi", "nvidia.com/gpu", "8"),
	}
}

var invTaint = corev1.Taint{Key: "gpuwise.io/inventory-test", Value: "only", Effect: corev1.TaintEffectNoSchedule}

// invWorkloads: the GPU operator's device plugin DaemonSet on the nodes
// labelled inventory-test=dp, a MIG pod and a time-sliced pod.
func invWorkloads() (*appsv1.DaemonSet, []*appsv1.Deployment) {
	labels := map[string]string{"app": "nvidia-device-plugin-daemonset"}
	no := false
	ds := &appsv1.DaemonSet{ObjectMeta: metav1.ObjectMeta{Namespace: "inv-gpu-operator", Name: "nvidia-device-plugin-daemonset"},
		Spec: appsv1.DaemonSetSpec{Selector: &metav1.LabelSelector{MatchLabels: labels},
			Template: corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: labels}, Spec: corev1.PodSpec{
				NodeSelector: map[string]string{"inventory-test": "dp"}, AutomountServiceAccountToken: &no,
				Tolerations: []corev1.Toleration{{Operator: corev1.TolerationOpExists}},
				Containers:  []corev1.Container{{Name: "nvidia-device-plugin", Image: "registry.invalid/k8s-device-plugin:v0.20.0"}}}}}}
	on := func(node string, limits ...string) corev1.PodSpec {
		s := podSpec(nil, limits, map[string]string{"kubernetes.io/hostname": node}, false)
		s.Tolerations = []corev1.Toleration{{Key: invTaint.Key, Operator: corev1.TolerationOpExists}}
		return s
	}
	deps := []*appsv1.Deployment{
		deployment("inv-ml", "mig-serve", 1, on("inv-mig", "nvidia.com/mig-1g.10gb", "1")),
		deployment("inv-ml", "ts-notebook", 1, on("inv-ts", "nvidia.com/gpu.shared", "1")),
	}
	return ds, deps
}

func TestInventoryAgainstRealControlPlane(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cs, cfg := admin(t)
	createInventoryCluster(ctx, t, cs)
	waitInventoryPods(ctx, t, cs)
	ensureNamespace(ctx, t, cs, "gpuwise")
	reader := serviceAccountKubeconfig(ctx, t, cs, cfg, "gpuwise", true)

	out, errOut, code := execute(t, "inventory", "--kubeconfig", reader, "-o", "json")
	if code != cli.ExitOK {
		t.Fatalf("inventory exit %d: %s", code, errOut)
	}
	var inv inventory.Inventory
	if err := json.Unmarshal([]byte(out), &inv); err != nil {
		t.Fatal(err)
	}
	checkInventoryNodes(t, &inv)
	checkInventorySums(t, &inv)
	for _, f := range []string{"table", "wide", "yaml", "csv", "markdown", "html"} {
		out, errOut, code := execute(t, "inventory", "--kubeconfig", reader, "-o", f)
		if code != cli.ExitOK || !strings.Contains(out, "inv-silent") {
			t.Errorf("inventory -o %s: exit %d, %s", f, code, errOut)
		}
	}
}

// invView is what the test reads of one node.
type invView struct {
	Model, Sharing, MIG, Plugin, GFD, Price string
	GPUs, Units, InUse, Replicas            int
	Checks                                  []string
}

func checkInventoryNodes(t *testing.T, inv *inventory.Inventory) {
	t.Helper()
	got := map[string]invView{}
	for _, n := range inv.Nodes {
		if !strings.HasPrefix(n.Name, "inv-") {
			continue
		}
		v := invView{Model: n.GPUModel, Sharing: n.Sharing, MIG: n.MIG.Strategy, Plugin: string(n.DevicePlugin.Status),
			GFD: string(n.FeatureDiscovery.Status), Price: "unpriced", GPUs: n.GPUs, Units: n.Units, InUse: n.UnitsInUse, Replicas: n.TimeSliceReplicas}
		if n.Price != nil {
			v.Price = n.Price.Origin
		}
		for _, f := range inv.Findings {
			if f.Node == n.Name {
				v.Checks = append(v.Checks, f.Check)
			}
		}
		got[n.Name] = v
	}
	notAdvertised := []string{inventory.CheckNotAdvertised}
	want := map[string]invView{
		"inv-h100":   {Model: "H100-80GB", Sharing: "exclusive", MIG: "none", Plugin: "running", GFD: "present", Price: "catalog", GPUs: 8, Units: 8},
		"inv-bare":   {Model: "H100-80GB", Sharing: "none", MIG: "none", Plugin: "missing", GFD: "present", Price: "catalog", Checks: notAdvertised},
		"inv-silent": {Model: "H100-80GB", Sharing: "none", MIG: "none", Plugin: "running", GFD: "present", Price: "catalog", Checks: notAdvertised},
		"inv-p5":     {Model: "H100-80GB", Sharing: "none", MIG: "none", Plugin: "missing", GFD: "missing", Price: "catalog", Checks: notAdvertised},
		"inv-mig": {Model: "A100-80GB", Sharing: "exclusive+mig", MIG: "mixed", Plugin: "present", GFD: "present", Price: "catalog",
			GPUs: 3, Units: 10, InUse: 1},
		"inv-ts": {Model: "L4", Sharing: "time-slicing", MIG: "none", Plugin: "present", GFD: "present", Price: "catalog",
			GPUs: 4, Units: 16, InUse: 1, Replicas: 4},
		"inv-onprem": {Model: "H100-80GB", Sharing: "exclusive", MIG: "none", Plugin: "present", GFD: "present", Price: "unpriced", GPUs: 8, Units: 8},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("inventory nodes (-want +got):\n%s", diff)
	}
	for _, f := range inv.Findings {
		if f.Node == "inv-silent" && !strings.Contains(f.Message, "registers nothing") {
			t.Errorf("inv-silent finding %q does not say the running device plugin registers nothing", f.Message)
		}
	}
}

// checkInventorySums: groups add up to the totals in GPUs and dollars.
func checkInventorySums(t *testing.T, inv *inventory.Inventory) {
	t.Helper()
	var gpus int
	var usd float64
	for _, g := range inv.Summary {
		gpus += g.GPUs
		if g.USDPerHour != nil {
			usd += *g.USDPerHour
		}
	}
	tt := inv.Totals
	if gpus != tt.GPUs+tt.UnadvertisedGPUs || tt.USDPerHour == nil || math.Abs(usd-*tt.USDPerHour) > 1e-6 || tt.UnpricedNodes < 1 {
		t.Errorf("summary %d GPUs, $%v/h; totals %+v", gpus, usd, tt)
	}
}

func createInventoryCluster(ctx context.Context, t *testing.T, cs *kubernetes.Clientset) {
	t.Helper()
	for _, ns := range []string{"inv-gpu-operator", "inv-ml"} {
		ensureNamespace(ctx, t, cs, ns)
	}
	nodes := invNodes()
	t.Cleanup(func() { deleteInventoryCluster(t, cs, nodes) })
	for _, n := range nodes {
		if _, err := cs.CoreV1().Nodes().Create(ctx, n, metav1.CreateOptions{}); err != nil {
			t.Fatalf("creating node %s: %v", n.Name, err)
		}
	}
	ds, deps := invWorkloads()
	if _, err := cs.AppsV1().DaemonSets(ds.Namespace).Create(ctx, ds, metav1.CreateOptions{}); err != nil {
		t.Fatalf("creating daemonset: %v", err)
	}
	for _, d := range deps {
		if _, err := cs.AppsV1().Deployments(d.Namespace).Create(ctx, d, metav1.CreateOptions{}); err != nil {
			t.Fatalf("creating deployment %s: %v", d.Name, err)
		}
	}
}

// deleteInventoryCluster removes what the test made, so that the tests
// after it see the cluster they expect.
func deleteInventoryCluster(t *testing.T, cs *kubernetes.Clientset, nodes []*corev1.Node) {
	ctx := context.Background()
	for _, ns := range []string{"inv-gpu-operator", "inv-ml"} {
		if err := cs.CoreV1().Namespaces().Delete(ctx, ns, metav1.DeleteOptions{}); err != nil && !apierrors.IsNotFound(err) {
			t.Errorf("deleting namespace %s: %v", ns, err)
		}
	}
	for _, n := range nodes {
		if err := cs.CoreV1().Nodes().Delete(ctx, n.Name, metav1.DeleteOptions{}); err != nil && !apierrors.IsNotFound(err) {
			t.Errorf("deleting node %s: %v", n.Name, err)
		}
	}
}

func ensureNamespace(ctx context.Context, t *testing.T, cs *kubernetes.Clientset, name string) {
	t.Helper()
	_, err := cs.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name}}, metav1.CreateOptions{})
	if err != nil && !apierrors.IsAlreadyExists(err) {
		t.Fatalf("creating namespace %s: %v", name, err)
	}
}

// waitInventoryPods waits for the two device plugin pods (DaemonSet
// controller, scheduler, KWOK) and the two GPU pods to run.
func waitInventoryPods(ctx context.Context, t *testing.T, cs *kubernetes.Clientset) {
	t.Helper()
	waitFor(t, "the inventory test's pods to run", 90*time.Second, func() (bool, string) {
		var states []string
		running := 0
		for _, ns := range []string{"inv-gpu-operator", "inv-ml"} {
			pods, err := cs.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{})
			if err != nil {
				return false, err.Error()
			}
			for _, p := range pods.Items {
				states = append(states, p.Name+"="+string(p.Status.Phase)+"@"+p.Spec.NodeName)
				if p.Spec.NodeName != "" && p.Status.Phase == corev1.PodRunning {
					running++
				}
			}
		}
		return running == 4, strings.Join(states, " ")
	})
}
