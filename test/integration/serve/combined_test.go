//go:build integration

package serve

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/gpuwise/gpuwise/internal/audit"
	"github.com/gpuwise/gpuwise/internal/cli"
)

// comboCluster creates, on the control plane, a tainted H100 node and an
// untainted L4 node (KWOK), and a GPU pod on the L4 node that tolerates
// the GPU taint and has no GPU-model selector; it returns the pod's UID.
func comboCluster(ctx context.Context, t *testing.T, cs *kubernetes.Clientset) string {
	t.Helper()
	for _, n := range []struct {
		name, product string
		taint         bool
	}{{"combo-h100", "NVIDIA-H100-80GB-HBM3", true}, {"combo-l4", "NVIDIA-L4", false}} {
		l := corev1.ResourceList{"cpu": resource.MustParse("48"), "memory": resource.MustParse("192Gi"), "pods": resource.MustParse("110"), "nvidia.com/gpu": resource.MustParse("4")}
		node := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: n.name, Annotations: map[string]string{"kwok.x-k8s.io/node": "fake"},
			Labels: map[string]string{"kubernetes.io/hostname": n.name, "type": "kwok", "nvidia.com/gpu.product": n.product, "nvidia.com/gpu.count": "4"}},
			Spec: corev1.NodeSpec{ProviderID: "aws:///us-east-1a/i-" + n.name}, Status: corev1.NodeStatus{Capacity: l, Allocatable: l}}
		if n.taint {
			node.Spec.Taints = []corev1.Taint{{Key: "nvidia.com/gpu", Value: "present", Effect: corev1.TaintEffectNoSchedule}}
		}
		if _, err := cs.CoreV1().Nodes().Create(ctx, node, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	cs.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "combo"}}, metav1.CreateOptions{})
	no, gpu := false, resource.MustParse("1")
	p := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "loose", Namespace: "combo"}, Spec: corev1.PodSpec{
		NodeName: "combo-l4", AutomountServiceAccountToken: &no,
		Tolerations: []corev1.Toleration{{Key: "nvidia.com/gpu", Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoSchedule}},
		Containers: []corev1.Container{{Name: "main", Image: "registry.invalid/train:1",
			Resources: corev1.ResourceRequirements{Limits: corev1.ResourceList{"nvidia.com/gpu": gpu}, Requests: corev1.ResourceList{"nvidia.com/gpu": gpu}}}}}}
	created, err := cs.CoreV1().Pods("combo").Create(ctx, p, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return string(created.UID)
}

// ksmExposition is what kube-state-metrics would say of comboCluster with
// pod tolerations and node selectors not exported (dropped at scrape, as
// many stacks do).
func ksmExposition(uid string, now time.Time) string {
	var b strings.Builder
	created, start := now.Add(-2*time.Hour).Unix(), now.Add(-30*time.Minute).Unix()
	for _, n := range []struct{ name, product string }{{"combo-h100", "NVIDIA-H100-80GB-HBM3"}, {"combo-l4", "NVIDIA-L4"}} {
		fmt.Fprintf(&b, "kube_node_info{node=%q,provider_id=\"aws:///us-east-1a/i-%s\"} 1\n", n.name, n.name)
		fmt.Fprintf(&b, "kube_node_labels{node=%q,label_nvidia_com_gpu_product=%q,label_nvidia_com_gpu_count=\"4\"} 1\n", n.name, n.product)
		fmt.Fprintf(&b, "kube_node_status_allocatable{node=%q,resource=\"cpu\",unit=\"core\"} 48\n", n.name)
		fmt.Fprintf(&b, "kube_node_status_allocatable{node=%q,resource=\"memory\",unit=\"byte\"} %d\n", n.name, int64(192)<<30)
		fmt.Fprintf(&b, "kube_node_created{node=%q} %d\n", n.name, created)
	}
	b.WriteString("kube_node_spec_taint{node=\"combo-h100\",key=\"nvidia.com/gpu\",value=\"present\",effect=\"NoSchedule\"} 1\n")
	id := fmt.Sprintf("namespace=\"combo\",pod=\"loose\",uid=%q", uid)
	fmt.Fprintf(&b, "kube_pod_info{%s,node=\"combo-l4\",created_by_kind=\"<none>\",created_by_name=\"<none>\"} 1\n", id)
	fmt.Fprintf(&b, "kube_pod_owner{%s,owner_kind=\"<none>\",owner_name=\"<none>\",owner_is_controller=\"false\"} 1\n", id)
	fmt.Fprintf(&b, "kube_pod_labels{%s} 1\n", id)
	fmt.Fprintf(&b, "kube_pod_start_time{%s} %d\n", id, start)
	fmt.Fprintf(&b, "kube_pod_container_resource_requests{%s,container=\"main\",node=\"combo-l4\",resource=\"nvidia_com_gpu\",unit=\"integer\"} 1\n", id)
	fmt.Fprintf(&b, "kube_pod_container_resource_limits{%s,container=\"main\",node=\"combo-l4\",resource=\"nvidia_com_gpu\",unit=\"integer\"} 1\n", id)
	return b.String()
}

