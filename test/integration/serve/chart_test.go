//go:build integration

package serve

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	authv1 "k8s.io/api/authentication/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	"sigs.k8s.io/yaml"

	"github.com/gpuwise/gpuwise/internal/cost"
	"github.com/gpuwise/gpuwise/internal/serve"
)

const chart = "deploy/helm/gpuwise"

// fullValues switch every option of the chart on.
const fullValues = `
cluster: east
prometheus:
  url: https://prometheus.monitoring.svc:9090
  bearerTokenSecret: {name: prom-token, key: token}
  headers: {X-Scope-OrgID: team-a}
history:
  persistence: {enabled: true, size: 1Gi}
prices:
  content: |
    prices:
    - match: {instanceType: p5.48xlarge}
      nodeUSDPerHour: 55
policy:
  content: |
    cpu: {percentile: 0.95}
auth:
  bearerTokenSecret: {name: gpuwise-auth, key: token}
tls:
  secretName: gpuwise-tls
metrics: {maxWorkloads: 100, pods: true}
`

func admin(t *testing.T) (*kubernetes.Clientset, *rest.Config, string) {
	t.Helper()
	path := os.Getenv("GPUWISE_TEST_KUBECONFIG")
	if path == "" {
		t.Fatal("GPUWISE_TEST_KUBECONFIG is unset: run make integration-serve, which starts the control plane")
	}
	cfg, err := clientcmd.BuildConfigFromFlags("", path)
	if err != nil {
		t.Fatal(err)
	}
	cs, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return cs, cfg, path
}

func writeValues(t *testing.T) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "values.yaml")
	if err := os.WriteFile(p, []byte(fullValues), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// helm lint --strict passes with the defaults and with every option on;
// the plain manifests are what the chart renders.
func TestChartLintsAndRendersTheShippedManifests(t *testing.T) {
	helm := tool(t, "helm")
	run(t, nil, helm, "lint", "--strict", chart)
	run(t, nil, helm, "lint", "--strict", chart, "-f", writeValues(t))
	out := filepath.Join(t.TempDir(), "gpuwise.yaml")
	run(t, nil, "hack/serve/manifests.sh", out)
	got, _ := os.ReadFile(out)
	want, _ := os.ReadFile(filepath.Join(repo, "deploy", "manifests", "gpuwise.yaml"))
	if !bytes.Equal(got, want) {
		t.Error("deploy/manifests/gpuwise.yaml is not what the chart renders: run make manifests")
	}
	bad := filepath.Join(t.TempDir(), "bad.yaml")
	os.WriteFile(bad, []byte("interval: 7m\nprometheus: {url: prom:9090}\nreplicas: 3\n"), 0o644)
	cmd := fmt.Sprintf("%s template x %s -f %s", helm, chart, bad)
	if b, err := shell(cmd); err == nil || !strings.Contains(string(b), "replicas") || !strings.Contains(string(b), "interval") {
		t.Errorf("values the schema forbids were rendered: %v\n%s", err, b)
	}
}

// helm template | kubectl apply --dry-run=server on the real API server,
// and the Deployment's pod admitted in a namespace that enforces the
// restricted Pod Security Standard.
func TestChartAppliesOnTheRealAPIServer(t *testing.T) {
	cs, _, kubeconfig := admin(t)
	ctx := context.Background()
	ns := "gpuwise-chart"
	_, err := cs.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns,
		Labels: map[string]string{"pod-security.kubernetes.io/enforce": "restricted"}}}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, values := range [][]string{nil, {"-f", writeValues(t)}} {
		rendered := run(t, nil, tool(t, "helm"), append([]string{"template", "gpuwise", chart, "--namespace", ns}, values...)...)
		out := run(t, rendered, tool(t, "kubectl"), "--kubeconfig", kubeconfig, "apply", "--dry-run=server", "-f", "-")
		kinds := []string{"serviceaccount", "clusterrole", "clusterrolebinding", "service", "deployment", "networkpolicy"}
		if values == nil {
			kinds = append(kinds, "secret") // the generated token (fullValues names one)
		}
		for _, kind := range kinds {
			// kubectl names core kinds bare (serviceaccount/x), others
			// with their group (clusterrole.rbac.authorization.k8s.io/x).
			accepted := regexp.MustCompile(`(?m)^` + kind + `(\.[a-z0-9.-]+)?/\S+ (created|configured|unchanged) \(server dry run\)$`)
			if !accepted.Match(out) {
				t.Errorf("kubectl apply --dry-run=server did not accept a %s:\n%s", kind, out)
			}
		}
		var dep appsv1.Deployment
		if err := yaml.Unmarshal(document(t, rendered, "Deployment"), &dep); err != nil {
			t.Fatal(err)
		}
		// The pod runs as the chart's ServiceAccount, which admission
		// looks up: create it for real (the dry run above created nothing).
		var sa corev1.ServiceAccount
		if err := yaml.UnmarshalStrict(document(t, rendered, "ServiceAccount"), &sa); err != nil {
			t.Fatal(err)
		}
		if _, err := cs.CoreV1().ServiceAccounts(ns).Create(ctx, &sa, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
			t.Fatal(err)
		}
		pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "gpuwise-restricted", Namespace: ns}, Spec: dep.Spec.Template.Spec}
		if _, err := cs.CoreV1().Pods(ns).Create(ctx, pod, metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}}); err != nil {
			t.Errorf("the chart's pod is refused under the restricted standard: %v", err)
		}
	}
}

