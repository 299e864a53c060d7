//go:build integration

package kube

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	admissionv1 "k8s.io/api/admissionregistration/v1"
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/dynamic"

	"github.com/gpuwise/gpuwise/internal/cluster"
	"github.com/gpuwise/gpuwise/internal/generate"
	"github.com/gpuwise/gpuwise/internal/kube"
	"github.com/gpuwise/gpuwise/internal/ledger"
	"github.com/gpuwise/gpuwise/internal/ledger/lever"
	"github.com/gpuwise/gpuwise/internal/tracker"
)

// The controls are read from the real apiserver and mark their actions
// applied: the plan autoscales two Deployments, scales an H100 pool's
// nodes and rolls out the admission groundwork (F2); an HPA is created for
// one Deployment, the NodePool `gpuwise generate nodepool` writes for the
// pool (Karpenter's CRD from the Go module go.mod pins), and a gpuwise
// ValidatingAdmissionPolicy with its warn binding; gpuwise collect then
// shows them in the snapshot and the tracker marks the autoscaling 1 of 2,
// the node scaling and the admission groundwork applied. serve's watcher,
// started with the shipped role (list and watch) before they are created,
// sees them without a relist and its controls are collect's.
func TestControlsSeenOnTheRealAPIServer(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cs, cfg := admin(t)
	dyn, err := dynamic.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range capacityCRDs { // KEDA's ScaledObject and Karpenter's NodePool
		installCRD(ctx, t, dyn, filepath.Join(moduleDir(t, c.module), c.file))
	}
	const ns, mark = "controls", "gpuwise.io/test"
	ensureNamespace(ctx, t, cs, ns)
	node := kwokNode("controls-h100", awsLabels("p5.48xlarge", "on-demand", mark, "controls",
		"nvidia.com/gpu.product", "NVIDIA-H100-80GB-HBM3", "nvidia.com/gpu.memory", "81559", "nvidia.com/gpu.count", "8"),
		[]corev1.Taint{gpuTaint}, "aws:///us-east-1a/i-controls-h100", "cpu", "192", "memory", "2048Gi", "nvidia.com/gpu", "8")
	const policy, bindingName = "gpuwise-controls-test", "gpuwise-controls-test-warn"
	t.Cleanup(func() {
		bg := context.Background()
		cs.CoreV1().Namespaces().Delete(bg, ns, metav1.DeleteOptions{})
		cs.CoreV1().Nodes().Delete(bg, node.Name, metav1.DeleteOptions{})
		cs.AdmissionregistrationV1().ValidatingAdmissionPolicyBindings().Delete(bg, bindingName, metav1.DeleteOptions{})
		cs.AdmissionregistrationV1().ValidatingAdmissionPolicies().Delete(bg, policy, metav1.DeleteOptions{})
		dyn.Resource(resourceOf(nodePoolObject(t))).Delete(bg, "gpu-h100-controls", metav1.DeleteOptions{})
	})
	if _, err := cs.CoreV1().Nodes().Create(ctx, node, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	w := func(name string) string { return ns + "/Deployment/" + name }
	pool := "H100-80GB"
	l := &ledger.Ledger{
		Actions: []ledger.Action{
			{ID: "A1", Key: "autoscale:autoscale-workloads:" + pool, Lever: ledger.LeverAutoscale, Kind: lever.KindAutoscale, SavingUSDMonth: 500,
				Items:   []ledger.Item{{Target: w("chat")}, {Target: w("embed")}},
				Targets: []ledger.Target{{Kind: "workload", Name: w("chat")}, {Kind: "workload", Name: w("embed")}}},
			{ID: "A2", Key: "autoscale:scale-nodes:" + pool, Lever: ledger.LeverAutoscale, Kind: lever.KindScaleNodes, SavingUSDMonth: 800,
				Targets: []ledger.Target{{Kind: "pool", Name: pool + " GPU nodes"}, {Kind: "node", Name: node.Name}}},
		},
		Foundations: []ledger.Foundation{{ID: "F2", Kind: tracker.KindAdmission, Title: "Admission policies in warn mode", Targets: 1}},
	}
	p := tracker.New("kube")
	observe := func(s *cluster.Prepared) {
		t.Helper()
		if err := p.Observe(tracker.Observation{Window: s.Window(), Snapshot: s.View(), Ledger: l}); err != nil {
			t.Fatal(err)
		}
	}
	before := collectLive(t, "controls-before")
	for _, r := range []string{cluster.ResourceHPA, cluster.ResourceScaledObject, cluster.ResourceNodePool, cluster.ResourceVAP, cluster.ResourceVAPBinding} {
		if !before.View().Controls.Reads(r) {
			t.Errorf("collect did not read %s (read %v)", r, before.View().Controls.Read)
		}
	}
	observe(before)
	ensureNamespace(ctx, t, cs, "gpuwise")
	watcher := watchControls(ctx, t, serviceAccountKubeconfig(ctx, t, cs, cfg, "gpuwise", true), before)
	scale, nodes, adm := p.Actions[0], p.Actions[1], p.Actions[2]
	// (another test's gpuwise policies may be bound already: only ours counts here)
	if scale.Status != tracker.Pending || scale.Of != 2 || nodes.Status != tracker.Pending || adm.Kind != tracker.KindAdmission ||
		slices.ContainsFunc(adm.Targets, func(x tracker.Target) bool { return x.Name == cluster.KindVAP+"/"+policy }) {
		t.Fatalf("before anything is applied: autoscale %s %d/%d (%s); nodes %s (%s); admission %s %d/%d (%s)", scale.Status, scale.Detected, scale.Of, scale.Detection,
			nodes.Status, nodes.Detection, adm.Status, adm.Detected, adm.Of, adm.Detection)
	}

	// Apply: an HPA for chat, the generated NodePool, a gpuwise policy and
	// its warn binding.
	one := int32(1)
	hpa := &autoscalingv2.HorizontalPodAutoscaler{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "chat"},
		Spec: autoscalingv2.HorizontalPodAutoscalerSpec{ScaleTargetRef: autoscalingv2.CrossVersionObjectReference{APIVersion: "apps/v1", Kind: "Deployment", Name: "chat"},
			MinReplicas: &one, MaxReplicas: 4, Metrics: []autoscalingv2.MetricSpec{{Type: autoscalingv2.ResourceMetricSourceType,
				Resource: &autoscalingv2.ResourceMetricSource{Name: corev1.ResourceCPU, Target: autoscalingv2.MetricTarget{Type: autoscalingv2.UtilizationMetricType, AverageUtilization: ptr(int32(70))}}}}}}
	if _, err := cs.AutoscalingV2().HorizontalPodAutoscalers(ns).Create(ctx, hpa, metav1.CreateOptions{}); err != nil {
		t.Fatalf("creating the HPA: %v", err)
	}
	np := nodePoolObject(t)
	if _, err := dyn.Resource(resourceOf(np)).Create(ctx, np, metav1.CreateOptions{FieldValidation: "Strict"}); err != nil {
		t.Fatalf("the apiserver refused the generated NodePool: %v", err)
	}
	vap := &admissionv1.ValidatingAdmissionPolicy{ObjectMeta: metav1.ObjectMeta{Name: policy, Labels: map[string]string{"app.kubernetes.io/managed-by": "gpuwise"}},
		Spec: admissionv1.ValidatingAdmissionPolicySpec{FailurePolicy: ptr(admissionv1.Ignore),
			MatchConstraints: &admissionv1.MatchResources{
				NamespaceSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"kubernetes.io/metadata.name": ns}},
				ResourceRules: []admissionv1.NamedRuleWithOperations{{RuleWithOperations: admissionv1.RuleWithOperations{
					Operations: []admissionv1.OperationType{admissionv1.Create}, Rule: admissionv1.Rule{APIGroups: []string{""}, APIVersions: []string{"v1"}, Resources: []string{"pods"}}}}}},
			Validations: []admissionv1.Validation{{Expression: "true"}}}}
	if _, err := cs.AdmissionregistrationV1().ValidatingAdmissionPolicies().Create(ctx, vap, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	b := &admissionv1.ValidatingAdmissionPolicyBinding{ObjectMeta: metav1.ObjectMeta{Name: bindingName},
		Spec: admissionv1.ValidatingAdmissionPolicyBindingSpec{PolicyName: policy, ValidationActions: []admissionv1.ValidationAction{admissionv1.Warn, admissionv1.Audit}}}
	if _, err := cs.AdmissionregistrationV1().ValidatingAdmissionPolicyBindings().Create(ctx, b, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	after := collectLive(t, "controls-after")
	ctl := after.View().Controls
	if !slices.ContainsFunc(ctl.Autoscalers, func(a cluster.Autoscaler) bool {
		return a.Kind == cluster.KindHPA && a.Workload() == w("chat") && a.MinReplicas == 1 && a.MaxReplicas == 4
	}) {
		t.Errorf("the snapshot's autoscalers %+v lack the HPA on chat (1 to 4)", ctl.Autoscalers)
	}
	if !slices.ContainsFunc(ctl.NodePools, func(n cluster.NodePool) bool {
		return n.Name == "gpu-h100-controls" && slices.Equal(n.InstanceTypes, []string{"p5.48xlarge"}) && n.ConsolidationPolicy == "WhenEmpty"
	}) {
		t.Errorf("the snapshot's NodePools %+v lack gpu-h100-controls (p5.48xlarge, WhenEmpty)", ctl.NodePools)
	}
	if !slices.ContainsFunc(ctl.Bindings, func(x cluster.AdmissionBinding) bool {
		return x.Name == bindingName && x.Policy == policy && slices.Equal(x.Actions, []string{"Warn", "Audit"})
	}) {
		t.Errorf("the snapshot's bindings %+v lack %s", ctl.Bindings, bindingName)
	}
	checkWatchedControls(t, watcher, after, w("chat"), bindingName)
	observe(after)
	if scale.Status != tracker.Partly || scale.Detected != 1 || scale.Of != 2 || scale.Detection != "1 of 2 workloads show it" {
		t.Errorf("autoscaling: %s %d of %d (%s), want partly, 1 of 2", scale.Status, scale.Detected, scale.Of, scale.Detection)
	}
	if nodes.Status != tracker.Applied || nodes.Detected != 1 {
		t.Errorf("node scaling: %s %d of %d (%s), want applied by the NodePool", nodes.Status, nodes.Detected, nodes.Of, nodes.Detection)
	}
	// other tests' gpuwise policies may be in the cluster: this one counts, bound
	var ours *tracker.Target
	for i := range adm.Targets {
		if adm.Targets[i].Name == cluster.KindVAP+"/"+policy {
			ours = &adm.Targets[i]
		}
	}
	if ours == nil || !ours.Applied || adm.Detected < 1 || (adm.Status != tracker.Applied && adm.Status != tracker.Partly) {
		t.Errorf("admission groundwork: %s %d of %d (%s), targets %+v: want %s bound", adm.Status, adm.Detected, adm.Of, adm.Detection, adm.Targets, policy)
	}
	t.Logf("autoscale: %s; nodes: %s; admission: %s", scale.Detection, nodes.Detection, adm.Detection)
}

// watchControls starts serve's watcher with kubeconfig and checks that its
// controls are collect's (listed) and its snapshot not partial.
func watchControls(ctx context.Context, t *testing.T, kubeconfig string, listed *cluster.Prepared) *kube.Watcher {
	t.Helper()
	c, err := kube.Connect(kube.Options{Kubeconfig: kubeconfig, Timeout: 30 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	w, err := c.Watch(ctx, time.Now)
	if err != nil {
		t.Fatalf("watch with the shipped role: %v", err)
	}
	t.Cleanup(w.Stop)
	ws, err := w.Snapshot(time.Now(), time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	if len(ws.Partial) > 0 {
		t.Errorf("watched snapshot with the shipped role is partial: %q", ws.Partial)
	}
	if diff := cmp.Diff(listed.View().Controls, ws.Controls); diff != "" {
		t.Errorf("controls before (-collect +watch):\n%s", diff)
	}
	return w
}

// checkWatchedControls: the watcher follows the objects created after its
// start (the HPA on chat, the NodePool, the binding) and then holds the
// controls collect lists.
func checkWatchedControls(t *testing.T, w *kube.Watcher, listed *cluster.Prepared, chat, binding string) {
	t.Helper()
	var ws *cluster.Snapshot
	waitFor(t, "the watcher sees the HPA, the NodePool and the binding", 30*time.Second, func() (bool, string) {
		var err error
		if ws, err = w.Snapshot(time.Now(), time.Hour); err != nil {
			return false, err.Error()
		}
		ctl := ws.Controls
		ok := ctl != nil && slices.ContainsFunc(ctl.Autoscalers, func(a cluster.Autoscaler) bool { return a.Kind == cluster.KindHPA && a.Workload() == chat }) &&
			slices.ContainsFunc(ctl.NodePools, func(n cluster.NodePool) bool { return n.Name == "gpu-h100-controls" }) &&
			slices.ContainsFunc(ctl.Bindings, func(b cluster.AdmissionBinding) bool { return b.Name == binding })
		return ok, fmt.Sprintf("%+v", ctl)
	})
	if diff := cmp.Diff(listed.View().Controls, ws.Controls); diff != "" {
		t.Errorf("controls after (-collect +watch):\n%s", diff)
	}
	if h := w.Health(); h != nil {
		t.Errorf("watch health: %v", h)
	}
	t.Logf("watched controls: read %d resources (%d not served), %d autoscalers, %d NodePools, %d policies, %d bindings",
		len(ws.Controls.Read), len(ws.Controls.NotServed), len(ws.Controls.Autoscalers), len(ws.Controls.NodePools), len(ws.Controls.Policies), len(ws.Controls.Bindings))
}

// nodePoolObject is the NodePool gpuwise generate nodepool writes for the
// test's H100 pool.
func nodePoolObject(t *testing.T) *unstructured.Unstructured {
	t.Helper()
	files, err := generate.NodePools([]generate.NodePool{{Name: "gpu-h100-controls", Evidence: "test", InstanceTypes: []string{"p5.48xlarge"},
		CapacityTypes: []string{"on-demand"}, GPULimit: 8, ConsolidateAfter: "10m",
		NodeClassGroup: "karpenter.k8s.aws", NodeClassKind: "EC2NodeClass", NodeClassName: "gpu"}})
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		if f.Path == "nodepool/gpu-h100-controls.yaml" {
			path := filepath.Join(t.TempDir(), "np.yaml")
			if err := os.WriteFile(path, f.Data, 0o644); err != nil {
				t.Fatal(err)
			}
			return readObject(t, path)
		}
	}
	t.Fatalf("generate.NodePools wrote no nodepool/gpu-h100-controls.yaml")
	return nil
}

func ptr[T any](v T) *T { return &v }