// TestPrometheusWithTheAPI (issue 26.2, the control-plane tier): a real
// kube-apiserver holding the cluster's objects and a real Prometheus
// holding kube-state-metrics' series without tolerations or node
// selectors. From Prometheus alone, GW004 and GW005 are undecided for the
// pod (its tolerations and affinity are unknown), never findings; with
// --kubeconfig beside --prometheus the API's tolerations and selectors
// decide them: no GW004 (it tolerates the taint), a GW005 finding (no
// GPU-model selector in a two-model cluster), nothing undecided.
func TestPrometheusWithTheAPI(t *testing.T) {
	cs, _, kubeconfig := admin(t)
	ctx := context.Background()
	uid := comboCluster(ctx, t, cs)
	defer func() {
		cs.CoreV1().Namespaces().Delete(ctx, "combo", metav1.DeleteOptions{})
		for _, n := range []string{"combo-h100", "combo-l4"} {
			cs.CoreV1().Nodes().Delete(ctx, n, metav1.DeleteOptions{})
		}
	}()
	first := time.Now()
	ksm := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/plain; version=0.0.4")
		fmt.Fprint(w, ksmExposition(uid, first))
	}))
	defer ksm.Close()
	prom := startPrometheus(t, "combined", scrapeConfig("kube-state-metrics", strings.TrimPrefix(ksm.URL, "http://")))
	// The window ends at now rounded down to --step: wait until a minute
	// boundary lies after the first scrapes.
	for time.Now().Truncate(time.Minute).Before(first.Add(5 * time.Second)) {
		time.Sleep(time.Second)
	}
	auditOf := func(extra ...string) audit.Result {
		t.Helper()
		args := append([]string{"audit", "--prometheus", prom.url, "--window", "1h", "--step", "1m", "-o", "json"}, extra...)
		var out, errb bytes.Buffer
		if code := cli.Execute(args, cli.Streams{Out: &out, Err: &errb}); code != cli.ExitOK && code != cli.ExitPartial {
			t.Fatalf("gpuwise %v: exit %d: %s", args, code, errb.String())
		}
		var r audit.Result
		if err := json.Unmarshal(out.Bytes(), &r); err != nil {
			t.Fatalf("gpuwise %v: %v\n%s", args, err, out.String())
		}
		return r
	}
	findings := func(r audit.Result) map[string]bool {
		out := map[string]bool{}
		for _, f := range r.Findings {
			if strings.Contains(f.Object, "combo/loose") {
				out[f.Rule] = true
			}
		}
		return out
	}
	alone := auditOf()
	if f := findings(alone); f[audit.RuleNoToleration] || f[audit.RuleNoModelAffinity] {
		t.Errorf("Prometheus alone: findings %v on combo/loose rest on facts it cannot read", f)
	}
	undecided := map[string]bool{}
	for _, u := range alone.Undecided {
		undecided[u.Rule] = true
	}
	if !undecided[audit.RuleNoToleration] || !undecided[audit.RuleNoModelAffinity] {
		t.Errorf("Prometheus alone: undecided %+v, want GW004 and GW005", alone.Undecided)
	}
	both := auditOf("--kubeconfig", kubeconfig)
	if f := findings(both); f[audit.RuleNoToleration] || !f[audit.RuleNoModelAffinity] {
		t.Errorf("with the API: findings on combo/loose %v, want GW005 and not GW004", f)
	}
	if len(both.Undecided) != 0 {
		t.Errorf("with the API: undecided %+v, want none", both.Undecided)
	}
	if !strings.Contains(strings.Join(both.Notes, "\n"), "combined sources") {
		t.Errorf("with the API: notes %q lack the combined-sources note", both.Notes)
	}
}