// document is the first rendered document of kind.
func document(t *testing.T, rendered []byte, kind string) []byte {
	t.Helper()
	for _, d := range strings.Split(string(rendered), "\n---\n") {
		if strings.Contains(d, "\nkind: "+kind+"\n") {
			return []byte(d)
		}
	}
	t.Fatalf("no %s rendered", kind)
	return nil
}

// serve runs against the control plane with the chart's ServiceAccount
// token (list and watch only): it sees the KWOK GPU nodes and pods,
// remembers a deleted pod, and its cycles list nothing after start.
func TestServeWithTheChartsServiceAccount(t *testing.T) {
	cs, cfg, kubeconfig := admin(t)
	ctx := context.Background()
	ns := "gpuwise-sa"
	cs.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}, metav1.CreateOptions{})
	rendered := run(t, nil, tool(t, "helm"), "template", "gpuwise-sa", chart, "--namespace", ns)
	applyRBAC(ctx, t, cs, rendered)
	token := saKubeconfig(ctx, t, cs, cfg, ns, "gpuwise-sa")
	createGPUWorkload(ctx, t, cs)
	_ = kubeconfig

	opts := serve.DefaultOptions()
	opts.Cluster, opts.Kube.Kubeconfig, opts.Window, opts.Interval, opts.Lag = "kwok", token, 4*time.Hour, 5*time.Minute, 0
	// A cycle covers complete intervals: its window ends on the last
	// interval boundary before now, so objects created just now are in
	// the window of the next cycle. The service's clock runs one interval
	// ahead, as that next cycle's would.
	in := startAt(t, opts, func() time.Time { return time.Now().Add(opts.Interval) })
	before := podLists(t, cfg)
	if err := in.svc.Cycle(ctx); err != nil {
		t.Fatal(err)
	}
	var r cost.Report
	json.Unmarshal(in.get(t, "/api/v1/report?by=workload"), &r)
	if r.Totals.GPUs != 16 || r.Totals.GPUPods != 3 {
		t.Errorf("report: %d GPUs, %d GPU pods; want 16 and 3 (two 8-GPU KWOK nodes, three GPU pods); by pod:\n%s\nstatus:\n%s",
			r.Totals.GPUs, r.Totals.GPUPods, in.get(t, "/api/v1/report?by=pod&output=table"), in.get(t, "/api/v1/status"))
	}
	if r.Totals.GPUHours.Unmeasured != r.Totals.GPUHours.Allocated || r.Totals.GPUHours.Active != 0 {
		t.Errorf("without Prometheus every allocated GPU-hour is unmeasured: %+v", r.Totals.GPUHours)
	}
	if err := cs.CoreV1().Pods("ml").Delete(ctx, "solo", metav1.DeleteOptions{GracePeriodSeconds: new(int64)}); err != nil {
		t.Fatal(err)
	}
	time.Sleep(2 * time.Second) // the watch delivers the deletion
	for range 2 {
		if err := in.svc.Cycle(ctx); err != nil {
			t.Fatal(err)
		}
	}
	json.Unmarshal(in.get(t, "/api/v1/report?by=pod"), &r)
	found := false
	for _, row := range r.Rows {
		found = found || row.Key == "ml/solo"
	}
	if !found {
		t.Error("a pod deleted during the window is no longer in the report")
	}
	if after := podLists(t, cfg); after != before {
		t.Errorf("pod LIST requests rose from %v to %v over three cycles: the cycles relist", before, after)
	}
	if !strings.Contains(string(in.get(t, "/metrics")), `gpuwise_window_gpus_provisioned{cluster="kwok",gpu_model="H100-80GB"}`) {
		t.Error("/metrics lacks the KWOK GPUs")
	}
}

// podLists is the API server's count of LIST requests on pods.
func podLists(t *testing.T, cfg *rest.Config) string {
	t.Helper()
	cs, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	b, err := cs.RESTClient().Get().AbsPath("/metrics").DoRaw(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	var n []string
	for _, l := range strings.Split(string(b), "\n") {
		if strings.HasPrefix(l, "apiserver_request_total{") && strings.Contains(l, `resource="pods"`) && strings.Contains(l, `verb="LIST"`) {
			n = append(n, l)
		}
	}
	return strings.Join(n, "\n")
}

// applyRBAC creates the chart's ServiceAccount, ClusterRole and binding.
func applyRBAC(ctx context.Context, t *testing.T, cs *kubernetes.Clientset, rendered []byte) {
	t.Helper()
	var sa corev1.ServiceAccount
	var role rbacv1.ClusterRole
	var binding rbacv1.ClusterRoleBinding
	for kind, into := range map[string]any{"ServiceAccount": &sa, "ClusterRole": &role, "ClusterRoleBinding": &binding} {
		if err := yaml.UnmarshalStrict(document(t, rendered, kind), into); err != nil {
			t.Fatalf("%s: %v", kind, err)
		}
	}
	if _, err := cs.CoreV1().ServiceAccounts(sa.Namespace).Create(ctx, &sa, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := cs.RbacV1().ClusterRoles().Create(ctx, &role, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := cs.RbacV1().ClusterRoleBindings().Create(ctx, &binding, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
}

// saKubeconfig mints a token for the ServiceAccount and writes a
// kubeconfig that uses it.
func saKubeconfig(ctx context.Context, t *testing.T, cs *kubernetes.Clientset, cfg *rest.Config, ns, name string) string {
	t.Helper()
	exp := int64(3600)
	tok, err := cs.CoreV1().ServiceAccounts(ns).CreateToken(ctx, name,
		&authv1.TokenRequest{Spec: authv1.TokenRequestSpec{ExpirationSeconds: &exp}}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	kc := map[string]any{
		"apiVersion": "v1", "kind": "Config", "current-context": "sa",
		"clusters": []any{map[string]any{"name": "kwok", "cluster": map[string]any{"server": cfg.Host, "certificate-authority-data": cfg.CAData}}},
		"users":    []any{map[string]any{"name": name, "user": map[string]any{"token": tok.Status.Token}}},
		"contexts": []any{map[string]any{"name": "sa", "context": map[string]any{"cluster": "kwok", "user": name}}},
	}
	b, _ := yaml.Marshal(kc)
	p := filepath.Join(t.TempDir(), "kubeconfig")
	if err := os.WriteFile(p, b, 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

// createGPUWorkload makes two 8-GPU KWOK nodes and three GPU pods (bound
// directly: no scheduler needed), and waits for them to run.
func createGPUWorkload(ctx context.Context, t *testing.T, cs *kubernetes.Clientset) {
	t.Helper()
	for i := range 2 {
		name := fmt.Sprintf("sa-h100-%d", i)
		l := corev1.ResourceList{"cpu": resource.MustParse("192"), "memory": resource.MustParse("2048Gi"), "pods": resource.MustParse("110"), "nvidia.com/gpu": resource.MustParse("8")}
		n := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: name, Annotations: map[string]string{"kwok.x-k8s.io/node": "fake"},
			Labels: map[string]string{"kubernetes.io/hostname": name, "type": "kwok", "node.kubernetes.io/instance-type": "p5.48xlarge",
				"topology.kubernetes.io/region": "us-east-1", "karpenter.sh/capacity-type": "on-demand",
				"nvidia.com/gpu.product": "NVIDIA-H100-80GB-HBM3", "nvidia.com/gpu.count": "8"}},
			Spec: corev1.NodeSpec{ProviderID: "aws:///us-east-1a/i-" + name}, Status: corev1.NodeStatus{Capacity: l, Allocatable: l}}
		if _, err := cs.CoreV1().Nodes().Create(ctx, n, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	cs.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "ml"}}, metav1.CreateOptions{})
	no := false
	for i, name := range []string{"solo", "train-0", "train-1"} {
		gpus := resource.MustParse("1")
		if name != "solo" {
			gpus = resource.MustParse("4")
		}
		p := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "ml"}, Spec: corev1.PodSpec{
			NodeName: fmt.Sprintf("sa-h100-%d", i%2), AutomountServiceAccountToken: &no,
			Containers: []corev1.Container{{Name: "main", Image: "registry.invalid/train:1",
				Resources: corev1.ResourceRequirements{Limits: corev1.ResourceList{"nvidia.com/gpu": gpus}, Requests: corev1.ResourceList{"nvidia.com/gpu": gpus}}}}}}
		if _, err := cs.CoreV1().Pods("ml").Create(ctx, p, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	deadline := time.Now().Add(time.Minute)
	for time.Now().Before(deadline) {
		l, err := cs.CoreV1().Pods("ml").List(ctx, metav1.ListOptions{})
		running := 0
		for _, p := range l.Items {
			if p.Status.Phase == corev1.PodRunning {
				running++
			}
		}
		if err == nil && running == 3 {
			return
		}
		time.Sleep(200 * time.Millisecond)
	}
	t.Fatal("the GPU pods did not run within a minute")
}
